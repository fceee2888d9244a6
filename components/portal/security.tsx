"use client";
// Security: two-factor authentication (set up with a QR code and a confirmation code, backup codes shown once,
// turn off with a code) and the password. Both end the account's other sessions; this one continues (the API
// answers with a fresh session cookie). And the browsers that are signed in: end one, or all of them.
import { useState, type FormEvent } from "react";
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Image,
  List,
  Loader,
  Paper,
  PasswordInput,
  PinInput,
  SimpleGrid,
  Stack,
  Stepper,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconAlertTriangle, IconDevices, IconDownload, IconLock, IconShieldCheck, IconShieldOff } from "@tabler/icons-react";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { dateOnly, relative } from "@/lib/portal/format";
import { dropPlaygroundKeysOnSignOut } from "@/lib/portal/playground-key";
import { download } from "@/lib/portal/csv";
import type { Self } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { CopyField, CopyIcon, FormError, LoadError, Loading } from "@/components/feedback";

type Setup = { secret: string; otpauthUrl: string; qrCode: string };

function BackupCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const text = `Model Gateway backup codes for ${email}\nEach code works once, in place of an authenticator code.\n\n${codes.join("\n")}\n`;
  return (
    <Stack gap="md">
      <Alert color="teal" variant="light" icon={<IconShieldCheck size={18} />} title="Two-factor authentication is on">
        Save these backup codes now. Each one signs you in once if you lose your phone. They will not be shown again.
      </Alert>
      <Paper withBorder p="md" radius="md">
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" data-testid="backup-codes">
          {codes.map((code) => (
            <Text key={code} ff="monospace" fz="md" fw={500} data-testid="backup-code">
              {code}
            </Text>
          ))}
        </SimpleGrid>
      </Paper>
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <CopyIcon value={codes.join("\n")} label="Copy all codes" />
          <Button
            variant="default"
            size="xs"
            leftSection={<IconDownload size={14} />}
            onClick={() => download("model-gateway-backup-codes.txt", text, "text/plain;charset=utf-8")}
          >
            Download .txt
          </Button>
        </Group>
        <Button onClick={onDone}>I have saved them</Button>
      </Group>
    </Stack>
  );
}

