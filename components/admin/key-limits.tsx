"use client";
// Operator: a key's limits from the user drawer (PATCH /api/admin/keys/{id}): its budget per calendar period in
// UTC, the addresses it may be used from (one per line) and its requests per minute, side by side so token limits
// can sit beside them. What the operator sets here the owner may tighten, never loosen (docs/api.md, "Key budgets
// and allowed addresses").
import { Button, Group, Modal, NumberInput, Select, SimpleGrid, Stack, Text, Textarea } from "@mantine/core";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { usdToMicros } from "@/lib/portal/format";
import type { ApiKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { ipLines, PERIOD_CHOICES } from "@/components/portal/key-limits-fields";

function Form({ apiKey, onSaved, onClose }: { apiKey: ApiKey; onSaved: () => void; onClose: () => void }) {
  const initial = {
    budget: (apiKey.budget === null ? "" : apiKey.budget / 1_000_000) as number | string,
    budgetPeriod: apiKey.budgetPeriod as string,
    allowedIps: apiKey.operatorAllowedIps.join("\n"),
    rateLimitPerMinute: (apiKey.rateLimitPerMinute ?? "") as number | string,
  };
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: initial,
    submit: ({ budget, budgetPeriod, allowedIps, rateLimitPerMinute }) =>
      api(`/api/admin/keys/${encodeURIComponent(apiKey.id)}`, {
        method: "PATCH",
        body: {
          ...(budget !== initial.budget || budgetPeriod !== initial.budgetPeriod
            ? { budget: budget === "" ? null : usdToMicros(Number(budget)), budgetPeriod }
            : {}),
          ...(allowedIps !== initial.allowedIps ? { allowedIps: ipLines(allowedIps) } : {}),
          ...(rateLimitPerMinute !== initial.rateLimitPerMinute
            ? { rateLimitPerMinute: rateLimitPerMinute === "" ? null : Number(rateLimitPerMinute) }
            : {}),
        },
      }),
    onSuccess: () => onSaved(),
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Key limits">
      <Stack gap="md">
        <FormError message={formError} />
        <Group grow align="flex-start" gap="sm">
          <NumberInput
            label="Budget (USD)"
            description="Empty: no budget. Resets each period (UTC)."
            min={0.01}
            decimalScale={2}
            prefix="$"
            {...form.getInputProps("budget")}
            name="budget"
          />
          <Select
            label="Budget period"
            data={PERIOD_CHOICES}
            {...form.getInputProps("budgetPeriod")}
            allowDeselect={false}
            name="budgetPeriod"
          />
        </Group>
        <Textarea
          label="Allowed addresses"
          description="One IPv4 or IPv6 address or CIDR per line. Empty: any address. The owner may only narrow it."
          autosize
          minRows={2}
          maxRows={6}
          {...form.getInputProps("allowedIps")}
          name="allowedIps"
        />
        <SimpleGrid cols={2} spacing="sm">
          <NumberInput
            label="Requests per minute"
            description="Empty: the group's limit."
            min={1}
            allowDecimal={false}
            {...form.getInputProps("rateLimitPerMinute")}
            name="rateLimitPerMinute"
          />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={submitting}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function KeyLimitsModal({ apiKey, onClose, onSaved }: { apiKey: ApiKey | null; onClose: () => void; onSaved: () => void }) {
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title={<Text fw={600}>Limits of key {apiKey?.prefix}…</Text>} centered>
      {apiKey ? <Form apiKey={apiKey} onSaved={onSaved} onClose={onClose} /> : null}
    </Modal>
  );
}
