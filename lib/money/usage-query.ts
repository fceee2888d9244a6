// The account's ledger as the usage page shows it (GET /api/user/usage, lib/account-api/usage.ts): a page of rows, daily
// totals, a per-day breakdown by model and key, and totals over every matching row. The daily SQL has one branch per
// database: the day of a UTC date is its first 10 characters on SQLite (ISO text), to_char on PostgreSQL.
import { db, type Prisma } from "@/lib/platform/db/client";
import { Prisma as SqlHelpers } from "@/lib/generated/sqlite/client";
import { env } from "@/lib/platform/env";
import { flushLedger } from "./ledger";

/** How far back the daily totals go when no `from` is given. */
const DEFAULT_DAILY_DAYS = 30;

export type UsageFilter = {
  userId: string;
  limit: number;
  offset: number;
  model?: string;
  status?: string;
  kind?: string;
  keyId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
};

type DailyRow = {
  day: string;
  requests: unknown;
  spent: unknown;
  credited: unknown;
  textInputTokens: unknown;
  textOutputTokens: unknown;
  imageInputTokens: unknown;
  imageOutputTokens: unknown;
};

/** The usage page's data for one user (settlements still in the batch writer included). */
export async function accountUsage(filter: UsageFilter) {
  await flushLedger();
  const where: Prisma.UsageLogWhereInput = {
    userId: filter.userId,
    model: filter.model,
    status: filter.status,
    kind: filter.kind,
    keyId: filter.keyId,
    createdAt: filter.from || filter.to ? { gte: filter.from, lt: filter.to } : undefined,
  };
  const [rows, total] = await Promise.all([
    db().usageLog.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: filter.limit, skip: filter.offset }),
    db().usageLog.count({ where }),
  ]);

  const dailyTo = filter.to ?? new Date();
  const dailyFrom =
    filter.from ?? new Date(Date.UTC(dailyTo.getUTCFullYear(), dailyTo.getUTCMonth(), dailyTo.getUTCDate() - (DEFAULT_DAILY_DAYS - 1)));
  const sql = SqlHelpers.sql;
  const filters = [
    sql`"userId" = ${filter.userId}`,
    sql`"createdAt" >= ${dailyFrom}`,
    sql`"createdAt" < ${dailyTo}`,
    ...(filter.model ? [sql`"model" = ${filter.model}`] : []),
    ...(filter.status ? [sql`"status" = ${filter.status}`] : []),
    ...(filter.kind ? [sql`"kind" = ${filter.kind}`] : []),
    ...(filter.keyId ? [sql`"keyId" = ${filter.keyId}`] : []),
  ];
  // Dates are stored in UTC: ISO text on SQLite (its first 10 characters are the day), timestamp(3) on PostgreSQL.
  const day = SqlHelpers.raw(env().databaseKind === "sqlite" ? `substr("createdAt", 1, 10)` : `to_char("createdAt", 'YYYY-MM-DD')`);
  const daily = await db().$queryRaw<DailyRow[]>(sql`
    SELECT ${day} AS "day",
      CAST(SUM(CASE WHEN "kind" = 'request' THEN 1 ELSE 0 END) AS BIGINT) AS "requests",
      CAST(SUM(CASE WHEN "kind" = 'request' THEN "cost" ELSE 0 END) AS BIGINT) AS "spent",
      CAST(SUM(CASE WHEN "kind" <> 'request' THEN -"cost" ELSE 0 END) AS BIGINT) AS "credited",
      CAST(SUM("textInputTokens") AS BIGINT) AS "textInputTokens",
      CAST(SUM("textOutputTokens") AS BIGINT) AS "textOutputTokens",
      CAST(SUM("imageInputTokens") AS BIGINT) AS "imageInputTokens",
      CAST(SUM("imageOutputTokens") AS BIGINT) AS "imageOutputTokens"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join(filters, " AND ")}
    GROUP BY ${day}
    ORDER BY ${day}`);

  // Per day, model and key in the same range (the charts' "by model" and "by key"), and totals over every filtered
  // row (not only the chart's range), each in one filter.
  const breakdown = await db().$queryRaw<
    { day: string; model: string; keyId: string | null; keyPrefix: string | null; requests: unknown; spent: unknown }[]
  >(sql`
    SELECT ${day} AS "day", "model", "keyId", "keyPrefix",
      CAST(COUNT(*) AS BIGINT) AS "requests", CAST(SUM("cost") AS BIGINT) AS "spent"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join([...filters, sql`"kind" = 'request'`], " AND ")}
    GROUP BY ${day}, "model", "keyId", "keyPrefix"
    ORDER BY ${day}`);
  const totalFilters = [
    sql`"userId" = ${filter.userId}`,
    ...(filter.from ? [sql`"createdAt" >= ${filter.from}`] : []),
    ...(filter.to ? [sql`"createdAt" < ${filter.to}`] : []),
    ...filters.slice(3),
  ];
  const [sums] = await db().$queryRaw<Omit<DailyRow, "day">[]>(sql`
    SELECT
      CAST(COALESCE(SUM(CASE WHEN "kind" = 'request' THEN 1 ELSE 0 END), 0) AS BIGINT) AS "requests",
      CAST(COALESCE(SUM(CASE WHEN "kind" = 'request' THEN "cost" ELSE 0 END), 0) AS BIGINT) AS "spent",
      CAST(COALESCE(SUM(CASE WHEN "kind" <> 'request' THEN -"cost" ELSE 0 END), 0) AS BIGINT) AS "credited",
      CAST(COALESCE(SUM("textInputTokens"), 0) AS BIGINT) AS "textInputTokens",
      CAST(COALESCE(SUM("textOutputTokens"), 0) AS BIGINT) AS "textOutputTokens",
      CAST(COALESCE(SUM("imageInputTokens"), 0) AS BIGINT) AS "imageInputTokens",
      CAST(COALESCE(SUM("imageOutputTokens"), 0) AS BIGINT) AS "imageOutputTokens"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join(totalFilters, " AND ")}`);

  return {
    data: rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      requestId: row.requestId,
      keyId: row.keyId,
      keyPrefix: row.keyPrefix,
      endpoint: row.endpoint,
      model: row.model,
      textInputTokens: row.textInputTokens,
      textOutputTokens: row.textOutputTokens,
      imageInputTokens: row.imageInputTokens,
      imageOutputTokens: row.imageOutputTokens,
      cost: Number(row.cost),
      status: row.status,
      httpStatus: row.httpStatus,
      error: row.error,
      latencyMs: row.latencyMs,
      stream: row.stream,
      createdAt: row.createdAt,
    })),
    total,
    limit: filter.limit,
    offset: filter.offset,
    daily: daily.map((row) => ({
      date: row.day,
      requests: Number(row.requests),
      spent: Number(row.spent),
      credited: Number(row.credited),
      textInputTokens: Number(row.textInputTokens),
      textOutputTokens: Number(row.textOutputTokens),
      imageInputTokens: Number(row.imageInputTokens),
      imageOutputTokens: Number(row.imageOutputTokens),
    })),
    dailyRange: { from: dailyFrom, to: dailyTo },
    breakdown: breakdown.map((row) => ({
      date: row.day,
      model: row.model,
      keyId: row.keyId,
      keyPrefix: row.keyPrefix,
      requests: Number(row.requests),
      spent: Number(row.spent),
    })),
    totals: {
      rows: total,
      requests: Number(sums?.requests ?? 0),
      spent: Number(sums?.spent ?? 0),
      credited: Number(sums?.credited ?? 0),
      textInputTokens: Number(sums?.textInputTokens ?? 0),
      textOutputTokens: Number(sums?.textOutputTokens ?? 0),
      imageInputTokens: Number(sums?.imageInputTokens ?? 0),
      imageOutputTokens: Number(sums?.imageOutputTokens ?? 0),
    },
  };
}

/** What each of the user's keys has spent, all time (requests only; top-ups belong to the account), by key id; the
 *  caller flushes the ledger first. */
export async function spentByKey(userId: string): Promise<Map<string | null, number>> {
  const spend = await db().usageLog.groupBy({ by: ["keyId"], where: { userId, kind: "request" }, _sum: { cost: true } });
  return new Map(spend.map((row) => [row.keyId, Number(row._sum.cost ?? 0)]));
}
