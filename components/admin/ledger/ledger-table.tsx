"use client";
// One page of the ledger: time, user and key, model or kind, channel (labelled when it is a simulator), tokens,
// cost, status, latency; and the buttons to the newer and older pages.
import { Button, Card, Code, Group, Table, Text } from "@mantine/core";
import { IconChevronLeft, IconChevronRight } from "@tabler/icons-react";
import { count, dateTime, latency } from "@/lib/portal/format";
import type { AdminUsageRow } from "@/lib/portal/types";
import { LedgerAmount, LedgerStatus, SimulatorBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

export function LedgerTable({
  list,
  offset,
  pageSize,
  onOffset,
  emails,
  simulators,
}: {
  list: AdminUsageRow[];
  offset: number;
  pageSize: number;
  onOffset: (offset: number) => void;
  emails: Map<string, string>;
  simulators: Set<string>;
}) {
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={960} verticalSpacing="xs" horizontalSpacing="sm" highlightOnHover striped data-testid="ledger-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>User</Table.Th>
            <Table.Th>Model / endpoint</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th ta="right">Tokens in / out</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((row) => (
            <Table.Tr key={row.id}>
              <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(row.createdAt)}</Table.Td>
              <Table.Td>
                <Text size="sm" truncate maw={180}>
                  {emails.get(row.userId) ?? row.userId}
                </Text>
                {row.keyPrefix ? <Code fz="xs">{row.keyPrefix}…</Code> : null}
              </Table.Td>
              <Table.Td>
                {row.kind === "request" ? (
                  <>
                    <Text size="sm" ff="monospace">
                      {row.model}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {row.endpoint}
                      {row.stream ? " · stream" : ""}
                    </Text>
                  </>
                ) : (
                  <Text size="sm">{row.kind === "topup" ? "Redeem code" : "Adjustment"}</Text>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Text size="sm" truncate maw={140}>
                    {row.channelName ?? "—"}
                  </Text>
                  {row.channelId && simulators.has(row.channelId) ? <SimulatorBadge size="xs" /> : null}
                </Group>
              </Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                <Text size="sm">
                  {count(row.textInputTokens)} / {count(row.textOutputTokens)}
                </Text>
                {row.imageInputTokens || row.imageOutputTokens ? (
                  <Text size="xs" c="dimmed">
                    image {count(row.imageInputTokens)} / {count(row.imageOutputTokens)}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td ta="right" fw={500} c={row.cost < 0 ? "teal" : undefined} style={{ whiteSpace: "nowrap" }}>
                <LedgerAmount cost={row.cost} />
              </Table.Td>
              <Table.Td>
                <LedgerStatus row={row} />
              </Table.Td>
              <Table.Td ta="right">{row.kind === "request" ? latency(row.latencyMs) : "—"}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
      <Group justify="space-between" p="md">
        <Text size="sm" c="dimmed">
          Rows {count(offset + 1)}–{count(offset + list.length)}
        </Text>
        <Group gap="xs">
          <Button
            size="xs"
            variant="default"
            leftSection={<IconChevronLeft size={14} />}
            disabled={offset === 0}
            onClick={() => onOffset(Math.max(0, offset - pageSize))}
          >
            Newer
          </Button>
          <Button
            size="xs"
            variant="default"
            rightSection={<IconChevronRight size={14} />}
            disabled={list.length < pageSize}
            onClick={() => onOffset(offset + pageSize)}
          >
            Older
          </Button>
        </Group>
      </Group>
    </Card>
  );
}
