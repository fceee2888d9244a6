// Operator tools beyond create/read/update, listed below. Each write leaves an audit row (adminRoute).
//   POST /api/admin/users/{id}/reset-2fa      turns the user's 2FA off (lost phone): secret and backup codes gone,
//                                             every session ends (rows too), the user is mailed a notice and sets
//                                             2FA up again after signing in
//   POST /api/admin/users/{id}/send-reset     mails the user a password-reset link (the same mail as the user's own
//                                             request: the operator never sees or sets the password)
//   POST /api/admin/redeem-codes/void         {batch} or {ids}: unused codes become "disabled" (used ones stay)
//   POST /api/admin/channels/{id}/fetch-models the upstream's own model list (GET …/v1/models), to pick from
//   GET  /api/admin/overview?hours=24         per channel: requests, errors, revenue, latency; and per hour; the
//                                             count of dead-lettered settlements (LedgerDeadLetter)
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { decrypt } from "@/lib/platform/crypto";
import { json, parseQuery, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { flushLedger } from "@/lib/money/ledger";
import { listCatalog } from "@/lib/catalog";
import { sendResetMail } from "@/lib/accounts/password-reset";
import { sendSecurityNotice } from "@/lib/accounts/security-notices";
import { endUserSessions } from "@/lib/auth/session";
import { providerOf, type ChannelType } from "@/lib/providers";
import { auditDetail } from "./audit";
import { adminRoute } from "./route";
import { queryLimit } from "./query";

export const resetUserTwoFactor = adminRoute(async (request, params) => {
  const user = await db().user.findUnique({ where: { id: params.id } });
  if (!user) throw new GatewayError("not_found", "No user with this id");
  if (!user.totpEnabled && !user.totpSecret) throw new GatewayError("conflict", "Two-factor authentication is not on for this user");
  await db().$transaction([
    db().user.update({
      where: { id: user.id },
      data: { totpEnabled: false, totpSecret: null, totpLastStep: null, sessionVersion: { increment: 1 } },
    }),
    db().backupCode.deleteMany({ where: { userId: user.id } }),
  ]);
  await endUserSessions(user.id);
  publish({ type: "user.changed", userId: user.id });
  await sendSecurityNotice(user.email, "two-factor-reset-by-operator");
  auditDetail(request, { email: user.email, wasEnabled: user.totpEnabled });
  return json({ id: user.id, totpEnabled: false, mailOff: !env().SMTP_URL });
});

export const sendUserResetLink = adminRoute(async (request, params) => {
  const user = await db().user.findUnique({ where: { id: params.id } });
  if (!user) throw new GatewayError("not_found", "No user with this id");
  if (user.status !== "active") throw new GatewayError("conflict", "This account is disabled; enable it before sending a reset link");
  await sendResetMail(user.email);
  auditDetail(request, { email: user.email });
  // mailOff: the link is in the outbox, not in the user's inbox; the operator passes it on.
  return json({ id: user.id, sent: true, mailOff: !env().SMTP_URL });
});

export const voidCodesSchema = z
  .object({
    batch: z.string().trim().min(1).max(100).optional(),
    ids: z.array(z.string().trim().min(1).max(100)).min(1).max(5000).optional(),
  })
  .refine((body) => Boolean(body.batch) !== Boolean(body.ids), { message: "give either a batch or a list of code ids", path: ["batch"] });

export const voidCodes = adminRoute(async (request) => {
  const body = await readBody(request, voidCodesSchema);
  // Only unused codes: a used code already credited someone, and voiding it would change nothing.
  const result = await db().redeemCode.updateMany({
    where: { status: "unused", ...(body.batch ? { batch: body.batch } : { id: { in: body.ids! } }) },
    data: { status: "disabled" },
  });
  auditDetail(request, { batch: body.batch ?? null, ids: body.ids?.length ?? null, voided: result.count });
  return json({ voided: result.count });
});

const FETCH_TIMEOUT_MS = 15_000;

/** The ids of an OpenAI-style model list, `{data: [{id}]}`. */
function openAiModelIds(body: unknown): string[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new TypeError("not a model list");
  return data.map((entry) => (entry as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === "string");
}

export const fetchChannelModels = adminRoute(async (_request, params) => {
  const channel = await db().channel.findUnique({ where: { id: params.id } });
  if (!channel) throw new GatewayError("not_found", "No channel with this id");
  const apiKey = channel.apiKey ? decrypt(channel.apiKey, env().secret) : "";
  const listing = providerOf(channel.type as ChannelType).modelList({
    baseUrl: channel.baseUrl,
    apiKey,
    settings: (channel.settings ?? {}) as Record<string, unknown>,
  });
  if (!listing) return json({ models: (await listCatalog()).map((entry) => entry.id).sort() });
  const { url, headers } = listing;
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    throw new GatewayError("upstream_error", `Could not reach ${url}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok)
    throw new GatewayError("upstream_error", `The upstream answered ${response.status} to GET ${url}: ${text.slice(0, 300)}`);
  let ids: string[];
  try {
    ids = (listing.ids ?? openAiModelIds)(JSON.parse(text));
  } catch {
    throw new GatewayError("upstream_error", `The upstream's answer to GET ${url} is not a model list`);
  }
  return json({ models: [...new Set(ids)].sort() });
});

type ChannelStats = { channel: string; requests: number; errors: number; revenue: number; latencies: number[] };

/** The p50 of a list of latencies (ms), or null. */
function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** How many ledger rows the overview reads at most (the newest); the answer says when it stopped there. */
const OVERVIEW_ROWS = 200_000;

export const overviewQuery = z.object({ hours: queryLimit(24, 24 * 31) });

export const overview = adminRoute(async (request) => {
  const { hours } = parseQuery(request, overviewQuery);
  await flushLedger();
  const since = new Date(Date.now() - hours * 3600_000);
  const rows = await db().usageLog.findMany({
    where: { kind: "request", createdAt: { gte: since } },
    select: { channelName: true, status: true, cost: true, latencyMs: true, createdAt: true },
    orderBy: { createdAt: "desc" },
    take: OVERVIEW_ROWS,
  });
  const channels = new Map<string, ChannelStats>();
  const bucketMs = hours <= 48 ? 3600_000 : 24 * 3600_000;
  const series = new Map<number, { requests: number; errors: number; revenue: number }>();
  for (const row of rows) {
    const name = row.channelName ?? "(none)";
    const stats = channels.get(name) ?? { channel: name, requests: 0, errors: 0, revenue: 0, latencies: [] };
    const failed = row.status !== "success";
    stats.requests++;
    if (failed) stats.errors++;
    stats.revenue += Number(row.cost);
    if (row.latencyMs > 0) stats.latencies.push(row.latencyMs);
    channels.set(name, stats);
    const bucket = Math.floor(row.createdAt.getTime() / bucketMs) * bucketMs;
    const point = series.get(bucket) ?? { requests: 0, errors: 0, revenue: 0 };
    point.requests++;
    if (failed) point.errors++;
    point.revenue += Number(row.cost);
    series.set(bucket, point);
  }
  // Settlements the ledger writer could not write (docs/billing.md, "The ledger writer"): any is for an operator to settle.
  const deadLetters = await db().ledgerDeadLetter.count();
  // Without SMTP every message waits in the outbox for the operator to pass it on (a reset link, a confirmation).
  const [waiting, failed] = await Promise.all([
    db().emailOutbox.count({ where: { status: "logged" } }),
    db().emailOutbox.count({ where: { status: "failed" } }),
  ]);
  return json({
    hours,
    since,
    truncated: rows.length === OVERVIEW_ROWS,
    deadLetters,
    mail: { configured: Boolean(env().SMTP_URL), waiting, failed },
    channels: [...channels.values()]
      .map(({ latencies, ...stats }) => ({
        ...stats,
        errorRate: stats.requests ? stats.errors / stats.requests : 0,
        latencyP50: median(latencies),
      }))
      .sort((a, b) => b.requests - a.requests),
    series: [...series.entries()].sort(([a], [b]) => a - b).map(([at, point]) => ({ at: new Date(at), ...point })),
  });
});
