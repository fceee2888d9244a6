"use client";
// Self-service sign-up (POST /api/user/signup). The answer is the same whether or not the email had an account
// (the API must not tell), so the form then tries to sign in with what was typed: a new account goes straight to
// the dashboard; otherwise the neutral message is shown with a way to sign in.
import { useState, type FormEvent } from "react";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconMailCheck } from "@tabler/icons-react";
import { api, formErrors, NO_ERRORS, type FormErrors } from "@/lib/portal/api";
import { FormError } from "@/components/feedback";

const FIELDS = ["email", "password", "confirm"] as const;

export function SignUpForm() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (!email.trim()) fields.email = "Enter your email address";
    if (password.length < 8) fields.password = "Use at least 8 characters";
    if (confirm !== password) fields.confirm = "The two passwords are not the same";
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    setSubmitting(true);
    try {
      const answer = await api<{ email: string; message: string }>("/api/user/signup", { body: { email, password } });
      const result = await signIn("credentials", { email, password, redirect: false });
      if (result && !result.error && result.ok) {
        window.location.assign("/dashboard?welcome=1");
        return;
      }
      setDone(answer.message);
    } catch (error) {
      setErrors(formErrors(error, FIELDS));
    } finally {
      setSubmitting(false);
    }
  }

  if (done) {
    return (
      <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
        <Stack gap="md">
          <Title order={1} fz={24}>
            Check your email
          </Title>
          <Alert color="indigo" variant="light" icon={<IconMailCheck size={18} />}>
            {done}
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
      <form onSubmit={submit} noValidate aria-label="Create an account">
        <Stack gap="md">
          <FormError message={errors.form} />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            autoFocus
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={errors.fields.email}
            name="email"
          />
          <PasswordInput
            label="Password"
            description="At least 8 characters; not a common password or your email."
            autoComplete="new-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={errors.fields.password}
            name="password"
          />
          <PasswordInput
            label="Repeat the password"
            autoComplete="new-password"
            required
            value={confirm}
            onChange={(event) => setConfirm(event.currentTarget.value)}
            error={errors.fields.confirm}
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
