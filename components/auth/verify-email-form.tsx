"use client";
// The page the confirmation mail links to (/verify-email?token=…&email=…). It posts the token only when the person
// clicks (POST /api/user/verify-email), so a mail scanner that opens links does not use it up.
import { useState } from "react";
import Link from "next/link";
import { Alert, Button, Paper, Stack, Text, Title } from "@mantine/core";
import { IconAlertTriangle, IconMailCheck } from "@tabler/icons-react";
import { api, ApiError } from "@/lib/portal/api";

export function VerifyEmailForm({ token, email }: { token: string; email: string }) {
  const [state, setState] = useState<{ kind: "idle" | "done" | "failed"; message?: string }>({ kind: "idle" });
  const [submitting, setSubmitting] = useState(false);

  async function confirm() {
    setSubmitting(true);
    try {
      await api("/api/user/verify-email", { body: { email, token } });
      setState({ kind: "done" });
    } catch (error) {
      setState({ kind: "failed", message: error instanceof ApiError ? error.message : "Could not reach the server. Try again." });
    } finally {
      setSubmitting(false);
    }
  }

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
        ) : state.kind === "done" ? (
          <>
            <Alert color="teal" variant="light" icon={<IconMailCheck size={18} />}>
              {email} is confirmed. You can sign in now.
            </Alert>
            <Button component={Link} href={`/sign-in?email=${encodeURIComponent(email)}`} fullWidth>
              Go to sign in
            </Button>
          </>
        ) : (
          <>
            <Text size="sm">
              Confirm that <b>{email}</b> is your address. Then you can sign in.
            </Text>
            {state.kind === "failed" ? (
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
                {state.message}
              </Alert>
            ) : null}
            <Button onClick={() => void confirm()} loading={submitting} fullWidth>
              Confirm my email
            </Button>
          </>
        )}
      </Stack>
    </Paper>
  );
}
