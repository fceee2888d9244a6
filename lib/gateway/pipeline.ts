// The one wrapper every /v1 endpoint goes through (docs/decisions/0002-one-auth-wrapper.md): key parsing per endpoint group,
// lookup by hash, expiry and status, group -> model, rate limit; then reserve -> settle money (docs/decisions/0003-reserve-then-settle.md).
// Handlers never repeat any of this.
import { GatewayError, errorResponse, type Dialect } from "@/lib/platform/errors";
import { hashApiKey, KEY_PATTERN } from "@/lib/keys/format";
import { findKey, type KeyPrincipal } from "@/lib/keys/lookup";
import { STOPPED_KEY_MESSAGE } from "@/lib/keys/controls";
import { requestIdOf } from "@/lib/platform/http/json";
import { setResponseHeaders } from "@/lib/platform/http/direct-body";
import { log } from "@/lib/platform/log";
import { groupOf, priceOf } from "@/lib/money/prices";
import type { Failover } from "@/lib/money/reserve";
import { catalogEntry } from "@/lib/catalog";
import { checkCountTokensLimit, checkRateLimit } from "./rate-limit";
import { observeRequest } from "@/lib/platform/metrics";
import { clientAddress } from "@/lib/platform/http/client-address";
import { traceRequest, type RequestTrace } from "@/lib/platform/tracing";

/** How the key is presented: per the spec's endpoint groups, or either way (the model list, read by both SDKs);
 *  `google`: Gemini's API (/v1beta), in x-goog-api-key or the `key` query parameter, as Google takes it. */
export type Scheme = "bearer" | "x-api-key" | "either" | "google";

export type GatewayContext = {
  request: Request;
  requestId: string;
  principal: KeyPrincipal;
  endpoint: string;
  dialect: Dialect;
  startedAt: number;
  /** Timing and failovers for the ledger row, set by the failover loop (lib/gateway/relay.ts; lib/money/reserve.ts, `Payer`). */
  upstreamAt?: number;
  answeredAt?: number;
  failovers?: Failover[];
  /** Milliseconds spent waiting on upstreams (every attempt, lib/gateway/relay.ts): what x-gateway-overhead-ms leaves out. */
  upstreamMs?: number;
  /** The request's span when tracing is on (lib/platform/tracing.ts); the failover loop and the reservation add to it. */
  trace?: RequestTrace;
  /** The GenAI semantic conventions' operation name of the route (RouteConfig), for the spans. */
  operation?: string;
};

/**
 * x-gateway-overhead-ms (docs/api.md, "The gateway's own time"): the time from the request's arrival to its answer's
 * headers, less the time spent waiting on upstreams, so the gateway's own share of the latency a client sees. For a
 * stream the answer's headers go out once the upstream's have come, so it is the time before the upstream's first
 * byte; an answer that never reached an upstream (a refusal, /v1/models) is all the gateway's.
 */
export function overheadMs(context: Pick<GatewayContext, "startedAt" | "upstreamMs">, now = performance.now()): string {
  return Math.max(0, now - context.startedAt - (context.upstreamMs ?? 0)).toFixed(2);
}

const SCHEME_HINT: Record<Scheme, string> = {
  bearer: "'Authorization: Bearer sk-...'",
  "x-api-key": "'x-api-key: sk-...'",
  either: "'Authorization: Bearer sk-...' or 'x-api-key: sk-...'",
  google: "'x-goog-api-key: sk-...' or '?key=sk-...'",
};

/** The token of an `Authorization: Bearer ...` header; the scheme is case-insensitive (RFC 9110 §11.1), and one space
 * follows it: a key with spaces around it is a mistyped key (docs/api.md §7), refused as malformed. */
export function bearerToken(authorization: string): string | null {
  const match = /^bearer (.*)$/is.exec(authorization);
  return match ? match[1]! : null;
}

/** An `Authorization` header that names the Bearer scheme and nothing else: what `-H "Authorization: Bearer $KEY"`
 * sends while the variable is unset (the trailing space is dropped on the way in). */
function emptyBearer(authorization: string): boolean {
  return /^\s*bearer\s*$/i.test(authorization);
}

/** The 401 for a request that carries no key: said plainly, with the header this endpoint reads. */
function noKeySent(scheme: Scheme, cause: string | null): GatewayError {
  const why = cause ? `: ${cause} (is the variable that should hold your key set? e.g. export GATEWAY_API_KEY=sk-...)` : "";
  return new GatewayError("missing_api_key", `No API key was sent${why}; send ${SCHEME_HINT[scheme]}`);
}

const EMPTY_BEARER = "the Authorization header is 'Bearer' with no key after it";
const EMPTY_X_API_KEY = "the x-api-key header is empty";

