// The portal's playground calls the real endpoints through the signed-in session, so no API key ever lives in the
// browser: POST /api/user/playground/v1/{chat/completions | messages | responses | images/generations | images/edits |
// audio/speech | audio/transcriptions} is the /v1 endpoint itself (same handler, validation, reservation, settlement,
// ledger), authenticated by the session cookie (plus the cross-site check every cookie write passes; the multipart
// ones, edits and transcriptions, with the portal's header) and billed through the user's playground key
// (lib/keys/playground.ts). `?group=` picks the group for a first key; the Renew button moves it (lib/account-api/playground.ts).
import { GatewayError, errorResponse, type Dialect } from "@/lib/platform/errors";
import { readSessionRecord } from "@/lib/auth/session";
import { checkCookieWrite } from "@/lib/auth/cross-site";
import { allowedGroups } from "@/lib/accounts/groups";
import { ensurePlaygroundKey } from "@/lib/keys/playground";
import { findKey } from "@/lib/keys/lookup";
import { defineRoute, type RouteDefinition, type RouteHandler } from "@/lib/platform/http/route-definition";
import { usablePrincipal, withPrincipal } from "./pipeline";

/** A /v1 handler run with the signed-in user's playground key (the routes: playgroundCopy). */
export function throughSession(handler: RouteHandler, dialect: Dialect, options: { multipart?: boolean } = {}): RouteHandler {
  return async (request, params) => {
    try {
      const user = await readSessionRecord(request);
      if (!user) throw new GatewayError("unauthenticated", "Sign in first: the playground runs with your portal session");
      checkCookieWrite(request, { allowMultipart: options.multipart });
      const groups = await allowedGroups(user);
      const wanted = new URL(request.url).searchParams.get("group");
      const group = wanted && groups.includes(wanted) ? wanted : groups.includes("default") ? "default" : groups[0];
      if (!group)
        throw new GatewayError("forbidden", "No key group is open to your account, so the playground cannot run. Ask the operator.");
      const key = await ensurePlaygroundKey(user.id, group);
      const principal = await findKey(key.keyHash);
      if (!principal) throw new GatewayError("conflict", "The playground key changed meanwhile; try again");
      return await handler(withPrincipal(request, usablePrincipal(principal)), params);
    } catch (error) {
      return errorResponse(error, dialect, { "cache-control": "no-store" });
    }
  };
}

/**
 * The playground's copy of a /v1 endpoint's definition: the same schemas and handler under
 * `/api/user/playground/v1/...`, authenticated by the session. A multipart endpoint is called with the x-gateway-portal
 * header in place of the JSON content type (lib/auth/cross-site.ts).
 */
export function playgroundCopy<const Definition extends RouteDefinition & { dialect: Dialect }>(definition: Definition) {
  return defineRoute({
    ...definition,
    path: `/api/user/playground${definition.path}`,
    auth: "session",
    handler: throughSession(definition.handler, definition.dialect, { multipart: definition.request.multipart !== undefined }),
  });
}
