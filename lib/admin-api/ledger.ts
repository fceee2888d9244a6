// The operator's ledger (/api/admin/usage, newest first) and the mail outbox (/api/admin/outbox).
import { z } from "zod";
import { queryFilter, queryLimit, queryOffset } from "./query";
import { db } from "@/lib/platform/db/client";
import { json, parseQuery } from "@/lib/platform/http/json";
import { flushLedger } from "@/lib/money/ledger";
import { adminRoute } from "./route";

export const listUsageQuery = z.object({
  userId: queryFilter,
  keyId: queryFilter,
  model: queryFilter,
  kind: queryFilter,
  requestId: queryFilter,
  limit: queryLimit(100, 1000),
  offset: queryOffset,
});

export const listUsage = adminRoute(async (request) => {
  const { limit, offset, ...where } = parseQuery(request, listUsageQuery);
  await flushLedger();
  const rows = await db().usageLog.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    skip: offset,
  });
  return json({ data: rows });
});
export const listOutboxQuery = z.object({ to: queryFilter });

export const listOutbox = adminRoute(async (request) => {
  const to = parseQuery(request, listOutboxQuery).to?.toLowerCase();
  const rows = await db().emailOutbox.findMany({ where: { to }, orderBy: { createdAt: "desc" }, take: 200 });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      to: row.to,
      subject: row.subject,
      text: row.text,
      status: row.status,
      createdAt: row.createdAt,
    })),
  });
});
