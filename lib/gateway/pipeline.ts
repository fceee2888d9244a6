// The one wrapper every /v1 endpoint goes through (docs/architecture.md, decision 2): key parsing per endpoint group,
// lookup by hash, expiry and status, group -> model, rate limit; then reserve -> settle money (docs/architecture.md, decision 3).
// Handlers never repeat any of this.
import { GatewayError, errorResponse, type Dialect } from "@/lib/platform/errors";
import { hashApiKey, KEY_PATTERN } from "@/lib/keys/format";
import { findKey, type KeyPrincipal } from "@/lib/keys/lookup";
import { requestIdOf } from "@/lib/platform/http/json";
import { log } from "@/lib/platform/log";
import { moneyStore, type LedgerRow } from "@/lib/money/store";
import { enqueueSettlement } from "@/lib/money/ledger";
import { costOf, groupOf, priceOf, NO_USAGE, type Price, type Usage } from "@/lib/money/prices";
import { catalogEntry } from "@/lib/catalog";
import { checkRateLimit } from "./rate-limit";
import { observeOverReservation, observeRequest } from "@/lib/platform/metrics";

/** How the key is presented: per the spec's endpoint groups, or either way (the model list, read by both SDKs). */
export type Scheme = "bearer" | "x-api-key" | "either";

export type GatewayContext = {
  request: Request;
  requestId: string;
  principal: KeyPrincipal;
  endpoint: string;
  dialect: Dialect;
  startedAt: number;
};

const SCHEME_HINT: Record<Scheme, string> = {
  bearer: "'Authorization: Bearer sk-...'",
  "x-api-key": "'x-api-key: sk-...'",
  either: "'Authorization: Bearer sk-...' or 'x-api-key: sk-...'",
};

/** The token of an `Authorization: Bearer ...` header; the scheme is case-insensitive (RFC 9110 §11.1), and one space
 * follows it: a key with spaces around it is a mistyped key (docs/api.md §7), refused as malformed. */
export function bearerToken(authorization: string): string | null {
  const match = /^bearer (.*)$/is.exec(authorization);
  return match ? match[1]! : null;
}

/** Reads the key the way the endpoint group expects it (docs/api.md §5); anything else is a 401 naming the cause. */
export function extractKey(request: Request, scheme: Scheme): string {
  const authorization = request.headers.get("authorization");
  const apiKeyHeader = request.headers.get("x-api-key");
  if (scheme === "either" && apiKeyHeader !== null && authorization === null) return apiKeyHeader;
  if (scheme === "x-api-key") {
    if (apiKeyHeader !== null) return apiKeyHeader;
    if (authorization)
      throw new GatewayError(
        "wrong_auth_scheme",
        `This endpoint takes the key in the x-api-key header, not in Authorization; send ${SCHEME_HINT[scheme]}`,
      );
    throw new GatewayError("missing_api_key", `Missing API key; send ${SCHEME_HINT[scheme]}`);
  }
  if (authorization !== null) {
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
  throw new GatewayError("missing_api_key", `Missing API key; send ${SCHEME_HINT[scheme]}`);
}

export async function authenticate(request: Request, scheme: Scheme): Promise<KeyPrincipal> {
  const key = extractKey(request, scheme);
  // Shape first: spaces, missing characters or injection strings never reach the database (security item 8).
  if (!KEY_PATTERN.test(key))
    throw new GatewayError("invalid_api_key", "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces");
  const principal = await findKey(hashApiKey(key));
  if (!principal) throw new GatewayError("invalid_api_key", "Invalid API key: no such key");
  return usablePrincipal(principal);
}

/** The checks after the lookup: deleted, disabled, expired, owner disabled. */
export function usablePrincipal(principal: KeyPrincipal): KeyPrincipal {
  if (principal.deleted) throw new GatewayError("invalid_api_key", "This API key was deleted");
  if (principal.status !== "active") throw new GatewayError("disabled_api_key", "This API key is disabled");
  if (principal.expiresAt !== null && principal.expiresAt <= Date.now()) {
    throw new GatewayError("expired_api_key", `This API key expired at ${new Date(principal.expiresAt).toISOString()}`);
  }
  if (principal.userStatus !== "active") throw new GatewayError("disabled_api_key", "The account that owns this API key is disabled");
  return principal;
}

/**
 * 403 unless the key's group includes the model (docs/api.md §5 rule 2), naming where to see the models it may use; 404 when
 * the gateway does not know the model at all (a typo is not an access problem).
 */
export async function authoriseModel(principal: KeyPrincipal, model: string): Promise<void> {
  const group = await groupOf(principal.group);
  if (group?.models.has(model)) return;
  // The name is echoed clipped: a 100 KB "model" must not come back whole in the error (security item 17).
  const shown = model.length > 100 ? `${model.slice(0, 100)}…` : model;
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

/** `caller`: the Anthropic shape for a caller that speaks it (an x-api-key or anthropic-version header), else OpenAI's. */
export type RouteConfig = { endpoint: string; dialect: Dialect | "caller"; scheme: Scheme };

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
    try {
      const principal = preAuthenticated.get(request) ?? (await authenticate(request, config.scheme));
      await checkRateLimit(principal);
      response = await handler({ request, requestId, principal, endpoint: config.endpoint, dialect, startedAt });
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("gateway handler failed", { requestId, endpoint: config.endpoint, error });
      response = errorResponse(error, dialect);
    }
    response.headers.set("x-request-id", requestId);
    // Browser clients may call /v1 from any origin: keys, never cookies (see the preflight in lib/server/routes.ts).
    response.headers.set("access-control-allow-origin", "*");
    response.headers.set("access-control-expose-headers", "x-request-id, retry-after");
    observeRequest(config.endpoint, response.status, startedAt);
    return response;
  };
}

