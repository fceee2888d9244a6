"use client";
// Edit one of your keys (PATCH /api/user/keys/{id}): its name, its expiry, its spending cap and the models it may
// call (any of its group's, or only some). Pausing and resuming
// is a button on the row (keys.tsx).
import { useState, type FormEvent } from "react";
import { Button, Checkbox, Group, Modal, MultiSelect, NumberInput, Stack, Text, TextInput } from "@mantine/core";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { usdToMicros } from "@/lib/portal/format";
import type { ApiKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

function Form({ apiKey, onSaved, onClose }: { apiKey: ApiKey; onSaved: () => void; onClose: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const [expires, setExpires] = useState(apiKey.expiresAt ? apiKey.expiresAt.slice(0, 10) : "");
  const [unlimited, setUnlimited] = useState(apiKey.unlimited);
  const [cap, setCap] = useState<number | string>(apiKey.unlimited ? "" : apiKey.quotaRemaining / 1_000_000);
  const [models, setModels] = useState<string[]>(apiKey.models ?? []);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);
  // The models of the key's group (GET /api/user/models lists each model with the groups that include it).
  const catalog = useApi<{ data: { id: string; groups: string[] }[] }>("/api/user/models");
  const choices = (catalog.data?.data ?? []).filter((model) => model.groups.includes(apiKey.group)).map((model) => model.id);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors(NO_ERRORS);
    try {
      await api(`/api/user/keys/${encodeURIComponent(apiKey.id)}`, {
        method: "PATCH",
        body: {
          name: name.trim(),
          expiresAt: expires ? expires : null,
          unlimited,
          models,
          ...(unlimited ? {} : { quota: usdToMicros(typeof cap === "number" ? cap : Number(cap) || 0) }),
        },
      });
      onSaved();
    } catch (error) {
      setErrors(formErrors(error, ["name", "expiresAt", "quota", "models"]));
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
          description="Empty: never."
          type="date"
          value={expires}
          onChange={(event) => setExpires(event.currentTarget.value)}
          error={errors.fields.expiresAt}
          name="expiresAt"
        />
        <Checkbox
          label="No spending cap (your balance still bounds it)"
          checked={unlimited}
          onChange={(event) => setUnlimited(event.currentTarget.checked)}
        />
        {!unlimited ? (
          <NumberInput
            label="Spending cap left (USD)"
            min={0}
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
