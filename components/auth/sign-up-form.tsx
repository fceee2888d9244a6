"use client";
// Self-service sign-up (POST /api/user/signup). The answer is the same whether or not the email had an account
// (the API must not tell), so the form then tries to sign in with what was typed: a new account goes straight to
// the dashboard; otherwise the neutral message is shown with a way to sign in (and, when the gateway sends no mail,
// that the confirmation link waits with the operator instead of in the inbox).
import { useState } from "react";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconMailCheck, IconMailOff } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { FormError } from "@/components/feedback";

export function SignUpForm() {
  const [done, setDone] = useState<{ message: string; mailOff: boolean } | null>(null);
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { email: "", password: "", confirm: "" },
    validate: {
      email: (value) => (value.trim() ? null : "Enter your email address"),
      password: (value) => (value.length < 8 ? "Use at least 8 characters" : null),
      confirm: (value, values) => (value !== values.password ? "The two passwords are not the same" : null),
    },
    submit: async ({ email, password }) => {
      const answer = await api<{ email: string; message: string; mailOff: boolean }>("/api/user/signup", { body: { email, password } });
      const result = await signIn("credentials", { email, password, redirect: false });
      return { message: answer.message, mailOff: answer.mailOff, signedIn: Boolean(result && !result.error && result.ok) };
    },
    onSuccess: ({ message, mailOff, signedIn }) => {
      if (signedIn) window.location.assign("/dashboard?welcome=1");
      else setDone({ message, mailOff });
    },
  });
  const { email } = form.values;

  if (done) {
    return (
      <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
        <Stack gap="md">
          <Title order={1} fz={24}>
            {done.mailOff ? "Ask the operator to confirm your account" : "Check your email"}
          </Title>
          <Alert
            color={done.mailOff ? "orange" : "indigo"}
            variant="light"
            icon={done.mailOff ? <IconMailOff size={18} /> : <IconMailCheck size={18} />}
            title={done.mailOff ? "This gateway does not send email" : undefined}
            data-testid={done.mailOff ? "mail-off" : undefined}
          >
            {done.message}
          </Alert>
          <Button component={Link} href={`/sign-in?email=${encodeURIComponent(email)}`} fullWidth>
            Go to sign in
          </Button>
        </Stack>
      </Paper>
    );
  }

  return (
    <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
      <Stack gap="xs" mb="lg">
        <Title order={1} fz={24}>
          Create your account
        </Title>
        <Text size="sm" c="dimmed">
          Get an API key for image and text models in a minute. Top up with a redeem code when you are ready.
        </Text>
      </Stack>
      <form onSubmit={onSubmit} noValidate aria-label="Create an account">
        <Stack gap="md">
          <FormError message={formError} />
          <TextInput label="Email" type="email" autoComplete="email" required autoFocus {...form.getInputProps("email")} name="email" />
          <PasswordInput
            label="Password"
            description="At least 8 characters; not a common password or your email."
            autoComplete="new-password"
            required
            {...form.getInputProps("password")}
            name="password"
          />
          <PasswordInput
            label="Repeat the password"
            autoComplete="new-password"
            required
            {...form.getInputProps("confirm")}
            name="confirm"
          />
          <Button type="submit" fullWidth size="md" loading={submitting}>
            Create account
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center" mt="lg">
        Already have an account?{" "}
        <Anchor component={Link} href="/sign-in">
          Sign in
        </Anchor>
      </Text>
    </Paper>
  );
}
