"use client";
// The page the reset mail links to (/reset-password?token=…&email=…): choose a new password (POST /api/user/reset).
import { useState, type FormEvent } from "react";
import Link from "next/link";
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { api, formErrors, NO_ERRORS, type FormErrors } from "@/lib/portal/api";
import { FormError } from "@/components/feedback";

const FIELDS = ["email", "password", "confirm", "token"] as const;

export function ResetPasswordForm({ token, email: initialEmail }: { token: string; email: string }) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);

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

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (!email.trim()) fields.email = "Enter the email address of your account";
    if (password.length < 8) fields.password = "Use at least 8 characters";
    if (confirm !== password) fields.confirm = "The two passwords are not the same";
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    setSubmitting(true);
    try {
      await api("/api/user/reset", { body: { email, token, password } });
      window.location.assign(`/sign-in?reset=1&email=${encodeURIComponent(email)}`);
    } catch (error) {
      setErrors(formErrors(error, FIELDS));
    } finally {
      setSubmitting(false);
    }
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
      <form onSubmit={submit} noValidate aria-label="Choose a new password">
        <Stack gap="md">
          <FormError message={errors.form} />
          {errors.fields.token ? (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
              {errors.fields.token}{" "}
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
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={errors.fields.email}
            readOnly={Boolean(initialEmail)}
            name="email"
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters; not a common password or your email."
            autoComplete="new-password"
            required
            autoFocus
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={errors.fields.password}
            name="password"
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            value={confirm}
            onChange={(event) => setConfirm(event.currentTarget.value)}
            error={errors.fields.confirm}
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
