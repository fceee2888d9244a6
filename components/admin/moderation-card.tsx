"use client";
// Operator: the content policy's prompt filter on the Settings page (GET/POST /api/admin/moderation). Requests with
// moderation "low" are checked against the low list only; the default ("auto") against both lists
// (lib/moderation/policy.ts).
import { useEffect, useState } from "react";
import { Button, Card, Group, Stack, Text, Textarea, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
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
  const [auto, setAuto] = useState("");
  const [low, setLow] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState<"save" | "reset" | null>(null);

  useEffect(() => {
    if (!moderation.data) return;
    setAuto(moderation.data.auto.join("\n"));
    setLow(moderation.data.low.join("\n"));
  }, [moderation.data]);

  async function save(reset: boolean) {
    setSaving(reset ? "reset" : "save");
    setErrors(NO_ERRORS);
    try {
      await api("/api/admin/moderation", { body: reset ? { reset: true } : { auto: lines(auto), low: lines(low) } });
      notifications.show({
        color: "teal",
        title: reset ? "Shipped terms restored" : "Moderation terms saved",
        message: "Every instance applies them at once.",
      });
      await moderation.reload();
    } catch (error) {
      setErrors(formErrors(error, ["auto", "low"]));
    } finally {
      setSaving(null);
    }
  }

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
          <>
            <FormError message={errors.form} />
            <Textarea
              label="Checked for every request (moderation low and auto)"
              autosize
              minRows={3}
              maxRows={10}
              value={low}
              onChange={(event) => setLow(event.currentTarget.value)}
              error={errors.fields.low}
              name="low"
            />
            <Textarea
              label="Checked as well for the default moderation (auto)"
              autosize
              minRows={3}
              maxRows={10}
              value={auto}
              onChange={(event) => setAuto(event.currentTarget.value)}
              error={errors.fields.auto}
              name="auto"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => void save(true)} loading={saving === "reset"}>
                Restore the shipped terms
              </Button>
              <Button onClick={() => void save(false)} loading={saving === "save"}>
                Save terms
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </Card>
  );
}
