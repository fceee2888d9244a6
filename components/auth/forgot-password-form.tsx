"use client";
// Asks for a reset link (POST /api/user/reset/request). The answer is the same for every email; when the gateway
// sends no mail (mailOff) it says so and points to the operator, whose outbox holds the link.
import { useState } from "react";
import Link from "next/link";
import { Alert, Anchor, Button, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconMailForward, IconMailOff } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { FormError } from "@/components/feedback";

export function ForgotPasswordForm() {
  const [sent, setSent] = useState<{ message: string; mailOff: boolean } | null>(null);
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { email: "" },
    validate: { email: (value) => (value.trim() ? null : "Enter the email address of your account") },
    submit: (values) => api<{ message: string; mailOff: boolean }>("/api/user/reset/request", { body: { email: values.email } }),
    onSuccess: (answer) => setSent(answer),
  });

  return (
    <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
      <Stack gap="xs" mb="lg">
        <Title order={1} fz={24}>
          Reset your password
        </Title>
        <Text size="sm" c="dimmed">
          Enter the email of your account and we will send you a link to choose a new password.
        </Text>
      </Stack>
      {sent ? (
        <Stack gap="md">
          {sent.mailOff ? (
            <Alert
              color="orange"
              variant="light"
              icon={<IconMailOff size={18} />}
              title="This gateway does not send email"
              role="status"
              data-testid="mail-off"
            >
              {sent.message}
            </Alert>
          ) : (
            <Alert color="teal" variant="light" icon={<IconMailForward size={18} />} title="Check your inbox" role="status">
              {sent.message}
            </Alert>
          )}
          <Button variant="default" onClick={() => setSent(null)}>
            Send another link
          </Button>
        </Stack>
      ) : (
        <form onSubmit={onSubmit} noValidate aria-label="Request a password reset link">
          <Stack gap="md">
            <FormError message={formError} />
            <TextInput label="Email" type="email" autoComplete="email" required autoFocus {...form.getInputProps("email")} name="email" />
            <Button type="submit" fullWidth size="md" loading={submitting}>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" ta="center" mt="lg">
        Remembered it?{" "}
        <Anchor component={Link} href="/sign-in">
          Back to sign in
        </Anchor>
      </Text>
    </Paper>
  );
}
