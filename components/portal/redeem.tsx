"use client";
// Redeem a code: POST /api/user/topup {key} → {quota, balance}; shows what was added and the new balance, and the
// account's earlier top-ups.
import { useState } from "react";
import { Alert, Button, Card, Grid, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { IconCircleCheck, IconGift, IconTicket } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import { dateTime, usd } from "@/lib/portal/format";
import type { Self, UsagePage } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

export function RedeemPage() {
  const self = useApi<Self>("/api/user/self");
  const history = useApi<UsagePage>("/api/user/usage?kind=topup&limit=10");
  const [added, setAdded] = useState<{ quota: number; balance: number } | null>(null);
  const { form, onSubmit, formError, submitting } = useApiForm({
    initialValues: { key: "" },
    validate: { key: (value) => (value.trim() ? null : "Enter the code you received") },
    submit: (values) => {
      setAdded(null);
      return api<{ quota: number; balance: number }>("/api/user/topup", { body: { key: values.key.trim() } });
    },
    onSuccess: (result, _values, redeemForm) => {
      setAdded(result);
      redeemForm.reset();
      void self.reload();
      void history.reload();
    },
  });

  return (
    <>
      <PageHeader
        title="Redeem a code"
        description="A redeem code adds its value to your balance once. Codes look like GW-XXXXX-XXXXX-XXXXX-XXXXX."
      />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Card withBorder radius="lg" padding="lg">
            <form onSubmit={onSubmit} noValidate aria-label="Redeem a code">
              <Stack gap="md">
                <FormError message={formError} />
                {added ? (
                  <Alert
                    color="teal"
                    variant="light"
                    icon={<IconCircleCheck size={18} />}
                    title={`Added ${usd(added.quota)}`}
                    role="status"
                    data-testid="redeem-result"
                  >
                    Your balance is now <b>{usd(added.balance)}</b>.
                  </Alert>
                ) : null}
                <TextInput
                  label="Redeem code"
                  placeholder="GW-XXXXX-XXXXX-XXXXX-XXXXX"
                  leftSection={<IconTicket size={16} />}
                  {...form.getInputProps("key")}
                  autoComplete="off"
                  spellCheck={false}
                  autoFocus
                  size="md"
                  styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
                  name="code"
                />
                <Group justify="flex-end">
                  <Button type="submit" loading={submitting} leftSection={<IconGift size={16} />}>
                    Redeem
                  </Button>
                </Group>
              </Stack>
            </form>
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Card withBorder radius="lg" padding="lg" h="100%">
            <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
              Current balance
            </Text>
            <Text fz={34} fw={700} data-testid="redeem-balance">
              {/* The topup answer carries the new balance; the profile catches up a moment later. */}
              {added && (!self.data || self.loading) ? usd(added.balance) : self.data ? usd(self.data.balance) : "…"}
            </Text>
            <Text size="sm" c="dimmed" mt="xs">
              Every request is paid from this balance. Keys may have their own, lower limit.
            </Text>
          </Card>
        </Grid.Col>
      </Grid>

      <Card withBorder radius="lg" padding="lg" mt="md">
        <Title order={2} fz="lg" mb="sm">
          Earlier top-ups
        </Title>
        {history.error ? <LoadError error={history.error} onRetry={history.reload} /> : null}
        {history.data && history.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No codes redeemed yet.
          </Text>
        ) : history.data ? (
          <DataTable minWidth={420} verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Date</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th ta="right">Added</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {history.data.data.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td>{dateTime(row.createdAt)}</Table.Td>
                  <Table.Td>Redeem code</Table.Td>
                  <Table.Td ta="right" c="teal" fw={500}>
                    +{usd(-row.cost)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        ) : null}
      </Card>
    </>
  );
}
