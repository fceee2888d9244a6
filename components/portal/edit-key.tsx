"use client";
// Edit one of your keys (PATCH /api/user/keys/{id}): its name, its expiry, its spending cap and the models it may
// call (any of its group's, or only some). Pausing and resuming is a button on the row (keys.tsx). A cap or expiry
// the operator set may be tightened here, not loosened (docs/api.md, "Keys: the owner and the operator").
import { useState, type FormEvent } from "react";
import { Button, Checkbox, Group, Modal, MultiSelect, NumberInput, Stack, Text, TextInput } from "@mantine/core";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { dateOnly, usdToMicros } from "@/lib/portal/format";
import type { ApiKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

/** "YYYY-MM-DD" of a stored expiry, as the date input shows it. */
const dayOf = (value: string | null) => (value ? value.slice(0, 10) : "");

function Form({ apiKey, onSaved, onClose }: { apiKey: ApiKey; onSaved: () => void; onClose: () => void }) {
  const initial = {
    expires: dayOf(apiKey.expiresAt),
    unlimited: apiKey.unlimited,
    cap: apiKey.unlimited ? "" : apiKey.quotaRemaining / 1_000_000,
    models: apiKey.models ?? [],
  };
  const [name, setName] = useState(apiKey.name);
  const [expires, setExpires] = useState(initial.expires);
  const [unlimited, setUnlimited] = useState(initial.unlimited);
  const [cap, setCap] = useState<number | string>(initial.cap);
  const [models, setModels] = useState<string[]>(initial.models);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);
  // The models of the key's group (GET /api/user/models lists each model with the groups that include it).
  const catalog = useApi<{ data: { id: string; groups: string[] }[] }>("/api/user/models");
  const choices = (catalog.data?.data ?? []).filter((model) => model.groups.includes(apiKey.group)).map((model) => model.id);
  // Limits the operator set may be tightened here, never loosened (lib/keys/controls.ts): the controls say so and
  // do not offer what the server would refuse.
  const operatorCeiling = dayOf(apiKey.operatorExpiresAt);
  const capLocked = apiKey.quotaByOperator;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    // Only what was changed is sent: the stored expiry keeps its time of day, and a cap left alone is not re-sent
    // (requests may have spent some of it since the dialog opened).
    const capChanged = unlimited !== initial.unlimited || (!unlimited && cap !== initial.cap);
    try {
      await api(`/api/user/keys/${encodeURIComponent(apiKey.id)}`, {
        method: "PATCH",
        body: {
          name: name.trim(),
          ...(expires !== initial.expires ? { expiresAt: expires ? expires : null } : {}),
          ...(capChanged
            ? { unlimited, ...(unlimited ? {} : { quota: usdToMicros(typeof cap === "number" ? cap : Number(cap) || 0) }) }
            : {}),
          ...(models.join("\n") !== initial.models.join("\n") ? { models } : {}),
        },
      });
      onSaved();
    } catch (error) {
      setErrors(formErrors(error, ["name", "expiresAt", "quota", "models"], { unlimited: "quota" }));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Edit key">
      <Stack gap="md">
        <FormError message={errors.form} />
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={errors.fields.name}
          name="name"
          data-autofocus
        />
        <TextInput
          label="Expires"
          description={
            operatorCeiling
              ? `The operator set it to expire on ${dateOnly(apiKey.operatorExpiresAt)}: you may choose an earlier date, not a later one.`
              : "Empty: never."
          }
          type="date"
          value={expires}
          max={operatorCeiling || undefined}
          required={Boolean(operatorCeiling)}
          onChange={(event) => setExpires(event.currentTarget.value)}
          error={errors.fields.expiresAt}
          name="expiresAt"
        />
        <Checkbox
          label="No spending cap (your balance still bounds it)"
          description={capLocked ? "The operator set this key's spending limit: you may lower it, not raise or remove it." : undefined}
          checked={unlimited}
          // Under the operator's limit the cap can be put on, never taken off.
          disabled={capLocked && !initial.unlimited}
          onChange={(event) => setUnlimited(event.currentTarget.checked)}
          name="unlimited"
        />
        {!unlimited ? (
          <NumberInput
            label="Spending cap left (USD)"
            min={0}
            max={capLocked && !initial.unlimited ? Number(initial.cap) : undefined}
            decimalScale={6}
            prefix="$"
            value={cap}
            onChange={setCap}
            error={errors.fields.quota}
            name="quota"
          />
        ) : null}
        <MultiSelect
          label="Models"
          description={`Empty: every model of the group '${apiKey.group}'. Choose some to keep this key to them.`}
          placeholder={models.length ? undefined : "All of the group's models"}
          data={[...new Set([...choices, ...models])]}
          value={models}
          onChange={setModels}
          searchable
          clearable
          error={errors.fields.models}
          name="models"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving}>
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