/** Reads the key the way the endpoint group expects it (docs/api.md §5); anything else is a 401 naming the cause. */
export function extractKey(request: Request, scheme: Scheme): string {
  const authorization = request.headers.get("authorization");
  const apiKeyHeader = request.headers.get("x-api-key");
  if (scheme === "google") return googleKey(request, authorization ?? apiKeyHeader);
  if (scheme === "either" && apiKeyHeader !== null && authorization === null) {
    if (apiKeyHeader.trim() === "") throw noKeySent(scheme, EMPTY_X_API_KEY);
    return apiKeyHeader;
  }
  if (scheme === "x-api-key") {
    if (apiKeyHeader !== null) {
      if (apiKeyHeader.trim() === "") throw noKeySent(scheme, EMPTY_X_API_KEY);
      return apiKeyHeader;
    }
    if (authorization !== null && emptyBearer(authorization)) throw noKeySent(scheme, EMPTY_BEARER);
    if (authorization)
      throw new GatewayError(
        "wrong_auth_scheme",
        `This endpoint takes the key in the x-api-key header, not in Authorization; send ${SCHEME_HINT[scheme]}`,
      );
    throw noKeySent(scheme, null);
  }
  if (authorization !== null) {
    if (emptyBearer(authorization)) throw noKeySent(scheme, EMPTY_BEARER);
    const token = bearerToken(authorization);
    if (token === null)
      throw new GatewayError("wrong_auth_scheme", `Authorization must use the Bearer scheme; send ${SCHEME_HINT[scheme]}`);
    return token;
  }
  if (apiKeyHeader !== null)
    throw new GatewayError(
      "wrong_auth_scheme",
      `This endpoint takes the key as a Bearer token, not in x-api-key; send ${SCHEME_HINT[scheme]}`,
    );
  throw noKeySent(scheme, null);
}

/** Gemini's key: the x-goog-api-key header, else `?key=` (never logged: the request log names the path alone). */
function googleKey(request: Request, otherHeader: string | null): string {
  const header = request.headers.get("x-goog-api-key");
  if (header !== null) return header;
  const query = request.url.includes("key=") ? new URL(request.url).searchParams.get("key") : null;
  if (query !== null) return query;
  if (otherHeader !== null)
    throw new GatewayError("wrong_auth_scheme", `This endpoint takes the key as Google's API does; send ${SCHEME_HINT.google}`);
  throw noKeySent("google", null);
}

export async function authenticate(request: Request, scheme: Scheme): Promise<KeyPrincipal> {
  const key = extractKey(request, scheme);
  // Shape first: spaces, missing characters or injection strings never reach the database (SECURITY.md: injection strings get a fast 401).
  if (!KEY_PATTERN.test(key))
    throw new GatewayError("invalid_api_key", "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces");
  const principal = await findKey(hashApiKey(key));
  if (!principal) throw new GatewayError("invalid_api_key", "Invalid API key: no such key");
  return usablePrincipal(principal);
}

/** The checks after the lookup: deleted, disabled, expired, owner disabled. */
export function usablePrincipal(principal: KeyPrincipal): KeyPrincipal {
  if (principal.deleted) throw new GatewayError("invalid_api_key", "This API key was deleted");
  // Who stopped it (docs/api.md, "Keys: the owner and the operator"): the owner can resume a pause, not a disable.
  if (principal.status !== "active") throw new GatewayError("disabled_api_key", STOPPED_KEY_MESSAGE[principal.status]);
  if (principal.expiresAt !== null && principal.expiresAt <= Date.now()) {
    throw new GatewayError("expired_api_key", `This API key expired at ${new Date(principal.expiresAt).toISOString()}`);
  }
  if (principal.userStatus !== "active") throw new GatewayError("disabled_api_key", "The account that owns this API key is disabled");
  return principal;
}

/**
 * The client's address as every throttle reads it: what server.ts set from the socket, or what trusted proxies
 * forwarded (lib/platform/http/client-address.ts); without that header (next dev) the last X-Forwarded-For hop is the
 * socket, read by the same rule.
 */
export function requestAddress(request: Request): string {
  const own = request.headers.get("x-gateway-client-address")?.trim();
  if (own) return own;
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const socket = hops.pop();
  return socket ? clientAddress(socket, hops.join(",")) : "";
}

/** 403 naming the address seen, for a key with an allowlist (the operator's, its owner's) that does not include it. */
export function checkAddress(principal: KeyPrincipal, request: Request): void {
  if (!principal.addressLists.length) return;
  const address = requestAddress(request);
  if (address && principal.addressLists.every((list) => list.has(address))) return;
  throw new GatewayError(
    "ip_not_allowed",
    `This API key may only be used from its allowed addresses, and this request came from ${address || "an unknown address"}; its owner or an operator can change the list on the Keys page`,
  );
}

