// The route table for everything served by plain handlers: /v1, /api/user and /api/admin.
// server.ts dispatches these directly (no Next.js router on the hot path); app/**/route.ts files re-export the
// same handlers so `next dev` serves them too. Each issue adds its lines here.
import * as admin from "@/lib/admin-api/handlers";
import { getSettings, updateSettings } from "@/lib/admin-api/settings";
import * as tools from "@/lib/admin-api/operator-tools";
import { listAudit } from "@/lib/admin-api/audit";
import { adminRoute } from "@/lib/admin-api/handlers";
import { isStorableText } from "@/lib/platform/text";

const audit = adminRoute((request) => listAudit(request));
import * as moderation from "@/lib/admin-api/moderation";
import { getCatalog, putCatalogEntry } from "@/lib/admin-api/catalog";
import { testChannel } from "@/lib/admin-api/channel-test";
import { userRoutes } from "@/lib/account-api/routes";
import { gatewayRoutes } from "@/lib/gateway/routes";
import { playgroundRoutes } from "@/lib/gateway/playground";

export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response>;
type Route = { method: string; path: string; pattern: RegExp; names: string[]; handler: RouteHandler };

const table: Route[] = [];

function route(method: string, path: string, handler: RouteHandler): void {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}/?$`,
  );
  table.push({ method, path, pattern, names, handler });
}

// Operator API
route("POST", "/api/admin/users", admin.createUser);
route("GET", "/api/admin/users", admin.listUsers);
route("PATCH", "/api/admin/users/{id}", admin.updateUser);
route("POST", "/api/admin/keys", admin.createKey);
route("GET", "/api/admin/keys", admin.listKeys);
route("PATCH", "/api/admin/keys/{id}", admin.updateKey);
route("DELETE", "/api/admin/keys/{id}", admin.deleteKey);
route("POST", "/api/admin/groups", admin.upsertGroup);
route("GET", "/api/admin/groups", admin.listGroups);
route("POST", "/api/admin/channels", admin.createChannel);
route("GET", "/api/admin/channels", admin.listChannels);
route("PATCH", "/api/admin/channels/{id}", admin.updateChannel);
route("DELETE", "/api/admin/channels/{id}", admin.deleteChannel);
route("POST", "/api/admin/channels/{id}/test", testChannel);
route("POST", "/api/admin/prices", admin.upsertPrice);
route("GET", "/api/admin/prices", admin.listPrices);
route("GET", "/api/admin/catalog", getCatalog);
route("PUT", "/api/admin/catalog/{model}", putCatalogEntry);
route("POST", "/api/admin/redeem-codes", admin.createRedeemCodes);
route("GET", "/api/admin/redeem-codes", admin.listRedeemCodes);
route("GET", "/api/admin/usage", admin.listUsage);
route("GET", "/api/admin/outbox", admin.listOutbox);
route("GET", "/api/admin/settings", getSettings);
route("POST", "/api/admin/settings", updateSettings);
route("GET", "/api/admin/moderation", moderation.getModeration);
route("POST", "/api/admin/moderation", moderation.updateModeration);
route("POST", "/api/admin/users/{id}/reset-2fa", tools.resetUserTwoFactor);
route("POST", "/api/admin/users/{id}/send-reset", tools.sendUserResetLink);
route("POST", "/api/admin/redeem-codes/void", tools.voidCodes);
route("POST", "/api/admin/channels/{id}/fetch-models", tools.fetchChannelModels);
route("GET", "/api/admin/overview", tools.overview);
route("GET", "/api/admin/audit", audit);

for (const [method, path, handler] of [...userRoutes, ...gatewayRoutes, ...playgroundRoutes]) route(method, path, handler);

export const PLAIN_PREFIXES = ["/v1/", "/api/admin/", "/api/user/"];

export function isPlainPath(pathname: string): boolean {
  return PLAIN_PREFIXES.some((prefix) => pathname.startsWith(prefix)) || pathname === "/v1";
}

export type Match = { handler: RouteHandler; params: Record<string, string> } | { allowed: string[] } | null;

/**
 * A browser's preflight for a /v1 endpoint: any origin may call the API with a key and no cookies (browser clients of
 * the vendors' SDKs call it directly); the actual answers carry `access-control-allow-origin: *` (lib/gateway/pipeline.ts).
 */
async function preflight(request: Request): Promise<Response> {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers":
        request.headers.get("access-control-request-headers") ??
        "authorization, x-api-key, content-type, anthropic-version, anthropic-beta",
      "access-control-max-age": "86400",
    },
  });
}

/**
 * "METHOD path" -> handler for the routes without parameters that no earlier route in the table also matches: one map
 * lookup instead of trying the table's ~70 patterns in order (~8 µs of a chat request, most of them before /v1).
 * Anything else (parameters, a method the path does not take, a preflight) goes through the table as before.
 */
let exact: Map<string, RouteHandler> | null = null;

function exactRoutes(): Map<string, RouteHandler> {
  const map = new Map<string, RouteHandler>();
  table.forEach((entry, index) => {
    if (entry.names.length) return;
    const shadowed = table.slice(0, index).some((earlier) => earlier.method === entry.method && earlier.pattern.test(entry.path));
    if (!shadowed) map.set(`${entry.method} ${entry.path}`, entry.handler);
  });
  return map;
}

export function matchRoute(method: string, pathname: string): Match {
  exact ??= exactRoutes();
  const direct = exact.get(`${method} ${pathname.endsWith("/") ? pathname.slice(0, -1) : pathname}`);
  if (direct) return { handler: direct, params: {} };
  if (method === "OPTIONS" && pathname.startsWith("/v1/") && table.some((entry) => entry.pattern.test(pathname)))
    return { handler: preflight, params: {} };
  const allowed: string[] = [];
  for (const entry of table) {
    const found = entry.pattern.exec(pathname);
    if (!found) continue;
    if (entry.method !== method) {
      allowed.push(entry.method);
      continue;
    }
    const params: Record<string, string> = {};
    // A parameter that does not decode ("%ZZ"), or decodes to text no database holds ("%00": PostgreSQL refuses NUL
    // even in a lookup), is kept as sent: it names no object, so the handler answers 404.
    entry.names.forEach((name, index) => {
      const sent = found[index + 1]!;
      try {
        const decoded = decodeURIComponent(sent);
        params[name] = isStorableText(decoded) ? decoded : sent;
      } catch {
        params[name] = sent;
      }
    });
    return { handler: entry.handler, params };
  }
  return allowed.length ? { allowed } : null;
}
