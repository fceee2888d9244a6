// The operator's ledger (/api/admin/usage, newest first; one row with its timing, pricing and failovers at
// /api/admin/usage/{id}) and the mail outbox (/api/admin/outbox). docs/api.md, "The operator's ledger".
import { z } from "zod";
import { queryFilter, queryFrom, queryLimit, queryOffset, queryTo } from "./query";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json, parseQuery } from "@/lib/platform/http/json";
import { flushLedger } from "@/lib/money/ledger";
import { adminRoute } from "./route";

export const listUsageQuery = z
  .object({
    userId: queryFilter,
    keyId: queryFilter,
    /** What the portal shows of a key: its prefix ("sk-AbCd12", with or without the trailing "…"), or its name. */
    key: queryFilter,
    model: queryFilter,
    kind: queryFilter,
    requestId: queryFilter,
    /** A channel's id or name. */
    channel: queryFilter,
    status: z.preprocess(
      (value) => (value === "" ? undefined : value),
      z.enum(["success", "error", "cancelled", "refused"], { error: "must be success, error, cancelled or refused" }).optional(),
    ),
    from: queryFrom,
    to: queryTo,
    /** The id of the last row of the page before: the next page starts after it (what an export pages with). */
    after: queryFilter,
    limit: queryLimit(100, 1000),
    offset: queryOffset,
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, { message: "must be after 'from'", path: ["to"] });

type UsageWhere = NonNullable<NonNullable<Parameters<ReturnType<typeof db>["usageLog"]["findMany"]>[0]>["where"]>;

/** The filters as a where clause; null when they can match nothing (no key has the given prefix or name). */
async function usageWhere(query: z.infer<typeof listUsageQuery>): Promise<UsageWhere | null> {
  const { userId, keyId, key, model, kind, requestId, channel, status, from, to, after } = query;
  const and: UsageWhere[] = [];
  if (key) {
    const shown = key.trim().replace(/(…|\.\.\.)$/, "");
    if (!shown) return null;
    const named = await db().apiKey.findMany({ where: { name: shown }, select: { id: true }, take: 1000 });
    and.push({ OR: [{ keyPrefix: { startsWith: shown } }, { keyId: { in: named.map((row) => row.id) } }] });
  }
  if (channel) and.push({ OR: [{ channelId: channel }, { channelName: channel }] });
  if (from || to) and.push({ createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } });
  if (after) {
    const last = await db().usageLog.findUnique({ where: { id: after }, select: { createdAt: true } });
    if (!last) throw new GatewayError("invalid_request", "No ledger row with this id to continue after", { param: "after" });
    // Newest first, ties by id: the rows after the last one are older, or as old with a smaller id.
    and.push({ OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: after } }] });
  }
  return { userId, keyId, model, kind, requestId, status, ...(and.length ? { AND: and } : {}) };
}

export const listUsage = adminRoute(async (request) => {
  const query = parseQuery(request, listUsageQuery);
  await flushLedger();
  const where = await usageWhere(query);
  if (!where) return json({ data: [] });
  const rows = await db().usageLog.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
    skip: query.after ? 0 : query.offset,
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
