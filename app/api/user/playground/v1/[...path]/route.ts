// POST /api/user/playground/v1/… (handlers: lib/gateway/playground.ts; the production server calls them directly).
import { playgroundRoutes } from "@/lib/gateway/playground";

export async function POST(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  const found = playgroundRoutes.find(([, route]) => route === path);
  if (!found)
    return Response.json(
      { error: { message: `No playground route ${path}`, type: "invalid_request_error", code: "not_found", param: null } },
      { status: 404 },
    );
  return found[2](request, {});
}
