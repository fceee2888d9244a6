"use client";
// The Redeem codes page's list without its rendering: every code (GET /api/admin/redeem-codes) with the redeemers'
// emails, the batches summed up, the filter by batch and status, and the filtered list as CSV.
import { useMemo, useState } from "react";
import { useApi } from "@/lib/portal/api";
import { download, toCsv } from "@/lib/portal/csv";
import type { AdminRedeemCode, AdminUser } from "@/lib/portal/types";

export type BatchSummary = { batch: string; total: number; used: number; value: number; createdAt: string };

export function useCodeList() {
  const codes = useApi<{ data: AdminRedeemCode[] }>("/api/admin/redeem-codes");
  const users = useApi<{ data: AdminUser[] }>("/api/admin/users?limit=1000");
  const [batch, setBatch] = useState<string | null>(null);
  const [status, setStatus] = useState("all");

  const emails = useMemo(() => new Map((users.data?.data ?? []).map((user) => [user.id, user.email])), [users.data]);
  const all = useMemo(() => codes.data?.data ?? [], [codes.data]);
  const batches = useMemo(() => {
    const summary = new Map<string, BatchSummary>();
    for (const code of all) {
      const entry = summary.get(code.batch) ?? { batch: code.batch, total: 0, used: 0, value: 0, createdAt: code.createdAt };
      entry.total++;
      if (code.status === "used") entry.used++;
      entry.value += code.quota;
      summary.set(code.batch, entry);
    }
    return [...summary.values()];
  }, [all]);
  const shown = all.filter((code) => (!batch || code.batch === batch) && (status === "all" || code.status === status));
  const redeemer = (code: AdminRedeemCode) => (code.redeemedById ? (emails.get(code.redeemedById) ?? code.redeemedById) : null);

  function exportList() {
    download(
      `redeem-codes${batch ? `-${batch}` : ""}-status.csv`,
      toCsv(shown, [
        { header: "prefix", value: (code) => code.prefix },
        { header: "batch", value: (code) => code.batch },
        { header: "value_usd", value: (code) => (code.quota / 1_000_000).toFixed(2) },
        { header: "status", value: (code) => code.status },
        { header: "expires_at", value: (code) => code.expiresAt },
        { header: "redeemed_at", value: (code) => code.redeemedAt },
        { header: "redeemed_by", value: (code) => redeemer(code) ?? "" },
        { header: "created_at", value: (code) => code.createdAt },
      ]),
    );
  }

  return { codes, all, batches, shown, batch, setBatch, status, setStatus, redeemer, exportList };
}
