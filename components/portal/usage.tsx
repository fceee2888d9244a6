"use client";
// Usage: the account's ledger as a filterable (usage-filters.tsx), paginated table (usage-table.tsx: model, tokens
// by kind, cost, status, latency) with totals and a chart (usage-summary.tsx) and CSV export of everything the
// filters match (use-usage-export.ts). Reads /api/user/usage, which only ever returns the user's own rows.
import { useState } from "react";
import { Button, Card, EmptyState } from "@mantine/core";
import { IconDownload, IconReceipt } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import type { UsagePage as UsagePageData } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { FILTER_PARAMS, UsageFilters } from "./usage-filters";
import { UsageSummary } from "./usage-summary";
import { UsageTable } from "./usage-table";
import { EMPTY, type Filters, usageQuery, useUsageExport } from "./use-usage-export";

export { USAGE_CSV } from "./use-usage-export";

export function UsagePage() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(50);
  const usage = useApi<UsagePageData>(usageQuery(filters, pageSize, (page - 1) * pageSize));
  const total = usage.data?.total ?? 0;
  const { exporting, exportCsv } = useUsageExport(filters, total);

  const set = (change: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...change }));
    setPage(1);
  };
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY);

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
      <UsageFilters filters={filters} set={set} rows={usage.data?.data} error={usage.error} />

      {usage.error && !FILTER_PARAMS.includes(usage.error.param ?? "") ? <LoadError error={usage.error} onRetry={usage.reload} /> : null}
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
          <UsageTable
            rows={usage.data.data}
            page={page}
            pageSize={pageSize}
            total={total}
            onPage={setPage}
            onPageSize={(size) => {
              setPageSize(size);
              setPage(1);
            }}
          />
        </>
      ) : null}
    </>
  );
}
