"use client";
// Create an API key (POST /api/user/keys): its name, group, an optional spending limit and an expiry.
import { Button, Group, Modal, NumberInput, Select, Stack, Switch, Text, TextInput } from "@mantine/core";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { usdToMicros } from "@/lib/portal/format";
import type { CreatedKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { ipLines, KeyLimitsFields } from "./key-limits-fields";

const EXPIRY_PRESETS = [
  { value: "never", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 1 year" },
  { value: "custom", label: "On a date…" },
];

/** The expiry to send: null for never, the end of a chosen day (in the user's own time zone), or "invalid". */
function expiryFrom(preset: string, custom: string): string | null | "invalid" {
  if (preset === "never") return null;
  if (preset === "custom") {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(custom)) return "invalid";
    return new Date(`${custom}T23:59:59`).toISOString();
  }
  return new Date(Date.now() + Number(preset) * 86_400_000).toISOString();
}

type CreateValues = {
  name: string;
  group: string | null;
  unlimited: boolean;
  quota: number | string;
  preset: string;
  /** The chosen day when `preset` is "custom" (the server's `expiresAt` errors show here or on the preset). */
  expiresAt: string;
  budget: number | string;
  budgetPeriod: string;
  allowedIps: string;
};

export function CreateKeyModal({
  opened,
  onClose,
  groups,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  groups: string[];
  onCreated: (key: CreatedKey) => void;
}) {
  const { form, onSubmit, formError, submitting } = useApiForm<CreateValues, CreatedKey>({
    initialValues: {
      name: "",
      group: groups.includes("default") ? "default" : (groups[0] ?? null),
      unlimited: true,
      quota: 10,
      preset: "never",
      expiresAt: "",
      budget: "",
      budgetPeriod: "month",
      allowedIps: "",
    },
    validate: {
      group: (value) => (value ? null : "Choose a group"),
      quota: (value, values) =>
        !values.unlimited && (typeof value !== "number" || value <= 0)
          ? "Enter a spending limit above $0, or make the key unlimited"
          : null,
      expiresAt: (value, values) => (expiryFrom(values.preset, value) === "invalid" ? "Choose a date" : null),
    },
    submit: (values) => {
      const expiresAt = expiryFrom(values.preset, values.expiresAt);
      return api<CreatedKey>("/api/user/keys", {
        body: {
          name: values.name.trim(),
          group: values.group,
          unlimited: values.unlimited,
          ...(values.unlimited ? {} : { quota: usdToMicros(Number(values.quota)) }),
          ...(expiresAt ? { expiresAt } : {}),
          ...(values.budget !== "" ? { budget: usdToMicros(Number(values.budget)), budgetPeriod: values.budgetPeriod } : {}),
          ...(values.allowedIps.trim() ? { allowedIps: ipLines(values.allowedIps) } : {}),
        },
      });
    },
    aliases: { unlimited: "quota" },
    onSuccess: (created, _values, createForm) => {
      createForm.setValues({ name: "", preset: "never", budget: "", allowedIps: "" });
      onCreated(created);
    },
  });
  const { values, errors } = form;

  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Create an API key</Text>} centered size="md">
      <form onSubmit={onSubmit} noValidate aria-label="Create an API key">
        <Stack gap="md">
          <FormError message={formError} />
          <TextInput
            label="Name"
            description="To recognise the key later, e.g. the app that uses it."
            placeholder="My app"
            {...form.getInputProps("name")}
            maxLength={100}
            data-autofocus
            name="name"
          />
          <Select
            label="Group"
            description="Decides which models the key may call."
            data={groups}
            {...form.getInputProps("group")}
            allowDeselect={false}
            name="group"
          />
          <Switch
            label="No spending limit of its own"
            description="The key can spend up to your account balance."
            {...form.getInputProps("unlimited", { type: "checkbox" })}
          />
          {!values.unlimited ? (
            <NumberInput
              label="Spending limit"
              description="The most this key may spend, in US dollars."
              prefix="$"
              min={0.01}
              decimalScale={2}
              thousandSeparator=","
              {...form.getInputProps("quota")}
              name="quota"
            />
          ) : errors.quota ? (
            <Text c="red" size="sm">
              {errors.quota}
            </Text>
          ) : null}
          <Select
            label="Expires"
            data={EXPIRY_PRESETS}
            value={values.preset}
            onChange={(value) => form.setFieldValue("preset", value ?? "never")}
            allowDeselect={false}
            error={values.preset !== "custom" ? errors.expiresAt : undefined}
            name="expiry"
          />
          {values.preset === "custom" ? (
            <TextInput
              type="date"
              label="Expiry date"
              min={new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}
              {...form.getInputProps("expiresAt")}
              name="expiresAt"
            />
          ) : null}
          <KeyLimitsFields form={form} />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={submitting}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