// ------------------------------------------------------------------------------------------------------ money

export type SettleInput = {
  usage: Usage;
  /** A second priced part (the image tool of a Responses call): its own price and usage, one ledger row. */
  extra?: { model: string; price: Price; usage: Usage };
  channel: { id: string; name: string } | null;
  status: "success" | "error" | "cancelled";
  httpStatus: number;
  error?: string | null;
  stream: boolean;
  detail?: Record<string, unknown>;
};

export type Reservation = {
  amount: number;
  price: Price;
  /** Settles once: later calls are ignored, so every exit path may call it. */
  settle: (input: SettleInput) => number;
  /** Nothing was used: refund everything (a row is still written when there was an upstream error). */
  release: (input?: Partial<SettleInput>) => void;
  /** The request was refused for its own input after the reservation (an image that does not decode): all of it
   * goes back and no ledger row is written, as for any bad request. */
  cancel: () => void;
};

export async function requirePrice(model: string): Promise<Price> {
  const price = await priceOf(model);
  if (!price) throw new GatewayError("no_channel", `The model '${model}' has no price configured; an operator must set one`);
  return price;
}

/**
 * Takes `amount` micro-USD from the key and its owner in one atomic step before anything goes upstream
 * (docs/billing.md). 403 when either does not cover it, saying what the request reserves, what is left and, through
 * `hint`, how to make the request fit. The returned handle settles to real usage.
 */
export async function reserve(
  context: GatewayContext,
  model: string,
  price: Price,
  amount: number,
  hint?: RefusalHint,
): Promise<Reservation> {
  const { principal } = context;
  // At least one micro-dollar: a balance that a past request took below zero refuses even a free request.
  const whole = Math.max(1, Math.ceil(amount));
  const result = await moneyStore().reserve(principal.keyId, principal.userId, whole);
  if (result === "missing") throw new GatewayError("invalid_api_key", "This API key was deleted");
  if (result !== "ok") throw await refusal(context, result, whole, hint);
  let done = false;
  let record = true;
  const settle = (input: SettleInput): number => {
    if (done) return 0;
    done = true;
    const mainCost = costOf(input.usage, price);
    const extraCost = input.extra ? costOf(input.extra.usage, input.extra.price) : 0;
    const cost = mainCost + extraCost;
    const usage = input.extra ? addUsage(input.usage, input.extra.usage) : input.usage;
    const row: LedgerRow = {
      kind: "request",
      requestId: context.requestId,
      userId: principal.userId,
      keyId: principal.keyId,
      keyPrefix: principal.prefix,
      endpoint: context.endpoint,
      model,
      channelId: input.channel?.id ?? null,
      channelName: input.channel?.name ?? null,
      textInputTokens: usage.textInputTokens,
      textOutputTokens: usage.textOutputTokens,
      imageInputTokens: usage.imageInputTokens,
      imageOutputTokens: usage.imageOutputTokens,
      cacheReadTokens: usage.cacheReadTokens ?? 0,
      cacheWriteTokens: usage.cacheWriteTokens ?? 0,
      reserved: whole,
      cost,
      overReservation: 0,
      priceVersion: price.version,
      status: input.status,
      httpStatus: input.httpStatus,
      error: input.error ? input.error.slice(0, 500) : null,
      latencyMs: Math.round(performance.now() - context.startedAt),
      stream: input.stream,
      detail:
        input.extra || usage.toolUses || usage.cacheWrite1hTokens
          ? {
              ...input.detail,
              ...(usage.toolUses ? { toolUses: usage.toolUses } : {}),
              ...(usage.cacheWrite1hTokens ? { cacheWrite1hTokens: usage.cacheWrite1hTokens } : {}),
            }
          : (input.detail ?? null),
      createdAt: new Date(),
    };
    if (input.extra) {
      row.detail = {
        ...(row.detail as object),
        parts: [
          { model, ...input.usage, cost: mainCost },
          { model: input.extra.model, ...input.extra.usage, cost: extraCost },
        ],
      };
    }
    if (cost > whole) {
      // The reservation is the cap sent upstream, so this should not happen: charged in full (never written off), and
      // reported loudly so the operator can find the request and the channel (docs/billing.md).
      observeOverReservation(model, cost - whole);
      log.error("upstream bill passed the reservation; charged in full", {
        requestId: context.requestId,
        model,
        channel: input.channel?.name,
        reserved: whole,
        cost,
        usage,
      });
    }
    enqueueSettlement({ keyId: principal.keyId, userId: principal.userId, unlimited: principal.unlimited, reserved: whole, row, record });
    return cost;
  };
  const release = (input: Partial<SettleInput> = {}) =>
    void settle({ usage: NO_USAGE, channel: null, status: "error", httpStatus: 502, stream: false, ...input });
  const cancel = () => {
    record = false;
    release({ status: "error", httpStatus: 400 });
  };
  return { amount: whole, price, settle, release, cancel };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    textInputTokens: a.textInputTokens + b.textInputTokens,
    textOutputTokens: a.textOutputTokens + b.textOutputTokens,
    imageInputTokens: a.imageInputTokens + b.imageInputTokens,
    imageOutputTokens: a.imageOutputTokens + b.imageOutputTokens,
    cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0),
  };
}

