"use client";
// Operator: the content policy's prompt filter on the Settings page (GET/POST /api/admin/moderation). Requests with
// moderation "low" are checked against the low list only; the default ("auto") against both lists
// (lib/moderation/policy.ts). The form starts from the stored terms and starts again from them whenever they change.
import { useState } from "react";
import { Button, Card, Group, Stack, Text, Textarea, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api, useApi } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { dateTime } from "@/lib/portal/format";
import { FormError, LoadError, Loading } from "@/components/feedback";

type Moderation = { auto: string[]; low: string[]; customised: boolean; updatedAt: string | null };

const lines = (text: string) => [
  ...new Set(
    text
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  ),
];

export function ModerationCard() {
  const moderation = useApi<Moderation>("/api/admin/moderation");
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        <Title order={2} fz="lg">
          Content policy
        </Title>
        <Text size="sm" c="dimmed">
          Image prompts containing one of these terms are refused before anything is billed. One term per line.
          {moderation.data
            ? ` ${moderation.data.customised ? `Edited ${dateTime(moderation.data.updatedAt)}.` : "These are the shipped terms."}`
            : ""}
        </Text>
        {moderation.error ? <LoadError error={moderation.error} onRetry={moderation.reload} /> : null}
        {!moderation.data ? (
          <Loading />
        ) : (
          <TermsForm key={JSON.stringify(moderation.data)} current={moderation.data} onSaved={() => void moderation.reload()} />
        )}
      </Stack>
    </Card>
  );
}

function TermsForm({ current, onSaved }: { current: Moderation; onSaved: () => void }) {
  const [restoring, setRestoring] = useState(false);
  const { form, onSubmit, formError, setFormError, submitting } = useApiForm({
    initialValues: { auto: current.auto.join("\n"), low: current.low.join("\n") },
    submit: (values) => api("/api/admin/moderation", { body: { auto: lines(values.auto), low: lines(values.low) } }),
    onSuccess: () => {
      notifications.show({ color: "teal", title: "Moderation terms saved", message: "Every instance applies them at once." });
      onSaved();
    },
  });

  /** Not a submit of the form: it throws the lists away for the shipped ones. */
  async function restore() {
    setRestoring(true);
    setFormError(null);
    try {
      await api("/api/admin/moderation", { body: { reset: true } });
      notifications.show({ color: "teal", title: "Shipped terms restored", message: "Every instance applies them at once." });
      onSaved();
    } catch (error) {
      setFormError((error as Error).message);
    } finally {
      setRestoring(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Content policy terms">
      <Stack gap="md">
        <FormError message={formError} />
        <Textarea
          label="Checked for every request (moderation low and auto)"
          autosize
          minRows={3}
          maxRows={10}
          {...form.getInputProps("low")}
          name="low"
        />
        <Textarea
          label="Checked as well for the default moderation (auto)"
          autosize
          minRows={3}
          maxRows={10}
          {...form.getInputProps("auto")}
          name="auto"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={() => void restore()} loading={restoring}>
            Restore the shipped terms
          </Button>
          <Button type="submit" loading={submitting}>
            Save terms
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
