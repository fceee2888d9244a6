// One audit trail for every operator write: adminRoute (lib/admin-api/route.ts)
// records each successful non-GET call with who made it, the route, the object it concerned and the answer's
// status; a handler may add details (never secrets: no passwords, keys or codes) with auditDetail().
//   GET /api/admin/audit?targetId=&actor=&kind=&from=&to=&limit=   newest first, each row with its kind and a sentence
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, parseQuery } from "@/lib/platform/http/json";
import { log } from "@/lib/platform/log";
import type { AdminActor } from "@/lib/auth/admin";
import { cappedText, storableJson } from "@/lib/platform/text";
import { queryFilter, queryFrom, queryLimit, queryTo } from "./query";
import { AUDIT_KINDS, auditKindOf, auditSummary, type AuditKind } from "./audit-words";

const AUDIT_DETAIL_BOUNDS = { maxString: 1_000, maxDepth: 8, maxEntries: 100 };

const details = new WeakMap<Request, Record<string, unknown>>();

const targets = new WeakMap<Request, string>();

/** Names the object a call created (its id is not in the path), so the log finds it by `targetId` too. */
export function auditTarget(request: Request, id: string): void {
  targets.set(request, id);
}

/** Adds details to the audit row of this operator call. */
export function auditDetail(request: Request, detail: Record<string, unknown>): void {
  details.set(request, { ...(details.get(request) ?? {}), ...detail });
}

/** A field whose value the audit never records, only that it changed: an upstream key, a password, a token. */
const SECRET_FIELD = /key|secret|token|password|credential|private/i;
const HIDDEN = "(not shown)";

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** `value` with the values of secret-named fields at any depth replaced by "(not shown)". */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!value || typeof value !== "object" || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, inner]) => [
      name,
      SECRET_FIELD.test(name) && inner !== "" && inner !== null ? HIDDEN : withoutSecrets(inner),
    ]),
  );
}

/**
 * Records what a write changed (docs/api.md, "The audit log"): `name` (what the object is called, for the log's words)
 * and, per field of `after` that differs from `before`, `{before, after}` (`before` null for a new object). A field
 * named like a secret (key, secret, token, password, credential) is recorded as changed, never its value; so is every
 * secret-named field inside a value (a channel's settings).
 */
export function auditChanges(request: Request, name: string, before: Record<string, unknown> | null, after: Record<string, unknown>): void {
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const [field, value] of Object.entries(after)) {
    const old = before ? before[field] : null;
    if (value === undefined || (before && same(old, value))) continue;
    changes[field] = SECRET_FIELD.test(field)
      ? { before: before && old ? HIDDEN : null, after: value ? HIDDEN : null }
      : { before: withoutSecrets(old ?? null), after: withoutSecrets(value) };
  }
  auditDetail(request, { name, changes });
}

/** "/api/admin/users/ck123/reset-2fa" with {id: "ck123"} → "/api/admin/users/{id}/reset-2fa". */
function routeOf(pathname: string, params: Record<string, string>): string {
  let route = pathname;
  for (const [name, value] of Object.entries(params))
    if (value) route = route.replace(`/${encodeURIComponent(value)}`, `/{${name}}`).replace(`/${value}`, `/{${name}}`);
  return route;
}

export async function recordAudit(request: Request, params: Record<string, string>, actor: AdminActor, status: number): Promise<void> {
  const pathname = new URL(request.url).pathname;
  const target = params.id ?? params.model ?? targets.get(request);
  try {
    await db().auditLog.create({
      data: {
        actor: actor.kind === "master" ? "master key" : actor.user.email,
        actorId: actor.kind === "master" ? null : actor.user.id,
        action: `${request.method} ${routeOf(pathname, params)}`,
        path: pathname,
        targetId: target ? cappedText(target, 200) : null,
        status,
        // Details are the handler's own values, mostly from a body readBody checked; cleaned all the same, so a
        // string no database holds can never cost the audit row (lib/platform/text.ts).
        detail: storableJson(details.get(request) ?? {}, AUDIT_DETAIL_BOUNDS) as object,
      },
    });
  } catch (error) {
    // The write itself happened; a missing audit row must be loud, not silent.
    log.error("audit row not written", { error, path: pathname });
  }
}

export const auditQuery = z
  .object({
    targetId: queryFilter,
    /** Who: "master key" or an admin's email (exact). */
    actor: queryFilter,
    /** What kind of object: channel, group, price, settings, user, key, code, catalog or moderation. */
    kind: z.preprocess(
      (value) => (value === "" ? undefined : value),
      z
        .enum(Object.keys(AUDIT_KINDS) as [AuditKind, ...AuditKind[]], { error: `must be one of ${Object.keys(AUDIT_KINDS).join(", ")}` })
        .optional(),
    ),
    from: queryFrom,
    to: queryTo,
    limit: queryLimit(100, 1000),
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, { message: "must be after 'from'", path: ["to"] });

export async function listAudit(request: Request): Promise<Response> {
  const { targetId, actor, kind, from, to, limit } = parseQuery(request, auditQuery);
  const prefix = kind ? AUDIT_KINDS[kind] : null;
  const rows = await db().auditLog.findMany({
    where: {
      targetId,
      actor,
      ...(prefix ? { OR: [{ action: { endsWith: ` ${prefix}` } }, { action: { contains: ` ${prefix}/` } }] } : {}),
      ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: limit,
  });
  return json({ data: rows.map((row) => ({ ...row, kind: auditKindOf(row.action), summary: auditSummary(row) })) });
}
