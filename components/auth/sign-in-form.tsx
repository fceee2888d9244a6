"use client";
// Email + password through next-auth's credentials provider; when the account has 2FA on, the provider answers
// "Second factor required" and the form asks for an authenticator or backup code, then signs in with all three.
// Not a useApiForm: it calls next-auth's signIn, whose answer is a result to read rather than an API error, and it is
// a two-step flow (password, then the code) whose answers change the form itself (the code field, "Use another
// account", the resend button for an unconfirmed email).
import { useEffect, useRef, useState, type FormEvent } from "react";
import Link from "next/link";
import { signIn } from "next-auth/react";
import { Alert, Anchor, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { IconInfoCircle, IconShieldLock } from "@tabler/icons-react";
import { FormError } from "@/components/feedback";

const SECOND_FACTOR_REQUIRED = "Second factor required";
const INVALID_CODE = "Invalid authentication code";
/** The start of SIGN_IN_MESSAGES.unverified (lib/accounts/sign-in.ts): said only after the right password. */
const UNVERIFIED = "Confirm your email first";

export function SignInForm({
  callbackUrl,
  initialEmail = "",
  afterReset = false,
  sessionEnded = false,
}: {
  callbackUrl: string;
  initialEmail?: string;
  afterReset?: boolean;
  /** The browser came here because its session was ended (revoked, a password or 2FA change, expiry). */
  sessionEnded?: boolean;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needsCode, setNeedsCode] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [unverified, setUnverified] = useState(false);
  const [resent, setResent] = useState<string | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);
  // The code field takes focus once it is on the page: after the commit that adds it, not on a timer that may run
  // before React has rendered it.
  useEffect(() => {
    if (needsCode) codeInput.current?.focus();
  }, [needsCode]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const errors: Record<string, string> = {};
    if (!email.trim()) errors.email = "Enter your email address";
    if (!password) errors.password = "Enter your password";
    if (needsCode && !code.trim()) errors.code = "Enter the code from your authenticator app, or a backup code";
    setFieldErrors(errors);
    setFormError(null);
    setUnverified(false);
    if (Object.keys(errors).length) return;
    setSubmitting(true);
    try {
      // `code` is sent only when there is one: an empty field must not reach the provider as a code.
      const result = await signIn("credentials", { email, password, ...(needsCode ? { code: code.trim() } : {}), redirect: false });
      if (result && !result.error && result.ok) {
        window.location.assign(callbackUrl);
        return;
      }
      const message = result?.error ?? "Sign-in failed. Try again.";
      if (message === SECOND_FACTOR_REQUIRED) {
        setNeedsCode(true);
      } else if (message === INVALID_CODE) {
        setFieldErrors({ code: "That code is not valid or was already used. Enter the current code." });
        setCode("");
        codeInput.current?.focus();
      } else if (message.startsWith(UNVERIFIED)) {
        setUnverified(true);
        setFormError(message);
      } else if (message === "CredentialsSignin" || message === "Invalid email or password") {
        setFormError("Invalid email or password.");
      } else {
        setFormError(message);
      }
    } catch {
      setFormError("Could not reach the server. Check your connection and try again.");
    } finally {
      setSubmitting(false);
    }
  }

  async function resend() {
    try {
      const response = await fetch("/api/user/verify-email/resend", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      const body = (await response.json().catch(() => null)) as { message?: string; error?: { message?: string } } | null;
      setResent(body?.message ?? body?.error?.message ?? "Could not send a new link. Try again later.");
    } catch {
      setResent("Could not reach the server. Check your connection and try again.");
    }
  }

  return (
    <Paper withBorder shadow="sm" radius="lg" p={{ base: "lg", sm: 32 }}>
      <Stack gap="xs" mb="lg">
        <Title order={1} fz={24}>
          {needsCode ? "Two-step verification" : "Sign in"}
        </Title>
        <Text size="sm" c="dimmed">
          {needsCode
            ? "Your account is protected with two-factor authentication."
            : "Welcome back. Sign in to manage your keys, usage and balance."}
        </Text>
      </Stack>
      {sessionEnded && !afterReset ? (
        <Alert color="orange" variant="light" mb="md" icon={<IconInfoCircle size={18} />} role="status" data-testid="session-ended">
          You were signed out: this session was ended (signed out from another browser or by the operator, or after a password or two-factor
          change). Sign in again to continue.
        </Alert>
      ) : null}
      {afterReset ? (
        <Alert color="teal" variant="light" mb="md" icon={<IconInfoCircle size={18} />}>
          Your password was changed. Sign in with the new one.
        </Alert>
      ) : null}
      <form onSubmit={submit} noValidate aria-label="Sign in">
        <Stack gap="md">
          <FormError message={formError} />
          {unverified ? (
            resent ? (
              <Alert color="indigo" variant="light" icon={<IconInfoCircle size={18} />} data-testid="verification-resent">
                {resent}
              </Alert>
            ) : (
              <Button variant="light" onClick={() => void resend()}>
                Send a new confirmation link
              </Button>
            )
          ) : null}
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={fieldErrors.email}
            readOnly={needsCode}
            autoFocus={!initialEmail}
            name="email"
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={fieldErrors.password}
            readOnly={needsCode}
            autoFocus={Boolean(initialEmail)}
            name="password"
          />
          {needsCode ? (
            <TextInput
              ref={codeInput}
              label="Authentication code"
              description="The 6-digit code from your authenticator app, or one of your backup codes."
              leftSection={<IconShieldLock size={16} />}
              autoComplete="one-time-code"
              inputMode="text"
              required
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
              error={fieldErrors.code}
              name="code"
            />
          ) : null}
          <Button type="submit" fullWidth size="md" loading={submitting}>
            {needsCode ? "Verify and sign in" : "Sign in"}
          </Button>
          {needsCode ? (
            <Button
              variant="subtle"
              color="gray"
              onClick={() => {
                setNeedsCode(false);
                setCode("");
                setFieldErrors({});
              }}
            >
              Use another account
            </Button>
          ) : null}
        </Stack>
      </form>
      <Group justify="space-between" mt="lg">
        <Anchor component={Link} href="/forgot-password" size="sm">
          Forgot your password?
        </Anchor>
        <Anchor component={Link} href="/sign-up" size="sm">
          Create an account
        </Anchor>
      </Group>
    </Paper>
  );
}
