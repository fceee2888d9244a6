"use client";
// Usage: the account's ledger as a filterable, paginated table (model, tokens by kind, cost, status, latency) with
// CSV export of everything the filters match. Reads /api/user/usage, which only ever returns the user's own rows.
import { useMemo, useState } from "react";
import {
  Button,
  Card,
  Code,
  EmptyState,
  Group,
  Pagination,
  SegmentedControl,
  Select,
  SimpleGrid,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconDownload, IconFilterOff, IconReceipt } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { api, fieldMessage, useApi } from "@/lib/portal/api";
import { count, dateTime, latency, usdPrecise, usdSummary } from "@/lib/portal/format";
import { download, signedUsd, toCsv, type CsvColumn } from "@/lib/portal/csv";
import type { ApiKey, UsagePage as UsagePageData, UsageRow } from "@/lib/portal/types";
import { daysBetween, shortDay, UsageChart, type Measure, type Split } from "./usage-chart";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading, LedgerAmount, LedgerStatus } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

type Filters = { model: string | null; status: string | null; kind: string | null; keyId: string | null; from: string; to: string };
const EMPTY: Filters = { model: null, status: null, kind: null, keyId: null, from: "", to: "" };
const EXPORT_PAGE = 200;
const EXPORT_MAX = 20_000;

function query(filters: Filters, limit: number, offset: number): string {
  const params = new URLSearchParams({ limit: String(limit), offset: String(offset) });
  if (filters.model) params.set("model", filters.model);
  if (filters.status) params.set("status", filters.status);
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.keyId) params.set("keyId", filters.keyId);
  if (filters.from) params.set("from", filters.from);
  if (filters.to) params.set("to", filters.to);
  return `/api/user/usage?${params}`;
}

export const USAGE_CSV: CsvColumn<UsageRow>[] = [
  { header: "time", value: (row) => row.createdAt },
  { header: "kind", value: (row) => row.kind },
  { header: "request_id", value: (row) => row.requestId },
  { header: "endpoint", value: (row) => row.endpoint },
  { header: "model", value: (row) => row.model },
  { header: "key_prefix", value: (row) => row.keyPrefix },
  { header: "text_input_tokens", value: (row) => row.textInputTokens },
  { header: "text_output_tokens", value: (row) => row.textOutputTokens },
  { header: "image_input_tokens", value: (row) => row.imageInputTokens },
  { header: "image_output_tokens", value: (row) => row.imageOutputTokens },
  // From the user's side, as a number a spreadsheet can add up: a top-up of $5 is 5, a request of $0.0063 is -0.0063.
  { header: "amount_usd", value: (row) => signedUsd(-row.cost) },
  { header: "status", value: (row) => row.status },
  { header: "http_status", value: (row) => row.httpStatus },
  { header: "latency_ms", value: (row) => row.latencyMs },
  { header: "stream", value: (row) => row.stream },
  { header: "error", value: (row) => row.error },
];

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

