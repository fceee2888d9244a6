// Adapts a plain handler to a Next.js route export (used by `next dev`; the production server calls the handler
// directly). Next passes dynamic segments as a Promise of params.
import { matchRoute, type RouteHandler } from "./routes";
import { errorResponse, GatewayError } from "@/lib/platform/errors";

type Context = { params?: Promise<Record<string, string | string[]>> };

export function nextRoute(handler: RouteHandler) {
  return async (request: Request, context?: Context): Promise<Response> => {
    const raw = context?.params ? await context.params : {};
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) params[name] = Array.isArray(value) ? value.join("/") : value;
    return handler(request, params);
  };
}

/** A catch-all route file dispatching through the same table as the production server. */
export async function dispatchThroughTable(request: Request): Promise<Response> {
  const pathname = new URL(request.url).pathname;
  const match = matchRoute(request.method, pathname);
  if (!match) return errorResponse(new GatewayError("not_found", `No such endpoint: ${request.method} ${pathname}`), "plain");
  if ("allowed" in match) return errorResponse(new GatewayError("method_not_allowed", `Use ${match.allowed.join(" or ")}`), "plain");
  return match.handler(request, match.params);
}
