"use client";
// The page the confirmation mail links to (/verify-email?token=…&email=…). It posts the token only when the person
// clicks (POST /api/user/verify-email), so a mail scanner that opens links does not use it up.
import { useState } from "react";
import Link from "next/link";
import { Alert, Button, Paper, Stack, Text, Title } from "@mantine/core";
import { IconAlertTriangle, IconMailCheck } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";

export function VerifyEmailForm({ token, email }: { token: string; email: string }) {
  const [done, setDone] = useState(false);
  const { onSubmit, formError, submitting } = useApiForm({
    initialValues: {},
    submit: () => api("/api/user/verify-email", { body: { email, token } }),
    onSuccess: () => setDone(true),
  });

  return (
    <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
      <Stack gap="md">
        <Title order={1} fz={24}>
          Confirm your email
        </Title>
        {!token || !email ? (
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
            Open this page from the link in the confirmation email. The link carries a one-time token.
          </Alert>
        ) : done ? (
          <>
            <Alert color="teal" variant="light" icon={<IconMailCheck size={18} />}>
              {email} is confirmed. You can sign in now.
            </Alert>
            <Button component={Link} href={`/sign-in?email=${encodeURIComponent(email)}`} fullWidth>
              Go to sign in
            </Button>
          </>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label="Confirm your email">
            <Stack gap="md">
              <Text size="sm">
                Confirm that <b>{email}</b> is your address. Then you can sign in.
              </Text>
              {formError ? (
                <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                  {formError}
                </Alert>
              ) : null}
              <Button type="submit" loading={submitting} fullWidth>
                Confirm my email
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    </Paper>
  );
}
