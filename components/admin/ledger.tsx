"use client";
// Operator: the whole ledger (every user's requests, top-ups and adjustments), filterable by user, key, model and
// kind, paginated, exportable as CSV (use-ledger-export.ts). Rows served by a simulator channel are labelled.
import { useMemo, useState } from "react";
import { Button, Card, EmptyState, Select, SimpleGrid, TextInput } from "@mantine/core";
import { IconDownload, IconReceipt } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { useApi } from "@/lib/portal/api";
import type { AdminChannel, AdminUsageRow, AdminUser } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { LedgerTable } from "./ledger/ledger-table";
import { useLedgerExport } from "./ledger/use-ledger-export";

type Filters = { userId: string | null; model: string | null; kind: string | null; keyId: string };
const PAGE = 50;

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
  const { exporting, exportCsv } = useLedgerExport((limit, start) => path(filters, limit, start), emails);

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
        <LedgerTable list={list} offset={offset} pageSize={PAGE} onOffset={setOffset} emails={emails} simulators={simulators} />
      ) : null}
    </>
  );
}
