"use client";
// The ledger's CSV export without its rendering: every row the filters match (GET /api/admin/usage, a page of 1,000
// at a time, each page continuing after the last row of the one before, so rows written meanwhile neither shift nor
// repeat it), with the user's email, the usage columns of the user's own export, the channel, the reservation and
// the price version. It says how many rows it wrote.
import { useState } from "react";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { count } from "@/lib/portal/format";
import { download, signedUsd, toCsv } from "@/lib/portal/csv";
import type { AdminUsageRow } from "@/lib/portal/types";
import { USAGE_CSV } from "@/components/portal/usage";

const EXPORT_PAGE = 1000;

/** `filters`: the ledger's query without paging; `emails`: user id → email for the user column. */
export function useLedgerExport(filters: string, emails: Map<string, string>) {
  const [exporting, setExporting] = useState(false);

  async function exportCsv() {
    setExporting(true);
    try {
      const all: AdminUsageRow[] = [];
      for (;;) {
        const after = all.length ? `&after=${encodeURIComponent(all[all.length - 1]!.id)}` : "";
        const page = await api<{ data: AdminUsageRow[] }>(`/api/admin/usage?${filters}${filters ? "&" : ""}limit=${EXPORT_PAGE}${after}`);
        all.push(...page.data);
        if (page.data.length < EXPORT_PAGE) break;
      }
      const columns = [
        { header: "user", value: (row: AdminUsageRow) => emails.get(row.userId) ?? row.userId },
        ...USAGE_CSV,
        { header: "channel", value: (row: AdminUsageRow) => row.channelName },
        { header: "reserved_usd", value: (row: AdminUsageRow) => signedUsd(row.reserved) },
        { header: "price_version", value: (row: AdminUsageRow) => row.priceVersion },
        { header: "queue_ms", value: (row: AdminUsageRow) => row.queueMs },
        { header: "first_byte_ms", value: (row: AdminUsageRow) => row.firstByteMs },
      ];
      download(`ledger-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(all, columns));
      notifications.show({ color: "teal", title: "Exported", message: `${count(all.length)} rows, every row the filters match.` });
    } catch (error) {
      notifications.show({ color: "red", title: "Export failed", message: (error as Error).message });
    } finally {
      setExporting(false);
    }
  }

  return { exporting, exportCsv };
}
