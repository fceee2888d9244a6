// One audit trail for every operator write: adminRoute (lib/admin-api/route.ts)
// records each successful non-GET call with who made it, the route, the object it concerned and the answer's
// status; a handler may add details (never secrets: no passwords, keys or codes) with auditDetail().
//   GET /api/admin/audit?targetId=&limit=&before=   newest first
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, parseQuery } from "@/lib/platform/http/json";
import { log } from "@/lib/platform/log";
import type { AdminActor } from "@/lib/auth/admin";
import { cappedText, storableJson } from "@/lib/platform/text";
import { queryFilter, queryLimit } from "./query";

const AUDIT_DETAIL_BOUNDS = { maxString: 1_000, maxDepth: 8, maxEntries: 100 };

const details = new WeakMap<Request, Record<string, unknown>>();

/** Adds details to the audit row of this operator call. */
export function auditDetail(request: Request, detail: Record<string, unknown>): void {
  details.set(request, { ...(details.get(request) ?? {}), ...detail });
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
  const target = params.id ?? params.model;
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

export const auditQuery = z.object({ targetId: queryFilter, limit: queryLimit(100, 1000) });

export async function listAudit(request: Request): Promise<Response> {
  const { targetId, limit } = parseQuery(request, auditQuery);
  const rows = await db().auditLog.findMany({ where: targetId ? { targetId } : undefined, orderBy: { createdAt: "desc" }, take: limit });
  return json({ data: rows });
}
