"use client";
// Adjust a user's balance (PATCH /api/admin/users/{id} {balanceDelta, note}): recorded in the ledger with the note.
import { Button, Group, NumberInput, Stack, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { usd, usdToMicros } from "@/lib/portal/format";
import type { AdminUser } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

export function AdjustForm({ user, onDone }: { user: AdminUser; onDone: () => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { balanceDelta: "" as number | string, note: "" },
    validate: {
      balanceDelta: (value) => (typeof value !== "number" || value === 0 ? "Enter an amount: positive adds, negative takes away" : null),
    },
    submit: (values) =>
      api<{ balance: number }>(`/api/admin/users/${encodeURIComponent(user.id)}`, {
        method: "PATCH",
        body: { balanceDelta: usdToMicros(Number(values.balanceDelta)), ...(values.note.trim() ? { note: values.note.trim() } : {}) },
      }),
    onSuccess: (result) => {
      notifications.show({ color: "teal", title: "Balance adjusted", message: `${user.email} now has ${usd(result.balance)}.` });
      onDone();
    },
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Adjust balance">
      <Stack gap="md">
        <Text size="sm">
          Current balance of <b>{user.email}</b>: {usd(user.balance)}
        </Text>
        <FormError message={formError} />
        <NumberInput
          label="Amount"
          description="Positive adds, negative subtracts. In US dollars."
          prefix="$"
          decimalScale={6}
          allowNegative
          {...form.getInputProps("balanceDelta")}
          data-autofocus
          name="amount"
        />
        <TextInput
          label="Note"
          description="Optional, kept with the ledger row."
          maxLength={500}
          {...form.getInputProps("note")}
          name="note"
        />
        <Group justify="flex-end">
          <Button type="submit" loading={submitting}>
            Apply
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
