"use client";
// One page of the ledger, one line per row: time (the button that opens the row), user, key, model or kind, channel
// (labelled when it is a simulator), tokens, cost, status, latency; and the buttons to the newer and older pages.
import { Button, Card, Code, Group, Table, Text, UnstyledButton } from "@mantine/core";
import { IconChevronLeft, IconChevronRight } from "@tabler/icons-react";
import { count, latency, shortDateTime } from "@/lib/portal/format";
import type { AdminUsageRow } from "@/lib/portal/types";
import { LedgerAmount, LedgerStatus, SimulatorBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

const ONE_LINE = { whiteSpace: "nowrap" } as const;

export function LedgerTable({
  list,
  offset,
  pageSize,
  onOffset,
  emails,
  simulators,
  onOpen,
}: {
  list: AdminUsageRow[];
  offset: number;
  pageSize: number;
  onOffset: (offset: number) => void;
  emails: Map<string, string>;
  simulators: Set<string>;
  onOpen: (row: AdminUsageRow) => void;
}) {
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={860} verticalSpacing={3} horizontalSpacing={6} fz="sm" highlightOnHover striped data-testid="ledger-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>User</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th>Model / kind</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th ta="right">Tokens in/out</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((row) => (
            <Table.Tr key={row.id} data-testid="ledger-row" onClick={() => onOpen(row)} style={{ cursor: "pointer" }}>
              <Table.Td style={ONE_LINE}>
                <UnstyledButton
                  fz="sm"
                  td="underline"
                  aria-label={`Open the ${row.kind === "request" ? `request to ${row.model}` : row.kind} of ${shortDateTime(row.createdAt)}`}
                  onClick={(event) => {
                    event.stopPropagation();
                    onOpen(row);
                  }}
                >
                  {shortDateTime(row.createdAt)}
                </UnstyledButton>
              </Table.Td>
              <Table.Td>
                <Text size="sm" truncate maw={140}>
                  {emails.get(row.userId) ?? row.userId}
                </Text>
              </Table.Td>
              <Table.Td style={ONE_LINE}>{row.keyPrefix ? <Code fz="xs">{row.keyPrefix}…</Code> : "—"}</Table.Td>
              <Table.Td>
                {row.kind === "request" ? (
                  <Text size="sm" ff="monospace" truncate maw={150} title={`${row.endpoint}${row.stream ? " · stream" : ""}`}>
                    {row.model}
                  </Text>
                ) : (
                  <Text size="sm">{row.kind === "topup" ? "Redeem code" : "Adjustment"}</Text>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Text size="sm" truncate maw={90}>
                    {row.channelName ?? "—"}
                  </Text>
                  {row.channelId && simulators.has(row.channelId) ? <SimulatorBadge size="xs" /> : null}
                </Group>
              </Table.Td>
              <Table.Td ta="right" style={ONE_LINE}>
                {count(row.textInputTokens + row.imageInputTokens)} / {count(row.textOutputTokens + row.imageOutputTokens)}
              </Table.Td>
              <Table.Td ta="right" fw={500} c={row.cost < 0 ? "teal.9" : undefined} style={ONE_LINE}>
                <LedgerAmount cost={row.cost} />
              </Table.Td>
              <Table.Td style={ONE_LINE}>
                <LedgerStatus row={row} />
              </Table.Td>
              <Table.Td ta="right" style={ONE_LINE}>
                {row.kind === "request" ? latency(row.latencyMs) : "—"}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
      <Group justify="space-between" px="md" py="xs">
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
