"use client";
// The ledger's CSV export without its rendering: every row the filters match (GET /api/admin/usage, a page of
// 1,000 at a time, at most 50,000 rows), with the user's email, the usage columns of the user's own export, the
// channel, the reservation and the price version.
import { useState } from "react";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { download, signedUsd, toCsv } from "@/lib/portal/csv";
import type { AdminUsageRow } from "@/lib/portal/types";
import { USAGE_CSV } from "@/components/portal/usage";

const EXPORT_PAGE = 1000;
const EXPORT_MAX = 50_000;

/** `pathOf(limit, offset)`: the filtered ledger's path; `emails`: user id → email for the user column. */
export function useLedgerExport(pathOf: (limit: number, offset: number) => string, emails: Map<string, string>) {
  const [exporting, setExporting] = useState(false);

  async function exportCsv() {
    setExporting(true);
    try {
      const all: AdminUsageRow[] = [];
      for (let start = 0; start < EXPORT_MAX; start += EXPORT_PAGE) {
        const page = await api<{ data: AdminUsageRow[] }>(pathOf(EXPORT_PAGE, start));
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

  return { exporting, exportCsv };
}
