"use client";
// Two-factor authentication on the Security page: set it up (a QR code, the secret, a confirmation code; backup
// codes shown once) or turn it off with a code. Every change refreshes the profile (`/api/user/self`) everywhere.
import { useEffect, useRef, useState } from "react";
import {
  Badge,
  Button,
  Card,
  Group,
  Image,
  List,
  Paper,
  PinInput,
  SimpleGrid,
  Stack,
  Stepper,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconShieldCheck, IconShieldOff } from "@tabler/icons-react";
import { api, useRefresh } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { Self } from "@/lib/portal/types";
import { CopyField, FormError } from "@/components/feedback";
import { BackupCodes } from "./security-backup-codes";

type Setup = { secret: string; otpauthUrl: string; qrCode: string };

function TwoFactorHeader({ on }: { on: boolean }) {
  return (
    <Group justify="space-between" mb="md" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <IconShieldCheck size={22} />
        <Title order={2} fz="lg">
          Two-factor authentication
        </Title>
      </Group>
      <Badge color={on ? "teal" : "gray"} variant="light" data-testid="totp-status">
        {on ? "On" : "Off"}
      </Badge>
    </Group>
  );
}

/** Turning it off: a current code from the app or a backup code. */
function DisableForm({ onDisabled }: { onDisabled: () => Promise<void> }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { disableCode: "" },
    validate: { disableCode: (value) => (value.trim() ? null : "Enter a code from your app or a backup code") },
    submit: (values) => api("/api/user/2fa/disable", { body: { code: values.disableCode.trim() } }),
    aliases: { code: "disableCode" },
    onSuccess: (_result, _values, disableForm) => {
      disableForm.reset();
      notifications.show({
        color: "orange",
        title: "Two-factor authentication is off",
        message: "Signing in now needs only your password.",
      });
      void onDisabled();
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Turn off two-factor authentication">
      <Stack gap="sm">
        <FormError message={formError} />
        <TextInput
          label="Code to turn it off"
          description="A current code from your authenticator app, or one of your backup codes."
          {...form.getInputProps("disableCode")}
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
  );
}

/** The second step of the setup: scan (or type the secret), then confirm with a code; answers the backup codes. */
function ConfirmSetup({ setup, onEnabled, onCancel }: { setup: Setup; onEnabled: (codes: string[]) => void; onCancel: () => void }) {
  const enable = useApiForm({
    initialValues: { code: "" },
    validate: { code: (value) => (/^\d{6}$/.test(value) ? null : "Enter the 6-digit code your app shows") },
    submit: async (values) => {
      try {
        return await api<{ backupCodes: string[] }>("/api/user/2fa/enable", { body: { code: values.code } });
      } catch (error) {
        // A refused code is cleared so that the next one can be typed at once.
        enable.form.setFieldValue("code", "");
        throw error;
      }
    },
    onSuccess: (result) => onEnabled(result.backupCodes),
  });
  const { form, onSubmit, formError, submitting } = enable;
  const codeError = form.errors.code;
  // The code's first box takes focus when this step opens: the next thing to do is to type the app's code.
  const codeBoxes = useRef<HTMLDivElement>(null);
  useEffect(() => {
    codeBoxes.current?.querySelector<HTMLInputElement>("input:not([type=hidden])")?.focus();
  }, []);
  return (
    <>
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
          <form onSubmit={onSubmit} noValidate aria-label="Confirm two-factor authentication">
            <Stack gap={6} mt="sm">
              <Text size="sm" fw={500} id="totp-code-label">
                Code from the app
              </Text>
              <PinInput
                rootRef={codeBoxes}
                length={6}
                type="number"
                oneTimeCode
                value={form.values.code}
                onChange={(value) => form.setFieldValue("code", value)}
                error={Boolean(codeError)}
                aria-labelledby="totp-code-label"
                ariaLabel="Code from the app"
                data-testid="totp-code"
                autoFocus
              />
              {codeError ? (
                <Text c="red" size="sm" role="alert" data-testid="totp-code-error">
                  {codeError}
                </Text>
              ) : null}
              <FormError message={formError} />
              <Group mt="xs">
                <Button type="submit" loading={submitting}>
                  Turn on
                </Button>
                <Button variant="subtle" color="gray" onClick={onCancel}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        </Stack>
      </SimpleGrid>
    </>
  );
}

export function TwoFactorCard({ self }: { self: Self }) {
  const refresh = useRefresh();
  const reload = () => refresh("/api/user/self");
  const [setup, setSetup] = useState<Setup | null>(null);
  // Starting the setup is one button, not a form: its error shows above the button.
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [backupCodes, setBackupCodes] = useState<string[] | null>(null);

  async function start() {
    setStarting(true);
    setStartError(null);
    try {
      setSetup(await api<Setup>("/api/user/2fa/setup", { method: "POST" }));
    } catch (error) {
      setStartError((error as Error).message);
    } finally {
      setStarting(false);
    }
  }

  const header = <TwoFactorHeader on={self.totpEnabled} />;

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
        <DisableForm onDisabled={reload} />
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
      <ConfirmSetup
        setup={setup}
        onCancel={() => setSetup(null)}
        onEnabled={(codes) => {
          setBackupCodes(codes);
          setSetup(null);
          void reload();
        }}
      />
    </Card>
  );
}