function TwoFactorCard({ self, reload }: { self: Self; reload: () => Promise<void> }) {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [code, setCode] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);
  const [backupCodes, setBackupCodes] = useState<string[] | null>(null);
  const [disableCode, setDisableCode] = useState("");

  async function start() {
    setStarting(true);
    setStartError(null);
    try {
      setSetup(await api<Setup>("/api/user/2fa/setup", { method: "POST" }));
      setCode("");
      setErrors(NO_ERRORS);
    } catch (error) {
      setStartError((error as Error).message);
    } finally {
      setStarting(false);
    }
  }

  async function enable(event: FormEvent) {
    event.preventDefault();
    if (!/^\d{6}$/.test(code)) {
      setErrors({ fields: { code: "Enter the 6-digit code your app shows" }, form: null });
      return;
    }
    setSubmitting(true);
    setErrors(NO_ERRORS);
    try {
      const result = await api<{ backupCodes: string[] }>("/api/user/2fa/enable", { body: { code } });
      setBackupCodes(result.backupCodes);
      setSetup(null);
      void reload();
    } catch (error) {
      setErrors(formErrors(error, ["code"]));
      setCode("");
    } finally {
      setSubmitting(false);
    }
  }

  async function disable(event: FormEvent) {
    event.preventDefault();
    if (!disableCode.trim()) {
      setErrors({ fields: { disableCode: "Enter a code from your app or a backup code" }, form: null });
      return;
    }
    setSubmitting(true);
    setErrors(NO_ERRORS);
    try {
      await api("/api/user/2fa/disable", { body: { code: disableCode.trim() } });
      setDisableCode("");
      notifications.show({
        color: "orange",
        title: "Two-factor authentication is off",
        message: "Signing in now needs only your password.",
      });
      await reload();
    } catch (error) {
      setErrors(formErrors(error, ["disableCode"], { code: "disableCode" }));
    } finally {
      setSubmitting(false);
    }
  }

  const header = (
    <Group justify="space-between" mb="md" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <IconShieldCheck size={22} />
        <Title order={2} fz="lg">
          Two-factor authentication
        </Title>
      </Group>
      <Badge color={self.totpEnabled ? "teal" : "gray"} variant="light" data-testid="totp-status">
        {self.totpEnabled ? "On" : "Off"}
      </Badge>
    </Group>
  );

  if (backupCodes) {
    return (
      <Card withBorder radius="lg" padding="lg">
        {header}
        <BackupCodes
          codes={backupCodes}
          email={self.email}
          onDone={() => {
            setBackupCodes(null);
            void reload();
          }}
        />
      </Card>
    );
  }

  if (self.totpEnabled) {
    return (
      <Card withBorder radius="lg" padding="lg">
        {header}
        <Text size="sm" mb="md">
          Signing in needs your password and a code from your authenticator app. You have{" "}
          <b data-testid="backup-remaining">{self.backupCodesRemaining}</b> unused backup code{self.backupCodesRemaining === 1 ? "" : "s"}.
        </Text>
        <form onSubmit={disable} noValidate aria-label="Turn off two-factor authentication">
          <Stack gap="sm">
            <FormError message={errors.form} />
            <TextInput
              label="Code to turn it off"
              description="A current code from your authenticator app, or one of your backup codes."
              value={disableCode}
              onChange={(event) => setDisableCode(event.currentTarget.value)}
              error={errors.fields.disableCode}
              autoComplete="one-time-code"
              maw={360}
              name="disable-code"
            />
            <Group>
              <Button type="submit" color="red" variant="light" leftSection={<IconShieldOff size={16} />} loading={submitting}>
                Turn off two-factor authentication
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>
    );
  }

  if (!setup) {
    return (
      <Card withBorder radius="lg" padding="lg">
        {header}
        <Text size="sm" mb="md">
          Protect your account with a second step at sign-in: a 6-digit code from an authenticator app such as 1Password, Google
          Authenticator or Aegis.
        </Text>
        <FormError message={startError} />
        <Button onClick={() => void start()} loading={starting} mt={startError ? "md" : 0}>
          Set up two-factor authentication
        </Button>
      </Card>
    );
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      {header}
      <Stepper active={1} size="sm" mb="lg" allowNextStepsSelect={false}>
        <Stepper.Step label="Scan" description="Add the account to your app" />
        <Stepper.Step label="Confirm" description="Enter a code" />
        <Stepper.Step label="Save" description="Keep backup codes" />
      </Stepper>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
        <Stack align="center" gap="xs">
          <Paper withBorder p="xs" radius="md" bg="white">
            <Image src={setup.qrCode} alt="QR code to add this account to an authenticator app" w={200} h={200} data-testid="totp-qr" />
          </Paper>
          <Text size="xs" c="dimmed" ta="center">
            Scan with your authenticator app
          </Text>
        </Stack>
        <Stack gap="sm">
          <Text size="sm">Can&apos;t scan? Enter this key in the app instead:</Text>
          <CopyField value={setup.secret} label="Copy secret" testId="totp-secret" />
          <List size="sm" c="dimmed" spacing={2}>
            <List.Item>Type: time-based (TOTP)</List.Item>
            <List.Item>6 digits, every 30 seconds</List.Item>
          </List>
          <form onSubmit={enable} noValidate aria-label="Confirm two-factor authentication">
            <Stack gap={6} mt="sm">
              <Text size="sm" fw={500} id="totp-code-label">
                Code from the app
              </Text>
              <PinInput
                length={6}
                type="number"
                oneTimeCode
                value={code}
                onChange={setCode}
                error={Boolean(errors.fields.code)}
                aria-labelledby="totp-code-label"
                ariaLabel="Code from the app"
                data-testid="totp-code"
                autoFocus
              />
              {errors.fields.code ? (
                <Text c="red" size="sm" role="alert" data-testid="totp-code-error">
                  {errors.fields.code}
                </Text>
              ) : null}
              <FormError message={errors.form} />
              <Group mt="xs">
                <Button type="submit" loading={submitting}>
                  Turn on
                </Button>
                <Button variant="subtle" color="gray" onClick={() => setSetup(null)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        </Stack>
      </SimpleGrid>
    </Card>
  );
}

