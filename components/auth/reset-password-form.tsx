"use client";
// The page the reset mail links to (/reset-password?token=…&email=…): choose a new password (POST /api/user/reset).
import Link from "next/link";
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { FormError } from "@/components/feedback";

export function ResetPasswordForm({ token, email: initialEmail }: { token: string; email: string }) {
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
