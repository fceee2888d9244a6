"use client";
// Operator: settings kept in the database (GET/POST /api/admin/settings; lib/admin-api/settings.ts): whether people may
// sign up, whether a new account confirms its email first, which groups users may pick for their own keys, the request
// fields that change what the vendor bills beyond the built-in ones (docs/billing.md, "Price modifiers"), and the
// content policy's terms (moderation-card.tsx). The form starts from the stored settings and starts again from them
// whenever they change (after a save, the server's normalised answer).
import { Alert, Button, Card, Group, SegmentedControl, Stack, Switch, TagsInput, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconInfoCircle } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError, Loading } from "@/components/feedback";
import { ModerationCard } from "./moderation-card";

type Settings = {
  signupEnabled: boolean;
  signupForcedOffByEnvironment: boolean;
  userGroups: string[];
  priceModifierFields: string[];
  builtInPriceModifierFields: string[];
  verifyEmail: boolean;
  verifyEmailSource: "setting" | "mail";
  mailConfigured: boolean;
};

type VerifyChoice = "default" | "on" | "off";

export function SettingsAdmin() {
  const settings = useApi<Settings>("/api/admin/settings");
  if (settings.error) return <LoadError error={settings.error} onRetry={settings.reload} />;
  if (!settings.data) return <Loading />;
  return <SettingsForm key={JSON.stringify(settings.data)} current={settings.data} onSaved={() => void settings.reload()} />;
}

function SettingsForm({ current, onSaved }: { current: Settings; onSaved: () => void }) {
  const groups = useApi<{ data: { name: string }[] }>("/api/admin/groups");
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: {
      signupEnabled: current.signupEnabled,
      verify: (current.verifyEmailSource === "mail" ? "default" : current.verifyEmail ? "on" : "off") as VerifyChoice,
      userGroups: current.userGroups,
      priceModifierFields: current.priceModifierFields,
    },
    submit: (values) =>
      api("/api/admin/settings", {
        body: {
          signupEnabled: values.signupEnabled,
          verifyEmail: values.verify === "default" ? null : values.verify === "on",
          userGroups: values.userGroups,
          priceModifierFields: values.priceModifierFields,
        },
      }),
    onSuccess: () => {
      notifications.show({ color: "teal", title: "Settings saved", message: "Every instance uses them from now on." });
      onSaved();
    },
  });
  const verify = form.getValues().verify;

  return (
    <>
      <PageHeader
        title="Settings"
        description="How people get an account, and what they may choose for their keys. Stored in the database: every instance applies a change at once."
      />
      <Stack gap="lg" maw={760}>
        <form onSubmit={onSubmit} noValidate aria-label="Settings">
          <Stack gap="lg">
            <FormError message={formError} />
            <Card withBorder radius="md" padding="lg">
              <Stack gap="md">
                <Title order={2} fz="lg">
                  Sign-up
                </Title>
                <Switch
                  label="People may create their own account"
                  description={
                    current.signupForcedOffByEnvironment
                      ? "GATEWAY_SIGNUP=off in the environment turns sign-up off whatever this says."
                      : "Off: only operators create accounts (Users page)."
                  }
                  {...form.getInputProps("signupEnabled", { type: "checkbox" })}
                  disabled={current.signupForcedOffByEnvironment}
                />
                <Stack gap={6}>
                  <Text size="sm" fw={500} id="verify-label">
                    New accounts confirm their email first
                  </Text>
                  <SegmentedControl
                    aria-labelledby="verify-label"
                    value={verify}
                    onChange={(value) => form.setFieldValue("verify", value as VerifyChoice)}
                    data={[
                      { value: "default", label: `Automatic (${current.mailConfigured ? "on" : "off"})` },
                      { value: "on", label: "On" },
                      { value: "off", label: "Off" },
                    ]}
                  />
                  <Text size="xs" c="dimmed">
                    Automatic means on exactly when the gateway can send mail (SMTP_URL is {current.mailConfigured ? "set" : "not set"}).
                    While it is on, a new account gets a link by email and cannot sign in before opening it. Accounts you create on the
                    Users page count as confirmed.
                  </Text>
                  {verify === "on" && !current.mailConfigured ? (
                    <Alert color="orange" variant="light" icon={<IconInfoCircle size={18} />}>
                      SMTP_URL is not set: confirmation links only reach the Email outbox page, so new users cannot confirm on their own.
                    </Alert>
                  ) : null}
                </Stack>
              </Stack>
            </Card>
            <Card withBorder radius="md" padding="lg">
              <Stack gap="md">
                <Title order={2} fz="lg">
                  Groups users may choose
                </Title>
                <TagsInput
                  label="Groups"
                  description="The groups a user may put their own keys in. Operators may use every group."
                  data={(groups.data?.data ?? []).map((group) => group.name)}
                  {...form.getInputProps("userGroups")}
                  name="userGroups"
                />
              </Stack>
            </Card>
            <Card withBorder radius="md" padding="lg">
              <Stack gap="md">
                <Title order={2} fz="lg">
                  Price modifiers
                </Title>
                <Text size="sm" c="dimmed">
                  Request fields that make the vendor bill more for the same tokens. Built in:{" "}
                  {current.builtInPriceModifierFields.join(", ")}. A field named here is refused, whatever its value (but null), unless the
                  model&apos;s price sets its multiplier (Groups &amp; prices › Prices); other fields the gateway does not know are passed
                  on as sent.
                </Text>
                <TagsInput
                  label="Further fields"
                  description="Body field names such as reasoning_mode, or anthropic-beta:<beta> for a beta header value. Press Enter after each."
                  {...form.getInputProps("priceModifierFields")}
                  clearable
                  name="priceModifierFields"
                />
              </Stack>
            </Card>
            <Group justify="flex-end">
              <Button type="submit" loading={submitting}>
                Save settings
              </Button>
            </Group>
          </Stack>
        </form>
        <ModerationCard />
      </Stack>
    </>
  );
}
