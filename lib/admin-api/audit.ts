// One audit trail for every operator write: adminRoute (lib/admin-api/handlers.ts)
// records each successful non-GET call with who made it, the route, the object it concerned and the answer's
// status; a handler may add details (never secrets: no passwords, keys or codes) with auditDetail().
//   GET /api/admin/audit?targetId=&limit=&before=   newest first
import { db } from "@/lib/platform/db/client";
import { json } from "@/lib/platform/http/json";
import { log } from "@/lib/platform/log";
import type { AdminActor } from "@/lib/auth/admin";

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
  try {
    await db().auditLog.create({
      data: {
        actor: actor.kind === "master" ? "master key" : actor.user.email,
        actorId: actor.kind === "master" ? null : actor.user.id,
        action: `${request.method} ${routeOf(pathname, params)}`,
        path: pathname,
        targetId: params.id ?? params.model ?? null,
        status,
        detail: (details.get(request) ?? {}) as object,
      },
    });
  } catch (error) {
    // The write itself happened; a missing audit row must be loud, not silent.
    log.error("audit row not written", { error, path: pathname });
  }
}

export async function listAudit(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const targetId = url.searchParams.get("targetId") || undefined;
  const limit = Math.min(Math.max(Number(url.searchParams.get("limit")) || 100, 1), 1000);
  const rows = await db().auditLog.findMany({ where: targetId ? { targetId } : undefined, orderBy: { createdAt: "desc" }, take: limit });
  return json({ data: rows });
}
