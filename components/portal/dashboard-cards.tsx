"use client";
// The Dashboard's smaller cards: a figure with its icon (StatCard), the first steps for a new account (GetStarted)
// and the latest ledger rows (RecentActivity).
import Link from "next/link";
import { Anchor, Button, Card, Group, Paper, Skeleton, Stack, Table, Text, ThemeIcon, Title } from "@mantine/core";
import { IconCircleCheck, IconCircleDashed } from "@tabler/icons-react";
import { dateTime } from "@/lib/portal/format";
import type { UsagePage } from "@/lib/portal/types";
import { LedgerAmount, StatusBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

export function StatCard({
  label,
  value,
  exact,
  hint,
  icon,
  loading,
  testId,
}: {
  label: string;
  value: string;
  /** The exact amount, shown on hover when `value` is rounded. */
  exact?: string;
  hint?: string;
  icon: React.ReactNode;
  loading: boolean;
  testId?: string;
}) {
  return (
    <Card withBorder padding="lg" radius="lg">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} miw={0}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {label}
          </Text>
          {loading ? (
            <Skeleton h={30} w={120} />
          ) : (
            <Text fz={{ base: 24, xl: 28 }} fw={700} lh={1.2} data-testid={testId} title={exact} style={{ overflowWrap: "anywhere" }}>
              {value}
            </Text>
          )}
          {hint ? (
            <Text size="xs" c="dimmed">
              {hint}
            </Text>
          ) : null}
        </Stack>
        <ThemeIcon size={42} radius="md" variant="light">
          {icon}
        </ThemeIcon>
      </Group>
    </Card>
  );
}

export type Step = { done: boolean; label: string; href: string; action: string };

export function GetStarted({ steps }: { steps: Step[] }) {
  return (
    <Paper withBorder radius="lg" p="lg" mb="lg">
      <Title order={2} fz="lg" mb="sm">
        Get started
      </Title>
      <Stack gap="xs">
        {steps.map((step) => (
          <Group key={step.label} justify="space-between" wrap="wrap" gap="xs">
            <Group gap="sm" wrap="nowrap">
              {step.done ? (
                <IconCircleCheck size={20} color="var(--mantine-color-teal-6)" />
              ) : (
                <IconCircleDashed size={20} color="var(--mantine-color-gray-5)" />
              )}
              <Text size="sm" td={step.done ? "line-through" : undefined} c={step.done ? "dimmed" : undefined}>
                {step.label}
              </Text>
            </Group>
            {!step.done ? (
              <Button size="xs" variant="light" component={Link} href={step.href}>
                {step.action}
              </Button>
            ) : null}
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

/** The latest ledger rows (`page` null while loading). */
export function RecentActivity({ page }: { page: UsagePage | null }) {
  return (
    <Card withBorder radius="lg" padding="lg">
      <Group justify="space-between" mb="sm">
        <Title order={2} fz="lg">
          Recent activity
        </Title>
        <Anchor component={Link} href="/usage" size="sm">
          All usage
        </Anchor>
      </Group>
      {!page ? (
        <Skeleton h={120} />
      ) : page.data.length === 0 ? (
        <Text size="sm" c="dimmed" py="md">
          Nothing yet. Requests, top-ups and adjustments show up here as they happen.
        </Text>
      ) : (
        <DataTable minWidth={560} verticalSpacing="sm" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th ta="right">Amount</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {page.data.map((row) => (
              <Table.Tr key={row.id}>
                <Table.Td>{dateTime(row.createdAt)}</Table.Td>
                <Table.Td>
                  {row.kind === "request" ? (
                    <Text size="sm">
                      <Text span ff="monospace" size="sm">
                        {row.model}
                      </Text>{" "}
                      <Text span c="dimmed" size="xs">
                        {row.endpoint}
                      </Text>
                    </Text>
                  ) : (
                    <Text size="sm">{row.kind === "topup" ? "Redeemed a code" : "Balance adjustment"}</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={row.status} />
                </Table.Td>
                <Table.Td ta="right" c={row.cost < 0 ? "teal" : undefined} fw={500}>
                  <LedgerAmount cost={row.cost} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </DataTable>
      )}
    </Card>
  );
}
