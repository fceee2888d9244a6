// The catch-all route files under app/ (app/v1/[...path], app/api/user/[...path], app/api/admin/[...path]) dispatch
// through the same route table as the production server (lib/server/routes.ts), so `next dev` and `next start` serve
// what server.ts serves, with the same answers for an unknown path or a method the path does not take.
import { dialectFor, matchRoute } from "./routes";
import { errorResponse, GatewayError } from "@/lib/platform/errors";

export async function dispatchThroughTable(request: Request): Promise<Response> {
  const pathname = new URL(request.url).pathname;
  const match = matchRoute(request.method, pathname);
  if (!match) return errorResponse(new GatewayError("not_found", `No such endpoint: ${request.method} ${pathname}`), dialectFor(pathname));
  if ("allowed" in match)
    return errorResponse(
      new GatewayError("method_not_allowed", `${request.method} is not allowed here; use ${match.allowed.join(" or ")}`, {
        headers: { allow: match.allowed.join(", ") },
      }),
      dialectFor(pathname),
    );
  return match.handler(request, match.params);
}
