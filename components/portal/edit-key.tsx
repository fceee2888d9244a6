"use client";
// Edit one of your keys (PATCH /api/user/keys/{id}): its name, its expiry, its spending cap and the models it may
// call (any of its group's, or only some). Pausing and resuming is a button on the row (keys.tsx). A cap or expiry
// the operator set may be tightened here, not loosened (docs/api.md, "Keys: the owner and the operator").
import { Button, Checkbox, Group, Modal, MultiSelect, NumberInput, Stack, Text, TextInput } from "@mantine/core";
import { api, useApi } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { dateOnly, usdToMicros } from "@/lib/portal/format";
import type { ApiKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";
import { ipLines, KeyLimitsFields } from "./key-limits-fields";

/** "YYYY-MM-DD" of a stored expiry, as the date input shows it. */
const dayOf = (value: string | null) => (value ? value.slice(0, 10) : "");

function Form({ apiKey, onSaved, onClose }: { apiKey: ApiKey; onSaved: () => void; onClose: () => void }) {
  const initial = {
    expires: dayOf(apiKey.expiresAt),
    unlimited: apiKey.unlimited,
    cap: (apiKey.unlimited ? "" : apiKey.quotaRemaining / 1_000_000) as number | string,
    models: apiKey.models ?? [],
    budget: (apiKey.budget === null ? "" : apiKey.budget / 1_000_000) as number | string,
    budgetPeriod: apiKey.budgetPeriod as string,
    allowedIps: apiKey.allowedIps.join("\n"),
  };
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: {
      name: apiKey.name,
      expiresAt: initial.expires,
      unlimited: initial.unlimited,
      quota: initial.cap,
      models: initial.models,
      budget: initial.budget,
      budgetPeriod: initial.budgetPeriod,
      allowedIps: initial.allowedIps,
    },
    // Only what was changed is sent: the stored expiry keeps its time of day, and a cap left alone is not re-sent
    // (requests may have spent some of it since the dialog opened).
    submit: ({ name, expiresAt, unlimited, quota, models, budget, budgetPeriod, allowedIps }) => {
      const budgetChanged = budget !== initial.budget || budgetPeriod !== initial.budgetPeriod;
      const capChanged = unlimited !== initial.unlimited || (!unlimited && quota !== initial.cap);
      return api(`/api/user/keys/${encodeURIComponent(apiKey.id)}`, {
        method: "PATCH",
        body: {
          name: name.trim(),
          ...(expiresAt !== initial.expires ? { expiresAt: expiresAt ? expiresAt : null } : {}),
          ...(capChanged
            ? { unlimited, ...(unlimited ? {} : { quota: usdToMicros(typeof quota === "number" ? quota : Number(quota) || 0) }) }
            : {}),
          ...(models.join("\n") !== initial.models.join("\n") ? { models } : {}),
          ...(budgetChanged
            ? {
                budget: budget === "" ? null : usdToMicros(Number(budget)),
                ...(budgetPeriod !== initial.budgetPeriod ? { budgetPeriod } : {}),
              }
            : {}),
          ...(allowedIps !== initial.allowedIps ? { allowedIps: ipLines(allowedIps) } : {}),
        },
      });
    },
    aliases: { unlimited: "quota" },
    onSuccess: () => onSaved(),
  });
  const { unlimited, models } = form.values;
  // The models of the key's group (GET /api/user/models lists each model with the groups that include it).
  const catalog = useApi<{ data: { id: string; groups: string[] }[] }>("/api/user/models");
  const choices = (catalog.data?.data ?? []).filter((model) => model.groups.includes(apiKey.group)).map((model) => model.id);
  // Limits the operator set may be tightened here, never loosened (lib/keys/controls.ts): the controls say so and
  // do not offer what the server would refuse.
  const operatorCeiling = dayOf(apiKey.operatorExpiresAt);
  const capLocked = apiKey.quotaByOperator;

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Edit key">
      <Stack gap="md">
        <FormError message={formError} />
        <TextInput label="Name" {...form.getInputProps("name")} name="name" data-autofocus />
        <TextInput
          label="Expires"
          description={
            operatorCeiling
              ? `The operator set it to expire on ${dateOnly(apiKey.operatorExpiresAt)}: you may choose an earlier date, not a later one.`
              : "Empty: never."
          }
          type="date"
          {...form.getInputProps("expiresAt")}
          max={operatorCeiling || undefined}
          required={Boolean(operatorCeiling)}
          name="expiresAt"
        />
        <Checkbox
          label="No spending cap (your balance still bounds it)"
          description={capLocked ? "The operator set this key's spending limit: you may lower it, not raise or remove it." : undefined}
          {...form.getInputProps("unlimited", { type: "checkbox" })}
          // Under the operator's limit the cap can be put on, never taken off.
          disabled={capLocked && !initial.unlimited}
          name="unlimited"
        />
        {!unlimited ? (
          <NumberInput
            label="Spending cap left (USD)"
            min={0}
            max={capLocked && !initial.unlimited ? Number(initial.cap) : undefined}
            decimalScale={6}
            prefix="$"
            {...form.getInputProps("quota")}
            name="quota"
          />
        ) : null}
        <KeyLimitsFields
          form={form}
          operator={{
            budget: apiKey.budgetByOperator ? apiKey.budget : null,
            budgetPeriod: apiKey.budgetPeriod,
            allowedIps: apiKey.operatorAllowedIps,
          }}
          rateLimitPerMinute={apiKey.rateLimitPerMinute}
        />
        <MultiSelect
          label="Models"
          description={`Empty: every model of the group '${apiKey.group}'. Choose some to keep this key to them.`}
          placeholder={models.length ? undefined : "All of the group's models"}
          data={[...new Set([...choices, ...models])]}
          {...form.getInputProps("models")}
          searchable
          clearable
          name="models"
        />
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

export function EditKeyModal({ apiKey, onClose, onSaved }: { apiKey: ApiKey | null; onClose: () => void; onSaved: () => void }) {
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title={<Text fw={600}>Edit key {apiKey?.prefix}…</Text>} centered>
      {apiKey ? <Form apiKey={apiKey} onSaved={onSaved} onClose={onClose} /> : null}
    </Modal>
  );
}
