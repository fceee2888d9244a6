"use client";
// Operator: the whole ledger (every user's requests, top-ups and adjustments), filterable by user, key, model and
// kind, paginated, exportable as CSV. Rows served by a simulator channel are labelled.
import { useMemo, useState } from "react";
import { Button, Card, Code, EmptyState, Group, Select, SimpleGrid, Table, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconChevronLeft, IconChevronRight, IconDownload, IconReceipt } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { api, useApi } from "@/lib/portal/api";
import { count, dateTime, latency } from "@/lib/portal/format";
import { download, signedUsd, toCsv } from "@/lib/portal/csv";
import type { AdminChannel, AdminUsageRow, AdminUser } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading, SimulatorBadge, LedgerAmount, LedgerStatus } from "@/components/feedback";
import { USAGE_CSV } from "@/components/portal/usage";
import { DataTable } from "@/components/data-table";

type Filters = { userId: string | null; model: string | null; kind: string | null; keyId: string };
const PAGE = 50;
const EXPORT_PAGE = 1000;
const EXPORT_MAX = 50_000;

function path(filters: Filters, limit: number, offset: number): string {
  const params = new URLSearchParams({ limit: String(limit), offset: String(offset) });
  if (filters.userId) params.set("userId", filters.userId);
  if (filters.model) params.set("model", filters.model);
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.keyId.trim()) params.set("keyId", filters.keyId.trim());
  return `/api/admin/usage?${params}`;
}

export function LedgerAdmin() {
  const [filters, setFilters] = useState<Filters>({ userId: null, model: null, kind: null, keyId: "" });
  const [offset, setOffset] = useState(0);
  const [exporting, setExporting] = useState(false);
  const rows = useApi<{ data: AdminUsageRow[] }>(path(filters, PAGE, offset));
  const users = useApi<{ data: AdminUser[] }>("/api/admin/users?limit=1000");
  const channels = useApi<{ data: AdminChannel[] }>("/api/admin/channels");
  const emails = useMemo(() => new Map((users.data?.data ?? []).map((user) => [user.id, user.email])), [users.data]);
  const simulators = useMemo(
    () => new Set((channels.data?.data ?? []).filter((channel) => channel.type === "simulator").map((channel) => channel.id)),
    [channels.data],
  );
  const set = (change: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...change }));
    setOffset(0);
  };
  const list = rows.data?.data ?? [];

  async function exportCsv() {
    setExporting(true);
    try {
      const all: AdminUsageRow[] = [];
      for (let start = 0; start < EXPORT_MAX; start += EXPORT_PAGE) {
        const page = await api<{ data: AdminUsageRow[] }>(path(filters, EXPORT_PAGE, start));
        all.push(...page.data);
        if (page.data.length < EXPORT_PAGE) break;
      }
      const columns = [
        { header: "user", value: (row: AdminUsageRow) => emails.get(row.userId) ?? row.userId },
        ...USAGE_CSV,
        { header: "channel", value: (row: AdminUsageRow) => row.channelName },
        { header: "reserved_usd", value: (row: AdminUsageRow) => signedUsd(row.reserved) },
        { header: "price_version", value: (row: AdminUsageRow) => row.priceVersion },
      ];
      download(`ledger-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(all, columns));
    } catch (error) {
      notifications.show({ color: "red", title: "Export failed", message: (error as Error).message });
    } finally {
      setExporting(false);
    }
  }

  return (
    <>
      <PageHeader
        title="Ledger"
        description="Every charge and credit on the gateway, newest first: what was used, what it cost, which channel served it."
        actions={
          <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => void exportCsv()} loading={exporting}>
            Export CSV
          </Button>
        }
      />
      <Card withBorder radius="lg" padding="md" mb="md">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
          <Select
            label="User"
            placeholder="Everyone"
            data={(users.data?.data ?? []).map((user) => ({ value: user.id, label: user.email }))}
            value={filters.userId}
            onChange={(userId) => set({ userId })}
            clearable
            searchable
          />
          <Select
            label="Model"
            placeholder="All models"
            data={ALL_MODELS}
            value={filters.model}
            onChange={(model) => set({ model })}
            clearable
            searchable
          />
          <Select
            label="Type"
            placeholder="All"
            data={[
              { value: "request", label: "Requests" },
              { value: "topup", label: "Top-ups" },
              { value: "adjust", label: "Adjustments" },
            ]}
            value={filters.kind}
            onChange={(kind) => set({ kind })}
            clearable
          />
          <TextInput
            label="Key id"
            placeholder="Any key"
            value={filters.keyId}
            onChange={(event) => set({ keyId: event.currentTarget.value })}
          />
        </SimpleGrid>
      </Card>
      {rows.error ? <LoadError error={rows.error} onRetry={rows.reload} /> : null}
      {rows.loading && !rows.data ? (
        <Loading />
      ) : rows.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconReceipt size={28} />}
            variant="light"
            title={offset ? "No more rows" : "No ledger rows"}
            description="Requests, top-ups and adjustments appear here as they happen."
          />
        </Card>
      ) : rows.data ? (
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
                onClick={() => setOffset(Math.max(0, offset - PAGE))}
              >
                Newer
              </Button>
              <Button
                size="xs"
                variant="default"
                rightSection={<IconChevronRight size={14} />}
                disabled={list.length < PAGE}
                onClick={() => setOffset(offset + PAGE)}
              >
                Older
              </Button>
            </Group>
          </Group>
        </Card>
      ) : null}
    </>
  );
}
