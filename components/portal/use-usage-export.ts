"use client";
// The Usage page's CSV export: every row the filters match (in pages of 200, at most 20,000), as a CSV download.
// The columns (USAGE_CSV) are shared with the operator's ledger export.
import { useState } from "react";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { count } from "@/lib/portal/format";
import { download, signedUsd, toCsv, type CsvColumn } from "@/lib/portal/csv";
import type { UsagePage as UsagePageData, UsageRow } from "@/lib/portal/types";

export type Filters = { model: string | null; status: string | null; kind: string | null; keyId: string | null; from: string; to: string };
export const EMPTY: Filters = { model: null, status: null, kind: null, keyId: null, from: "", to: "" };
const EXPORT_PAGE = 200;
const EXPORT_MAX = 20_000;

/** The /api/user/usage path for these filters and this page. */
export function usageQuery(filters: Filters, limit: number, offset: number): string {
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

/** Downloads every row `filters` match (`total` of them) as CSV; `exporting` while it reads them. */
export function useUsageExport(filters: Filters, total: number): { exporting: boolean; exportCsv: () => Promise<void> } {
  const [exporting, setExporting] = useState(false);

  async function exportCsv() {
    setExporting(true);
    try {
      const rows: UsageRow[] = [];
      for (let offset = 0; offset < Math.min(total, EXPORT_MAX); offset += EXPORT_PAGE) {
        const chunk = await api<UsagePageData>(usageQuery(filters, EXPORT_PAGE, offset));
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

  return { exporting, exportCsv };
}
