// The route table for everything served by plain handlers: /v1, /api/user and /api/admin. It is built once, from the
// lists of route definitions (docs/routes.md), and serves both the production server (server.ts dispatches to it
// directly: no Next.js router on the hot path) and the catch-all route files under app/ that `next dev` and the
// portal's build use (lib/server/next-route.ts).
import type { Dialect } from "@/lib/platform/errors";
import type { RouteDefinition, RouteHandler } from "@/lib/platform/http/route-definition";
import { checkingAnswers } from "@/lib/platform/http/answer-check";
import { isStorableText } from "@/lib/platform/text";
import { adminRoutes } from "@/lib/admin-api/routes";
import { userRoutes } from "@/lib/account-api/routes";
import { gatewayRoutes, playgroundRoutes } from "@/lib/gateway/routes";

export type { RouteHandler };

/** Every endpoint the table serves, in the order it tries them. */
export const routeDefinitions: readonly RouteDefinition[] = [...adminRoutes, ...userRoutes, ...gatewayRoutes, ...playgroundRoutes];

type Route = { method: string; path: string; pattern: RegExp; names: string[]; handler: RouteHandler };

export type Match = { handler: RouteHandler; params: Record<string, string> } | { allowed: string[] } | null;

export type RouteTable = { match: (method: string, pathname: string) => Match };

function compile(definition: RouteDefinition, checkAnswers: boolean): Route {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${definition.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}/?$`,
  );
  const handler = checkAnswers ? checkingAnswers(definition) : definition.handler;
  return { method: definition.method, path: definition.path, pattern, names, handler };
}

export const PLAIN_PREFIXES = ["/v1/", "/v1beta/", "/api/admin/", "/api/user/"];

export function isPlainPath(pathname: string): boolean {
  return PLAIN_PREFIXES.some((prefix) => pathname.startsWith(prefix)) || pathname === "/v1";
}

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
        "authorization, x-api-key, x-goog-api-key, content-type, anthropic-version, anthropic-beta",
      "access-control-max-age": "86400",
    },
  });
}

/**
 * The table of these definitions. "METHOD path" -> handler for the routes without parameters that no earlier route
 * also matches: one map lookup instead of trying the table's ~70 patterns in order (~8 µs of a chat request, most of
 * them before /v1). Anything else (parameters, a method the path does not take, a preflight) goes through the
 * patterns in order. With `checkAnswers` every handler's answers are checked against its definition
 * (lib/platform/http/answer-check.ts); otherwise the handlers are called as they are.
 */
export function buildRouteTable(definitions: readonly RouteDefinition[], options: { checkAnswers?: boolean } = {}): RouteTable {
  const table = definitions.map((definition) => compile(definition, options.checkAnswers === true));
  const exact = new Map<string, RouteHandler>();
  table.forEach((entry, index) => {
    if (entry.names.length) return;
    const shadowed = table.slice(0, index).some((earlier) => earlier.method === entry.method && earlier.pattern.test(entry.path));
    if (!shadowed) exact.set(`${entry.method} ${entry.path}`, entry.handler);
  });

  function match(method: string, pathname: string): Match {
    const direct = exact.get(`${method} ${pathname.endsWith("/") ? pathname.slice(0, -1) : pathname}`);
    if (direct) return { handler: direct, params: {} };
    if (method === "OPTIONS" && /^\/v1(beta)?\//.test(pathname) && table.some((entry) => entry.pattern.test(pathname)))
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
  return { match };
}

let served: RouteTable | null = null;

/**
 * The gateway's table, built once (server.ts builds it at start-up; a route file on first use). GATEWAY_CHECK_ANSWERS=1 (set by the integration tests' harness,
 * tests/helpers/gateway.ts; never in production) turns on the answer check.
 */
export function servedRoutes(): RouteTable {
  served ??= buildRouteTable(routeDefinitions, { checkAnswers: process.env.GATEWAY_CHECK_ANSWERS === "1" });
  return served;
}

export function matchRoute(method: string, pathname: string): Match {
  return servedRoutes().match(method, pathname);
}

/** The error dialect of a path no route matched (or a method it does not take). */
export function dialectFor(pathname: string): Dialect {
  if (pathname.startsWith("/v1/messages")) return "anthropic";
  if (pathname.startsWith("/v1beta/")) return "google";
  if (pathname.startsWith("/v1")) return "openai";
  return "plain";
}
