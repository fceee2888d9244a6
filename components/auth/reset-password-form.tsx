"use client";
// The page the reset mail links to (/reset-password?token=…&email=…): choose a new password (POST /api/user/reset).
// As it opens it asks whether the link still works (POST /api/user/reset/check), so a used, expired or replaced link
// is said at once, with a way to a new one, instead of after both passwords were typed.
import { useEffect, useState } from "react";
import Link from "next/link";
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { ApiError, api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { FormError, Loading } from "@/components/feedback";

type LinkState = { state: "checking" } | { state: "usable" } | { state: "refused"; message: string };

/** Asks the server whether the link can still be used; a failure to ask leaves the form usable (the reset says). */
function useLinkState(token: string, email: string): LinkState {
  const [link, setLink] = useState<LinkState>({ state: token && email ? "checking" : "usable" });
  useEffect(() => {
    if (!token || !email) return;
    const controller = new AbortController();
    api("/api/user/reset/check", { body: { email, token }, signal: controller.signal })
      .then(() => setLink({ state: "usable" }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        const refused = error instanceof ApiError && error.status === 400 && error.param === "token";
        setLink(refused ? { state: "refused", message: error.message } : { state: "usable" });
      });
    return () => controller.abort();
  }, [token, email]);
  return link;
}

export function ResetPasswordForm({ token, email: initialEmail }: { token: string; email: string }) {
  const link = useLinkState(token, initialEmail);
  const { form, onSubmit, formError, submitting } = useApiForm({
    // The token is a value of the form so that the server's error about it (param "token") has a place to show.
    initialValues: { email: initialEmail, password: "", confirm: "", token },
    validate: {
      email: (value) => (value.trim() ? null : "Enter the email address of your account"),
      password: (value) => (value.length < 8 ? "Use at least 8 characters" : null),
      confirm: (value, values) => (value !== values.password ? "The two passwords are not the same" : null),
    },
    submit: (values) => api("/api/user/reset", { body: { email: values.email, token: values.token, password: values.password } }),
    onSuccess: (_answer, values) => window.location.assign(`/sign-in?reset=1&email=${encodeURIComponent(values.email)}`),
  });

  if (!token) {
    return (
      <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
        <Stack gap="md">
          <Title order={1} fz={24}>
            Choose a new password
          </Title>
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
            Open this page from the link in the password reset email. The link carries a one-time token.
          </Alert>
          <Button component={Link} href="/forgot-password">
            Request a reset link
          </Button>
        </Stack>
      </Paper>
    );
  }

  if (link.state !== "usable") {
    return (
      <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
        <Stack gap="md">
          <Title order={1} fz={24}>
            Choose a new password
          </Title>
          {link.state === "checking" ? (
            <Loading label="Checking the link…" />
          ) : (
            <>
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert" data-testid="reset-link-refused">
                {link.message}
              </Alert>
              <Button component={Link} href="/forgot-password">
                Request a new link
              </Button>
            </>
          )}
        </Stack>
      </Paper>
    );
  }

  return (
    <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
      <Stack gap="xs" mb="lg">
        <Title order={1} fz={24}>
          Choose a new password
        </Title>
        <Text size="sm" c="dimmed">
          Signing in with the new password ends your other sessions. Two-factor authentication stays on if you use it.
        </Text>
      </Stack>
      <form onSubmit={onSubmit} noValidate aria-label="Choose a new password">
        <Stack gap="md">
          <FormError message={formError} />
          {form.errors.token ? (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {form.errors.token}{" "}
              <Anchor component={Link} href="/forgot-password" size="sm">
                Request a new link
              </Anchor>
            </Alert>
          ) : null}
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            {...form.getInputProps("email")}
            readOnly={Boolean(initialEmail)}
            name="email"
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters; not a common password or your email."
            autoComplete="new-password"
            required
            autoFocus
            {...form.getInputProps("password")}
            name="password"
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            {...form.getInputProps("confirm")}
            name="confirm"
          />
          <Button type="submit" fullWidth size="md" loading={submitting}>
            Set new password
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