export function UsagePage() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(50);
  const [exporting, setExporting] = useState(false);
  const path = query(filters, pageSize, (page - 1) * pageSize);
  const usage = useApi<UsagePageData>(path);
  const keys = useApi<{ data: ApiKey[] }>("/api/user/keys");

  const set = (change: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...change }));
    setPage(1);
  };
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY);
  const fieldError = (name: string) => (usage.error?.param === name ? fieldMessage(usage.error.message) : undefined);
  const modelOptions = useMemo(
    () => [...new Set([...ALL_MODELS, ...(usage.data?.data.map((row) => row.model).filter(Boolean) ?? [])])],
    [usage.data],
  );
  const keyOptions = (keys.data?.data ?? []).map((key) => ({ value: key.id, label: `${key.name || "Unnamed"} (${key.prefix}…)` }));
  const total = usage.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));

  async function exportCsv() {
    setExporting(true);
    try {
      const rows: UsageRow[] = [];
      for (let offset = 0; offset < Math.min(total, EXPORT_MAX); offset += EXPORT_PAGE) {
        const chunk = await api<UsagePageData>(query(filters, EXPORT_PAGE, offset));
        rows.push(...chunk.data);
        if (chunk.data.length < EXPORT_PAGE) break;
      }
      download(`usage-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(rows, USAGE_CSV));
      if (total > EXPORT_MAX)
        notifications.show({
          color: "orange",
          title: "Export shortened",
          message: `The first ${count(EXPORT_MAX)} rows were exported; narrow the filters for the rest.`,
        });
    } catch (error) {
      notifications.show({ color: "red", title: "Export failed", message: (error as Error).message });
    } finally {
      setExporting(false);
    }
  }

  return (
    <>
      <PageHeader
        title="Usage"
        description="Every request, top-up and adjustment on your account, newest first. Costs are in US dollars."
        actions={
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            onClick={() => void exportCsv()}
            loading={exporting}
            disabled={!total}
          >
            Export CSV
          </Button>
        }
      />
      <Card withBorder radius="lg" padding="md" mb="md">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 6 }} spacing="sm">
          <Select
            label="Model"
            placeholder="All models"
            data={modelOptions}
            value={filters.model}
            onChange={(model) => set({ model })}
            clearable
            searchable
            error={fieldError("model")}
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
            error={fieldError("kind")}
          />
          <Select
            label="Status"
            placeholder="All"
            data={["success", "error", "cancelled", "refused"]}
            value={filters.status}
            onChange={(status) => set({ status })}
            clearable
            error={fieldError("status")}
          />
          <Select
            label="Key"
            placeholder="All keys"
            data={keyOptions}
            value={filters.keyId}
            onChange={(keyId) => set({ keyId })}
            clearable
            searchable
            error={fieldError("keyId")}
          />
          <TextInput
            label="From (UTC)"
            type="date"
            value={filters.from}
            onChange={(event) => set({ from: event.currentTarget.value })}
            error={fieldError("from")}
          />
          <TextInput
            label="To (UTC, inclusive)"
            type="date"
            value={filters.to}
            onChange={(event) => set({ to: event.currentTarget.value })}
            error={fieldError("to")}
          />
        </SimpleGrid>
        {filtered ? (
          <Group justify="flex-end" mt="sm">
            <Button size="xs" variant="subtle" color="gray" leftSection={<IconFilterOff size={14} />} onClick={() => set(EMPTY)}>
              Clear filters
            </Button>
          </Group>
        ) : null}
      </Card>

      {usage.error && !["model", "kind", "status", "keyId", "from", "to"].includes(usage.error.param ?? "") ? (
        <LoadError error={usage.error} onRetry={usage.reload} />
      ) : null}
      {usage.loading && !usage.data ? (
        <Loading label="Loading usage…" />
      ) : usage.data && usage.data.data.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconReceipt size={28} />}
            variant="light"
            title={filtered ? "Nothing matches these filters" : "No usage yet"}
            description={
              filtered
                ? "Try a wider date range or clear the filters."
                : "Requests made with your keys, and codes you redeem, are listed here."
            }
          />
        </Card>
      ) : usage.data ? (
        <>
          <UsageSummary page={usage.data} />
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
                {usage.data.data.map((row) => (
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
                  onChange={(value) => {
                    setPageSize(Number(value ?? 50));
                    setPage(1);
                  }}
                  w={90}
                  size="xs"
                  allowDeselect={false}
                />
                <Pagination
                  total={pages}
                  value={page}
                  onChange={setPage}
                  size="sm"
                  withEdges
                  getControlProps={(control) => ({ "aria-label": `${control} page` })}
                />
              </Group>
            </Group>
          </Card>
        </>
      ) : null}
    </>
  );
}

/** Totals of every row the filters match, and the days of the range as a chart by model or key. */
function UsageSummary({ page }: { page: UsagePageData }) {
  const [measure, setMeasure] = useState<Measure>("spent");
  const [split, setSplit] = useState<Split>("model");
  const { totals } = page;
  const days = daysBetween(
    page.dailyRange.from.slice(0, 10),
    new Date(new Date(page.dailyRange.to).getTime() - 1).toISOString().slice(0, 10),
  );
  return (
    <Card withBorder radius="lg" padding="lg" mb="md" data-testid="usage-summary">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" mb="md">
        <Total label="Requests" value={count(totals.requests)} testId="total-requests" />
        <Total label="Spent" value={usdSummary(totals.spent)} exact={usdPrecise(totals.spent)} testId="total-spent" />
        <Total label="Credited" value={usdSummary(totals.credited)} exact={usdPrecise(totals.credited)} testId="total-credited" />
        <Total
          label="Tokens in / out"
          value={`${count(totals.textInputTokens + totals.imageInputTokens)} / ${count(totals.textOutputTokens + totals.imageOutputTokens)}`}
          testId="total-tokens"
        />
      </SimpleGrid>
      <Text size="xs" c="dimmed" mb="md">
        Totals of {totals.rows === 1 ? "the one row" : `all ${count(totals.rows)} rows`} that match the filters. The chart shows{" "}
        {shortDay(days[0] ?? "")} to {shortDay(days[days.length - 1] ?? "")} (UTC); set From and To for another range.
      </Text>
      <Group justify="space-between" mb="sm" wrap="wrap" gap="sm">
        <SegmentedControl
          size="xs"
          value={measure}
          onChange={(value) => setMeasure(value as Measure)}
          data={[
            { value: "spent", label: "Spend" },
            { value: "requests", label: "Requests" },
          ]}
          aria-label="What the chart shows"
        />
        <SegmentedControl
          size="xs"
          value={split}
          onChange={(value) => setSplit(value as Split)}
          data={[
            { value: "model", label: "By model" },
            { value: "key", label: "By key" },
            { value: "none", label: "Total" },
          ]}
          aria-label="How the chart is split"
        />
      </Group>
      <UsageChart
        days={days}
        breakdown={page.breakdown}
        measure={measure}
        split={split}
        label={`${measure === "spent" ? "Spend" : "Requests"} ${split === "model" ? "by model" : split === "key" ? "by key" : "per day"}`}
        height={220}
      />
    </Card>
  );
}

function Total({ label, value, exact, testId }: { label: string; value: string; exact?: string; testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz="xl" fw={700} title={exact} data-testid={testId} style={{ overflowWrap: "anywhere" }}>
        {value}
      </Text>
    </div>
  );
}
