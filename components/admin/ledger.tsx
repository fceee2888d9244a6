"use client";
// Operator: the whole ledger (every user's requests, top-ups and adjustments), filterable by user, the key as the
// portal shows it (prefix or name), model, kind, channel, status and dates; a compact table from a laptop up, a card
// per row on a phone; a row opens its detail (ledger/row-drawer.tsx); exportable as CSV, every matching row
// (use-ledger-export.ts). Rows served by a simulator channel are labelled.
import { useMemo, useState } from "react";
import { Button, Card, EmptyState, Select, SimpleGrid, TextInput } from "@mantine/core";
import { IconDownload, IconReceipt } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { useApi } from "@/lib/portal/api";
import type { AdminChannel, AdminUsageRow, AdminUser } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { LedgerTable } from "./ledger/ledger-table";
import { LedgerRowDrawer } from "./ledger/row-drawer";
import { useLedgerExport } from "./ledger/use-ledger-export";

type Filters = {
  userId: string | null;
  model: string | null;
  kind: string | null;
  key: string;
  channel: string | null;
  status: string | null;
  from: string;
  to: string;
};
const PAGE = 50;
const NONE: Filters = { userId: null, model: null, kind: null, key: "", channel: null, status: null, from: "", to: "" };

/** The filtered ledger's query (GET /api/admin/usage; docs/api.md, "The operator's ledger"). */
function query(filters: Filters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.userId) params.set("userId", filters.userId);
  if (filters.model) params.set("model", filters.model);
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.key.trim()) params.set("key", filters.key.trim());
  if (filters.channel) params.set("channel", filters.channel);
  if (filters.status) params.set("status", filters.status);
  if (filters.from) params.set("from", filters.from);
  if (filters.to) params.set("to", filters.to);
  return params;
}

export function LedgerAdmin() {
  const [filters, setFilters] = useState<Filters>(NONE);
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<AdminUsageRow | null>(null);
  const params = query(filters);
  const rows = useApi<{ data: AdminUsageRow[] }>(`/api/admin/usage?${params}&limit=${PAGE}&offset=${offset}`);
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
  const { exporting, exportCsv } = useLedgerExport(params.toString(), emails);

  return (
    <>
      <PageHeader
        title="Ledger"
        description="Every charge and credit, newest first. Open a row for its timing, pricing and failovers."
        actions={
          <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => void exportCsv()} loading={exporting}>
            Export CSV
          </Button>
        }
      />
      <Card withBorder radius="lg" padding="sm" mb="sm">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs" verticalSpacing={4}>
          <Select
            size="xs"
            label="User"
            placeholder="Everyone"
            data={(users.data?.data ?? []).map((user) => ({ value: user.id, label: user.email }))}
            value={filters.userId}
            onChange={(userId) => set({ userId })}
            clearable
            searchable
          />
          <TextInput
            size="xs"
            label="Key"
            placeholder="Prefix (sk-…) or name"
            value={filters.key}
            onChange={(event) => set({ key: event.currentTarget.value })}
          />
          <Select
            size="xs"
            label="Model"
            placeholder="All models"
            data={ALL_MODELS}
            value={filters.model}
            onChange={(model) => set({ model })}
            clearable
            searchable
          />
          <Select
            size="xs"
            label="Channel"
            placeholder="All channels"
            data={(channels.data?.data ?? []).map((channel) => ({ value: channel.id, label: channel.name }))}
            value={filters.channel}
            onChange={(channel) => set({ channel })}
            clearable
            searchable
          />
          <Select
            size="xs"
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
          <Select
            size="xs"
            label="Status"
            placeholder="Any"
            data={[
              { value: "success", label: "Success" },
              { value: "error", label: "Error" },
              { value: "cancelled", label: "Cancelled" },
              { value: "refused", label: "Refused" },
            ]}
            value={filters.status}
            onChange={(status) => set({ status })}
            clearable
          />
          <TextInput
            size="xs"
            type="date"
            label="From"
            value={filters.from}
            onChange={(event) => set({ from: event.currentTarget.value })}
          />
          <TextInput
            size="xs"
            type="date"
            label="To (through the day)"
            value={filters.to}
            onChange={(event) => set({ to: event.currentTarget.value })}
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
        <LedgerTable
          list={list}
          offset={offset}
          pageSize={PAGE}
          onOffset={setOffset}
          emails={emails}
          simulators={simulators}
          onOpen={setOpen}
        />
      ) : null}
      <LedgerRowDrawer row={open} email={open ? (emails.get(open.userId) ?? null) : null} onClose={() => setOpen(null)} />
    </>
  );
}
