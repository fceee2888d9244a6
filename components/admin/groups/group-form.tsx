"use client";
// Create or edit a group (POST /api/admin/groups, which creates or replaces by name): its models and rate limit.
import { Button, Group, NumberInput, Stack, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { AdminGroup } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { ModelsPicker } from "@/components/admin/model-picker";

export function GroupForm({ group, onDone }: { group: AdminGroup | null; onDone: () => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: {
      name: group?.name ?? "",
      models: group?.models ?? [],
      rateLimitPerMinute: (group?.rateLimitPerMinute ?? "") as number | string,
    },
    submit: (values) =>
      api("/api/admin/groups", {
        body: {
          name: values.name.trim(),
          models: values.models,
          rateLimitPerMinute:
            typeof values.rateLimitPerMinute === "number" && values.rateLimitPerMinute > 0 ? values.rateLimitPerMinute : null,
        },
      }),
    onSuccess: (_result, values) => {
      notifications.show({ color: "teal", title: group ? "Group saved" : "Group created", message: values.name });
      onDone();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label={group ? "Edit group" : "New group"}>
      <Stack gap="md">
        <FormError message={formError} />
        <TextInput
          label="Name"
          description="Letters, digits, '.', '_' and '-'."
          {...form.getInputProps("name")}
          disabled={Boolean(group)}
          data-autofocus
          name="name"
        />
        <ModelsPicker
          label="Models"
          description="The models keys in this group may call: the catalog's and every channel's, or type a name."
          {...form.getInputProps("models")}
          clearable
          name="models"
        />
        <NumberInput
          label="Rate limit"
          description="Requests per minute per key; empty for none."
          min={1}
          {...form.getInputProps("rateLimitPerMinute")}
          name="rateLimitPerMinute"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            Save group
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
