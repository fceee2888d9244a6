// The one wrapper for the account API (/api/user/*): request id, who is calling, error mapping (plain dialect).
// Three kinds of endpoint:
//   publicRoute        no authentication (sign-up, password reset)
//   sessionRoute       the portal's session cookie only; a request carrying an API key is refused with 403, so a
//                      leaked key can never reach keys, 2FA or the password (SECURITY.md: object-level checks, sessions)
//   sessionOrKeyRoute  the session cookie, or `Authorization: Bearer sk-…` of the same user (topup, docs/api.md §5)
import { checkCookieWrite } from "@/lib/auth/cross-site";
import { GatewayError, errorResponse } from "@/lib/platform/errors";
import { sha256 } from "@/lib/platform/crypto";
import { requestIdOf } from "@/lib/platform/http/json";
import { setResponseHeaders } from "@/lib/platform/http/direct-body";
import { log } from "@/lib/platform/log";
import { KEY_PATTERN } from "@/lib/keys/format";
import { findKey } from "@/lib/keys/lookup";
import { STOPPED_KEY_MESSAGE } from "@/lib/keys/controls";
import { clientAddressFrom, readSessionRecord } from "@/lib/auth/session";
import { lockedMessage, type ThrottleDecision } from "@/lib/accounts/throttle";

type Params = Record<string, string>;

export type UserRow = NonNullable<Awaited<ReturnType<typeof readSessionRecord>>>;

export type CallContext = {
  requestId: string;
  /** The client's address for throttling, or null when unknown. */
  address: string | null;
};

export type SessionContext = CallContext & { user: UserRow };

/** Who is calling topup: the session's user, or the owner of the API key. */
export type Caller = CallContext & { userId: string; via: "session" | "key"; keyId: string | null; keyPrefix: string | null };

function wrap(run: (request: Request, params: Params, context: CallContext) => Promise<Response>) {
  return async (request: Request, params: Params = {}): Promise<Response> => {
    const requestId = requestIdOf(request);
    const context: CallContext = { requestId, address: clientAddressFrom((name) => request.headers.get(name)) };
    try {
      const response = await run(request, params, context);
      setResponseHeaders(response, { "x-request-id": requestId, "cache-control": "no-store" });
      return response;
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("user handler failed", { requestId, error, path: new URL(request.url).pathname });
      return errorResponse(error, "plain", { "x-request-id": requestId, "cache-control": "no-store" });
    }
  };
}

export function publicRoute(handler: (request: Request, params: Params, context: CallContext) => Promise<Response>) {
  return wrap(handler);
}

/**
 * An API key in either of the forms the gateway knows. Other Authorization schemes (say Basic, from a proxy that
 * guards the whole portal with a password) are not ours and are ignored.
 */
function carriesApiKey(request: Request): boolean {
  return /^\s*Bearer(\s|$)/i.test(request.headers.get("authorization") ?? "") || request.headers.has("x-api-key");
}

const DEFAULT_KEY_REFUSAL = "This endpoint needs a signed-in session (the portal's cookie); API keys are not accepted here";

/** Session only. `keyRefusal` is the 403 message for a request that carries an API key. */
export function sessionRoute(
  handler: (request: Request, params: Params, context: SessionContext) => Promise<Response>,
  options: { keyRefusal?: string } = {},
) {
  return wrap(async (request, params, context) => {
    // Refused even alongside a valid cookie: the rule is simple to state and to test, and no legitimate portal
    // request sends an API key.
    if (carriesApiKey(request)) throw new GatewayError("forbidden", options.keyRefusal ?? DEFAULT_KEY_REFUSAL);
    const user = await readSessionRecord(request);
    if (!user) throw new GatewayError("unauthenticated", "Sign in first: this endpoint needs the portal's session cookie");
    checkCookieWrite(request);
    return handler(request, params, { ...context, user });
  });
}

/** Session, or `Authorization: Bearer sk-…`: an API key acts for its owner (and takes precedence over a cookie). */
export function sessionOrKeyRoute(handler: (request: Request, params: Params, caller: Caller) => Promise<Response>) {
  return wrap(async (request, params, context) => {
    const authorization = request.headers.get("authorization") ?? "";
    if (/^\s*Bearer(\s|$)/i.test(authorization)) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!match || !KEY_PATTERN.test(match[1]!)) {
        throw new GatewayError("invalid_api_key", "Authorization must be 'Bearer sk-…' with one of your API keys, or sign in");
      }
      const principal = await findKey(sha256(match[1]!));
      if (!principal || principal.deleted) throw new GatewayError("invalid_api_key", "Invalid API key");
      if (principal.status !== "active") throw new GatewayError("disabled_api_key", STOPPED_KEY_MESSAGE[principal.status]);
      if (principal.userStatus !== "active") throw new GatewayError("disabled_api_key", "The account that owns this API key is disabled");
      if (principal.expiresAt !== null && principal.expiresAt <= Date.now())
        throw new GatewayError("expired_api_key", "This API key has expired");
      return handler(request, params, {
        ...context,
        userId: principal.userId,
        via: "key",
        keyId: principal.keyId,
        keyPrefix: principal.prefix,
      });
    }
    if (request.headers.has("x-api-key")) throw new GatewayError("wrong_auth_scheme", "Send the key as 'Authorization: Bearer sk-…'");
    const user = await readSessionRecord(request);
    if (!user) throw new GatewayError("unauthenticated", "Sign in, or send 'Authorization: Bearer sk-…' with one of your API keys");
    checkCookieWrite(request);
    return handler(request, params, { ...context, userId: user.id, via: "session", keyId: null, keyPrefix: null });
  });
}

/** Runs `work` after the response has been sent; failures are logged, never thrown (the caller answered already). */
export function inBackground(what: string, work: () => Promise<unknown>): void {
  void Promise.resolve()
    .then(work)
    .catch((error) => log.error(`${what} failed`, { error }));
}

/** 429 with the lockout message and Retry-After. */
export function lockedError(decision: Extract<ThrottleDecision, { allowed: false }>): GatewayError {
  return new GatewayError("locked", lockedMessage(decision.retryAfterSeconds), {
    headers: { "retry-after": String(decision.retryAfterSeconds) },
  });
}
