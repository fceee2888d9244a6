"use client";
// Security: two-factor authentication (security-two-factor.tsx), the password (security-password.tsx) and the
// browsers that are signed in (security-sessions.tsx). Changing either of the first two ends the account's other
// sessions; this one continues (the API answers with a fresh session cookie).
import { Alert, Loader, Stack } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import type { Self } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { PasswordCard } from "./security-password";
import { SessionsCard } from "./security-sessions";
import { TwoFactorCard } from "./security-two-factor";

export function SecurityPage() {
  const self = useApi<Self>("/api/user/self");
  return (
    <>
      <PageHeader title="Security" description="How you sign in to the portal. API keys are managed on the Keys page." />
      {self.error ? <LoadError error={self.error} onRetry={self.reload} /> : null}
      {!self.data ? (
        self.loading ? (
          <Loading />
        ) : null
      ) : (
        <Stack gap="md">
          <TwoFactorCard self={self.data} />
          <PasswordCard self={self.data} />
          <SessionsCard />
          {self.data.totpEnabled && self.data.backupCodesRemaining <= 2 ? (
            <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
              You are running out of backup codes. Turn two-factor authentication off and on again to get a new set.
            </Alert>
          ) : null}
        </Stack>
      )}
      {self.loading && self.data ? <Loader size="xs" pos="fixed" bottom={16} right={16} /> : null}
    </>
  );
}