/**
 * 403 unless the key's group includes the model (docs/api.md §5 rule 2) and, when the key has its own list, the list does, naming where to see the models it may use; 404 when
 * the gateway does not know the model at all (a typo is not an access problem).
 */
export async function authoriseModel(principal: KeyPrincipal, model: string): Promise<void> {
  const group = await groupOf(principal.group);
  // The name is echoed clipped: a 100 KB "model" must not come back whole in the error (SECURITY.md: malformed input).
  const shown = model.length > 100 ? `${model.slice(0, 100)}…` : model;
  if (group?.models.has(model)) {
    if (!principal.models.length || principal.models.includes(model)) return;
    throw new GatewayError(
      "model_not_allowed",
      `This key is limited to ${principal.models.map((name) => `'${name}'`).join(", ")} and may not call '${shown}'; its owner can change that on the Keys page`,
      { param: "model" },
    );
  }
  if (!(await catalogEntry(model)) && !(await priceOf(model))) {
    throw new GatewayError(
      "model_not_found",
      `The model '${shown}' does not exist on this gateway; GET /v1/models lists the models this key may use`,
      { param: "model" },
    );
  }
  throw new GatewayError(
    "model_not_allowed",
    `This key's group '${principal.group}' does not include the model '${shown}'; GET /v1/models lists the models this key may use`,
    { param: "model" },
  );
}

/**
 * `caller`: the Anthropic shape for a caller that speaks it (an x-api-key or anthropic-version header), else OpenAI's.
 * `limit`: which per-key budget the route draws on (lib/gateway/rate-limit.ts): the key's requests, or count_tokens'.
 */
export type RouteConfig = {
  endpoint: string;
  dialect: Dialect | "caller";
  scheme: Scheme;
  limit?: "requests" | "count_tokens";
  /** What the route does in the words of OpenTelemetry's GenAI conventions (gen_ai.operation.name: "chat",
   *  "embeddings", "generate_content"; the image and audio routes name theirs), on its spans (docs/architecture.md, "Traces"). */
  operation?: string;
};

export function callerDialect(request: Request): Dialect {
  return request.headers.has("x-api-key") || request.headers.has("anthropic-version") ? "anthropic" : "openai";
}

/**
 * Requests the server made itself for a caller it has already authenticated another way (the portal's playground,
 * lib/gateway/playground.ts): the key principal to use instead of reading a key from the headers. Keyed by the
 * Request object, so nothing a client sends can put an entry here.
 */
const preAuthenticated = new WeakMap<Request, KeyPrincipal>();

export function withPrincipal(request: Request, principal: KeyPrincipal): Request {
  preAuthenticated.set(request, principal);
  return request;
}

export function gatewayRoute(config: RouteConfig, handler: (context: GatewayContext) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const startedAt = performance.now();
    const requestId = requestIdOf(request);
    const dialect = config.dialect === "caller" ? callerDialect(request) : config.dialect;
    let response: Response;
    let context: GatewayContext | null = null;
    let errorType: string | undefined;
    const trace = traceRequest(request.method, config.endpoint, requestId);
    try {
      const server = preAuthenticated.get(request);
      const principal = server ?? (await authenticate(request, config.scheme));
      trace?.set({ "gateway.key.id": principal.keyId, "gateway.user.id": principal.userId });
      // The playground's requests are the server's own, made for a signed-in user: no client address to check.
      if (!server) checkAddress(principal, request);
      if (config.limit === "count_tokens") await checkCountTokensLimit(principal);
      else await checkRateLimit(principal);
      context = { request, requestId, principal, endpoint: config.endpoint, dialect, startedAt, trace, operation: config.operation };
      response = await handler(context);
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("gateway handler failed", { requestId, endpoint: config.endpoint, error });
      errorType = error instanceof GatewayError ? error.code : "internal_error";
      response = errorResponse(error, dialect);
    }
    setResponseHeaders(response, {
      "x-request-id": requestId,
      "x-gateway-overhead-ms": overheadMs(context ?? { startedAt }),
      // Browser clients may call /v1 from any origin: keys, never cookies (see the preflight in lib/server/routes.ts).
      "access-control-allow-origin": "*",
      "access-control-expose-headers": "x-request-id, retry-after, x-gateway-overhead-ms",
    });
    observeRequest(config.endpoint, response.status, startedAt);
    trace?.answered(response.status, errorType);
    return response;
  };
}
