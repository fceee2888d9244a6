// The one wrapper every /v1 endpoint goes through (architecture decision 2): key parsing per endpoint group,
// lookup by hash, expiry and status, group -> model, rate limit; then reserve -> settle money (decision 3).
// Handlers never repeat any of this.
import { GatewayError, errorResponse, type Dialect } from "../errors";
import { hashApiKey, KEY_PATTERN } from "../keys/format";
import { findKey, type KeyPrincipal } from "../keys/lookup";
import { requestIdOf } from "../http/json";
import { log } from "../runtime/log";
import { moneyStore, type LedgerRow } from "../billing/store";
import { enqueueSettlement } from "../billing/ledger";
import { costOf, groupOf, priceOf, NO_USAGE, type Price, type Usage } from "../billing/prices";
import { checkRateLimit } from "./rate-limit";
import { observeRequest } from "../runtime/metrics";

export type Scheme = "bearer" | "x-api-key";

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
};

/** Reads the key the way the endpoint group expects it (spec §5); anything else is a 401 naming the cause. */
export function extractKey(request: Request, scheme: Scheme): string {
  const authorization = request.headers.get("authorization");
  const apiKeyHeader = request.headers.get("x-api-key");
  if (scheme === "x-api-key") {
    if (apiKeyHeader !== null) return apiKeyHeader;
    if (authorization) throw new GatewayError("wrong_auth_scheme", `This endpoint takes the key in the x-api-key header, not in Authorization; send ${SCHEME_HINT[scheme]}`);
    throw new GatewayError("missing_api_key", `Missing API key; send ${SCHEME_HINT[scheme]}`);
  }
  if (authorization !== null) {
    const match = /^Bearer (.*)$/s.exec(authorization);
    if (!match) throw new GatewayError("wrong_auth_scheme", `Authorization must use the Bearer scheme; send ${SCHEME_HINT[scheme]}`);
    return match[1]!;
  }
  if (apiKeyHeader !== null) throw new GatewayError("wrong_auth_scheme", `This endpoint takes the key as a Bearer token, not in x-api-key; send ${SCHEME_HINT[scheme]}`);
  throw new GatewayError("missing_api_key", `Missing API key; send ${SCHEME_HINT[scheme]}`);
}

export async function authenticate(request: Request, scheme: Scheme): Promise<KeyPrincipal> {
  const key = extractKey(request, scheme);
  // Shape first: spaces, missing characters or injection strings never reach the database (security item 8).
  if (!KEY_PATTERN.test(key)) throw new GatewayError("invalid_api_key", "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces");
  const principal = await findKey(hashApiKey(key));
  if (!principal) throw new GatewayError("invalid_api_key", "Invalid API key: no such key");
  if (principal.deleted) throw new GatewayError("invalid_api_key", "This API key was deleted");
  if (principal.status !== "active") throw new GatewayError("disabled_api_key", "This API key is disabled");
  if (principal.expiresAt !== null && principal.expiresAt <= Date.now()) {
    throw new GatewayError("expired_api_key", `This API key expired at ${new Date(principal.expiresAt).toISOString()}`);
  }
  if (principal.userStatus !== "active") throw new GatewayError("disabled_api_key", "The account that owns this API key is disabled");
  return principal;
}

/** 403 unless the key's group includes the model (spec §5 rule 2). */
export async function authoriseModel(principal: KeyPrincipal, model: string): Promise<void> {
  const group = await groupOf(principal.group);
  if (!group || !group.models.has(model)) {
    // The name is echoed clipped: a 100 KB "model" must not come back whole in the error (security item 17).
    const shown = model.length > 100 ? `${model.slice(0, 100)}…` : model;
    throw new GatewayError("model_not_allowed", `This key's group '${principal.group}' does not include the model '${shown}'`, { param: "model" });
  }
}

export type RouteConfig = { endpoint: string; dialect: Dialect; scheme: Scheme };

export function gatewayRoute(config: RouteConfig, handler: (context: GatewayContext) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const startedAt = performance.now();
    const requestId = requestIdOf(request);
    let response: Response;
    try {
      const principal = await authenticate(request, config.scheme);
      await checkRateLimit(principal);
      response = await handler({ request, requestId, principal, endpoint: config.endpoint, dialect: config.dialect, startedAt });
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("gateway handler failed", { requestId, endpoint: config.endpoint, error });
      response = errorResponse(error, config.dialect);
    }
    response.headers.set("x-request-id", requestId);
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
};

export async function requirePrice(model: string): Promise<Price> {
  const price = await priceOf(model);
  if (!price) throw new GatewayError("no_channel", `The model '${model}' has no price configured; an operator must set one`);
  return price;
}

/**
 * Takes `amount` micro-USD from the key and its owner in one atomic step before anything goes upstream
 * (architecture decision 3). 403 when either does not cover it. The returned handle settles to real usage.
 */
export async function reserve(context: GatewayContext, model: string, price: Price, amount: number): Promise<Reservation> {
  const { principal } = context;
  const whole = Math.max(0, Math.ceil(amount));
  const result = await moneyStore().reserve(principal.keyId, principal.userId, whole);
  if (result === "key_quota") {
    throw new GatewayError("quota_exhausted", `This API key's quota is used up: the request needs up to ${formatUsd(whole)} and the key has less left`);
  }
  if (result === "balance") {
    throw new GatewayError("insufficient_balance", `The account's balance is used up: the request needs up to ${formatUsd(whole)}; redeem a code or ask an operator to top it up`);
  }
  if (result === "missing") throw new GatewayError("invalid_api_key", "This API key was deleted");

  let done = false;
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
      ...usage,
      reserved: whole,
      cost,
      priceVersion: price.version,
      status: input.status,
      httpStatus: input.httpStatus,
      error: input.error ? input.error.slice(0, 500) : null,
      latencyMs: Math.round(performance.now() - context.startedAt),
      stream: input.stream,
      detail: input.extra
        ? { ...input.detail, parts: [{ model, ...input.usage, cost: mainCost }, { model: input.extra.model, ...input.extra.usage, cost: extraCost }] }
        : input.detail ?? null,
      createdAt: new Date(),
    };
    enqueueSettlement({ keyId: principal.keyId, userId: principal.userId, unlimited: principal.unlimited, reserved: whole, row });
    return cost;
  };
  const release = (input: Partial<SettleInput> = {}) =>
    void settle({ usage: NO_USAGE, channel: null, status: "error", httpStatus: 502, stream: false, ...input });
  return { amount: whole, price, settle, release };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    textInputTokens: a.textInputTokens + b.textInputTokens,
    textOutputTokens: a.textOutputTokens + b.textOutputTokens,
    imageInputTokens: a.imageInputTokens + b.imageInputTokens,
    imageOutputTokens: a.imageOutputTokens + b.imageOutputTokens,
  };
}

export function formatUsd(micros: number): string {
  return `$${(micros / 1_000_000).toFixed(micros < 10_000 ? 6 : 4)}`;
}
