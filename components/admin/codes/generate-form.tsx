"use client";
// Generate a batch of redeem codes (POST /api/admin/redeem-codes): value, how many, expiry and batch name.
import { Button, Card, Group, NumberInput, SimpleGrid, Stack, TextInput, Title } from "@mantine/core";
import { IconTicket } from "@tabler/icons-react";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { usdToMicros } from "@/lib/portal/format";
import type { CreatedCodes } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

export function GenerateForm({ onCreated }: { onCreated: (created: CreatedCodes) => void }) {
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { quota: 10 as number | string, count: 10 as number | string, expiresAt: "", batch: "" },
    validate: {
      quota: (value) => (typeof value !== "number" || value <= 0 ? "Enter a value above $0" : null),
      count: (value) => (typeof value !== "number" || value < 1 || value > 1000 ? "Between 1 and 1,000 codes" : null),
    },
    submit: (values) =>
      api<CreatedCodes>("/api/admin/redeem-codes", {
        body: {
          quota: usdToMicros(Number(values.quota)),
          count: Number(values.count),
          ...(values.expiresAt ? { expiresAt: new Date(`${values.expiresAt}T23:59:59`).toISOString() } : {}),
          ...(values.batch.trim() ? { batch: values.batch.trim() } : {}),
        },
      }),
    onSuccess: (created, _values, generateForm) => {
      generateForm.setFieldValue("batch", "");
      onCreated(created);
    },
  });

  return (
    <Card withBorder radius="lg" padding="lg">
      <Title order={2} fz="lg" mb="md">
        Generate a batch
      </Title>
      <form onSubmit={onSubmit} noValidate aria-label="Generate redeem codes">
        <Stack gap="md">
          <FormError message={formError} />
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
            <NumberInput label="Value of each code" prefix="$" min={0.01} decimalScale={2} {...form.getInputProps("quota")} name="quota" />
            <NumberInput label="Number of codes" min={1} max={1000} {...form.getInputProps("count")} name="count" />
            <TextInput label="Expires (optional)" type="date" {...form.getInputProps("expiresAt")} name="expiresAt" />
            <TextInput
              label="Batch name (optional)"
              placeholder="e.g. launch-promo"
              {...form.getInputProps("batch")}
              maxLength={100}
              name="batch"
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button type="submit" loading={submitting} leftSection={<IconTicket size={16} />}>
              Generate codes
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
