"use client";
// The Usage page's table of ledger rows (time, model or what, key, tokens by kind, cost, status, latency) and its
// pagination.
import { Card, Code, Group, Pagination, Select, Table, Text } from "@mantine/core";
import { count, dateTime, latency } from "@/lib/portal/format";
import type { UsageRow } from "@/lib/portal/types";
import { LedgerAmount, LedgerStatus } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

function what(row: UsageRow) {
  if (row.kind === "topup") return <Text size="sm">Redeemed a code</Text>;
  if (row.kind === "adjust") return <Text size="sm">Balance adjustment</Text>;
  return (
    <div>
      <Text size="sm" ff="monospace">
        {row.model}
      </Text>
      <Text size="xs" c="dimmed">
        {row.endpoint}
        {row.stream ? " · stream" : ""}
      </Text>
    </div>
  );
}

export function UsageTable({
  rows,
  page,
  pageSize,
  total,
  onPage,
  onPageSize,
}: {
  rows: UsageRow[];
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  onPageSize: (pageSize: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={900} verticalSpacing="xs" horizontalSpacing="sm" highlightOnHover striped data-testid="usage-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Model / endpoint</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th ta="right">Text in / out</Table.Th>
            <Table.Th ta="right">Image in / out</Table.Th>
            <Table.Th ta="right">Cost</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id} data-testid="usage-row">
              <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(row.createdAt)}</Table.Td>
              <Table.Td>{what(row)}</Table.Td>
              <Table.Td>{row.keyPrefix ? <Code>{row.keyPrefix}…</Code> : <Text c="dimmed">—</Text>}</Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                {count(row.textInputTokens)} / {count(row.textOutputTokens)}
              </Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                {count(row.imageInputTokens)} / {count(row.imageOutputTokens)}
              </Table.Td>
              <Table.Td ta="right" fw={500} c={row.cost < 0 ? "teal" : undefined} style={{ whiteSpace: "nowrap" }}>
                <LedgerAmount cost={row.cost} />
              </Table.Td>
              <Table.Td>
                <LedgerStatus row={row} />
              </Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                {row.kind === "request" ? latency(row.latencyMs) : "—"}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
      <Group justify="space-between" p="md" wrap="wrap" gap="sm">
        <Text size="sm" c="dimmed">
          {count((page - 1) * pageSize + 1)}–{count(Math.min(page * pageSize, total))} of {count(total)}
        </Text>
        <Group gap="sm">
          <Select
            aria-label="Rows per page"
            data={["25", "50", "100", "200"]}
            value={String(pageSize)}
            onChange={(value) => onPageSize(Number(value ?? 50))}
            w={90}
            size="xs"
            allowDeselect={false}
          />
          <Pagination
            total={pages}
            value={page}
            onChange={onPage}
            size="sm"
            withEdges
            getControlProps={(control) => ({ "aria-label": `${control} page` })}
          />
        </Group>
      </Group>
    </Card>
  );
}
