// The wrapper of every operator call (/api/admin/*): auth (requireAdmin), error mapping, the request id and the audit
// row (lib/admin-api/audit.ts), and the field rules several resources share.
import { z } from "zod";
import { recordAudit } from "./audit";
import { GatewayError, errorResponse } from "@/lib/platform/errors";
import { requestIdOf } from "@/lib/platform/http/json";
import { setResponseHeaders } from "@/lib/platform/http/direct-body";
import { log } from "@/lib/platform/log";
import { requireAdmin, type AdminActor } from "@/lib/auth/admin";

type Params = Record<string, string>;
type AdminHandler = (request: Request, params: Params, actor: AdminActor) => Promise<Response>;

/** Auth, error mapping, the request id and the audit row (lib/admin-api/audit.ts) for every operator call. */
export function adminRoute(handler: AdminHandler) {
  return async (request: Request, params: Params = {}): Promise<Response> => {
    const requestId = requestIdOf(request);
    try {
      const actor = await requireAdmin(request);
      const response = await handler(request, params, actor);
      setResponseHeaders(response, { "x-request-id": requestId });
      if (request.method !== "GET" && response.status < 400) await recordAudit(request, params, actor, response.status);
      return response;
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("admin handler failed", { requestId, error, path: new URL(request.url).pathname });
      return errorResponse(error, "plain", { "x-request-id": requestId });
    }
  };
}

export const quota = z.number().int("must be a whole number of micro-USD").min(0).max(Number.MAX_SAFE_INTEGER);
export const date = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((value) => new Date(value));
export const modelList = z.array(z.string().trim().min(1).max(200)).max(500);