/** Bodies above this size are not read for a key or account that has nothing left (docs/billing.md). */
export const FUNDS_CHECK_BODY_BYTES = 1024 * 1024;

/**
 * Money before work: before a large body is read (uploads, inline images), refuse a key or account that cannot cover
 * `minimum`, the least any request of the endpoint reserves. One read of two numbers; the reservation after parsing
 * is what decides, this only spares the parse and decode of a request that cannot be served.
 */
export async function requireFundsBeforeBody(context: GatewayContext, minimum = 1): Promise<void> {
  const declared = Number(context.request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared < FUNDS_CHECK_BODY_BYTES) return;
  const { keyQuota, balance } = await moneyStore().available(context.principal.keyId, context.principal.userId);
  const least = `any request here reserves at least ${formatUsd(Math.max(1, Math.ceil(minimum)))}; the request was not read`;
  if (keyQuota !== null && keyQuota < minimum) {
    throw new GatewayError(
      "quota_exhausted",
      `This API key has ${formatUsd(keyQuota)} of quota left and ${least}. An operator can raise the key's quota.`,
    );
  }
  if (balance < minimum) {
    throw new GatewayError(
      "insufficient_balance",
      `The account's balance is ${formatUsd(balance)} and ${least}. Redeem a code or ask an operator to top it up.`,
    );
  }
}

/** How a refused request could fit in `left` micro-USD, e.g. "Set max_tokens to 812 or less"; null when nothing would. */
export type RefusalHint = (left: number) => string | null;

async function refusal(
  context: GatewayContext,
  result: "key_quota" | "balance",
  needed: number,
  hint?: RefusalHint,
): Promise<GatewayError> {
  const { keyQuota, balance } = await moneyStore().available(context.principal.keyId, context.principal.userId);
  const left = Math.max(0, Math.min(keyQuota ?? Infinity, balance));
  const advice = hint?.(left);
  const fit = advice ? ` ${advice}.` : "";
  if (result === "key_quota") {
    return new GatewayError(
      "quota_exhausted",
      `This request reserves up to ${formatUsd(needed)} (the most it can cost; the unused part is given back) and this API key has ${formatUsd(keyQuota ?? 0)} of quota left.${fit} An operator can raise the key's quota.`,
    );
  }
  if (balance < 0) {
    return new GatewayError(
      "insufficient_balance",
      `The account's balance is ${formatUsd(balance)}: an earlier request cost more than it reserved. Redeem a code or ask an operator to top it up.`,
    );
  }
  return new GatewayError(
    "insufficient_balance",
    `This request reserves up to ${formatUsd(needed)} (the most it can cost; the unused part is given back) and the account's balance is ${formatUsd(balance)}.${fit} Redeem a code or ask an operator to top it up.`,
  );
}

export function formatUsd(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const size = Math.abs(micros);
  return `${sign}$${(size / 1_000_000).toFixed(size < 10_000 ? 6 : 4)}`;
}