function PasswordCard({ self }: { self: Self }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (!current) fields.current = "Enter your current password";
    if (next.length < 8) fields.next = "Use at least 8 characters";
    if (confirm !== next) fields.confirm = "The two passwords are not the same";
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    setSubmitting(true);
    try {
      await api("/api/user/password", { body: { current, next } });
      setCurrent("");
      setNext("");
      setConfirm("");
      notifications.show({ color: "teal", title: "Password changed", message: "Your other sessions were signed out." });
    } catch (error) {
      setErrors(formErrors(error, ["current", "next", "confirm"]));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      <Group gap="sm" mb="xs" wrap="nowrap">
        <IconLock size={22} />
        <Title order={2} fz="lg">
          Password
        </Title>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        Last changed {dateOnly(self.passwordChangedAt)}. Changing it signs out your other sessions.
      </Text>
      <form onSubmit={submit} noValidate aria-label="Change password">
        <Stack gap="sm" maw={420}>
          <FormError message={errors.form} />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            value={current}
            onChange={(event) => setCurrent(event.currentTarget.value)}
            error={errors.fields.current}
            name="current"
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters."
            autoComplete="new-password"
            value={next}
            onChange={(event) => setNext(event.currentTarget.value)}
            error={errors.fields.next}
            name="next"
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            value={confirm}
            onChange={(event) => setConfirm(event.currentTarget.value)}
            error={errors.fields.confirm}
            name="confirm"
          />
          <Group>
            <Button type="submit" variant="default" loading={submitting}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

type SessionRow = { id: string; createdAt: string; expiresAt: string; userAgent: string; address: string; current: boolean };

/** "Mozilla/5.0 (X11; Linux x86_64) … Chrome/131.0 …" → "Chrome on Linux": enough to recognise a browser. */
function browserName(userAgent: string): string {
  if (!userAgent) return "Unknown browser";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "A browser";
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : null;
  return system ? `${browser} on ${system}` : browser;
}

function SessionsCard() {
  const sessions = useApi<{ data: SessionRow[] }>("/api/user/sessions");
  const [busy, setBusy] = useState<string | null>(null);

  async function end(row: SessionRow) {
    setBusy(row.id);
    try {
      await api(`/api/user/sessions/${encodeURIComponent(row.id)}`, { method: "DELETE" });
      if (row.current) {
        window.location.assign("/sign-in");
        return;
      }
      notifications.show({ color: "teal", title: "Signed out", message: `${browserName(row.userAgent)} is signed out.` });
      await sessions.reload();
    } catch (error) {
      notifications.show({
        color: "red",
        title: "Could not sign that session out",
        message: error instanceof Error ? error.message : String(error),
      });
    } finally {
      setBusy(null);
    }
  }

  async function everywhere() {
    setBusy("all");
    try {
      await dropPlaygroundKeysOnSignOut();
      await api("/api/user/sessions/revoke-all", { method: "POST" });
      window.location.assign("/sign-in");
    } catch (error) {
      notifications.show({
        color: "red",
        title: "Could not sign out everywhere",
        message: error instanceof Error ? error.message : String(error),
      });
      setBusy(null);
    }
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      <Group gap="sm" mb="xs" wrap="nowrap">
        <IconDevices size={22} />
        <Title order={2} fz="lg">
          Where you are signed in
        </Title>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        Each browser that signed in, for up to 7 days. Signing one out ends it at once, even if someone copied its cookie.
      </Text>
      {sessions.error ? <LoadError error={sessions.error} onRetry={sessions.reload} /> : null}
      {!sessions.data ? (
        sessions.loading ? (
          <Loading />
        ) : null
      ) : (
        <Stack gap="xs" data-testid="sessions">
          {sessions.data.data.map((row) => (
            <Group key={row.id} justify="space-between" wrap="wrap" gap="xs" data-testid="session-row">
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Text size="sm" fw={500}>
                  {browserName(row.userAgent)}{" "}
                  {row.current ? (
                    <Badge size="xs" variant="light" ml={4}>
                      this browser
                    </Badge>
                  ) : null}
                </Text>
                <Text size="xs" c="dimmed">
                  Signed in {relative(row.createdAt)}
                  {row.address ? ` from ${row.address}` : ""}
                </Text>
              </Stack>
              <Button size="xs" variant="default" loading={busy === row.id} onClick={() => void end(row)}>
                Sign out
              </Button>
            </Group>
          ))}
          <Group mt="xs">
            <Button color="red" variant="light" loading={busy === "all"} onClick={() => void everywhere()}>
              Sign out everywhere
            </Button>
          </Group>
        </Stack>
      )}
    </Card>
  );
}

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
          <TwoFactorCard self={self.data} reload={self.reload} />
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
