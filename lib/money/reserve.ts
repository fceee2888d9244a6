// The money steps of every priced request, in one place (docs/billing.md): the price must exist; money before work
// for large bodies; the reservation, an upper bound taken from the key and its owner in one atomic step before
// anything goes upstream, refused with what it needs and what is left; and its settlement to the upstream's real
// usage, exactly once, with one ledger row. An endpoint computes the bound (lib/money/reservation.ts) and calls these.
import { GatewayError } from "@/lib/platform/errors";
import { log } from "@/lib/platform/log";
import { observeOverReservation } from "@/lib/platform/metrics";
import { moneyStore, type BudgetState, type LedgerRow } from "./store";
import { enqueueSettlement } from "./ledger";
import { budgetLeft, budgetMessage, budgetShortMessage } from "./budget";
import { costOf, priceOf, NO_USAGE, type Price, type Usage } from "./prices";
import type { Channel } from "@/lib/channels";
import type { RequestTrace } from "@/lib/platform/tracing";

/** Who pays and for what: the part of an endpoint's request context the money steps read. */
export type Payer = {
  request: Request;
  requestId: string;
  principal: { keyId: string; userId: string; prefix: string; unlimited: boolean };
  endpoint: string;
  startedAt: number;
  /** Set by the failover loop (lib/gateway/relay.ts), read when the request settles: when the first upstream attempt
   *  started and when the serving upstream's answer started (performance.now()), and the channels that failed before. */
  upstreamAt?: number;
  answeredAt?: number;
  failovers?: Failover[];
  /** The request's span, when tracing is on: a reservation holds it open until it settles, and puts its usage and cost on it. */
  trace?: RequestTrace;
  operation?: string;
};

/** A channel tried before the one that served (or before the last one, when none did), with why it failed. */
export type Failover = { channelId: string; channel: string; status: number; error: string; ms: number };

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
  /** The only channels the amount and price hold for (a request whose price modifiers only some channels pass on);
   * undefined for every channel of the model. */
  channels: readonly Channel[] | undefined;
  /** Settles once: later calls are ignored, so every exit path may call it. */
  settle: (input: SettleInput) => number;
  /** Nothing was used: refund everything (a row is still written when there was an upstream error), but for input an
   *  upstream billed before it failed (`addBilledInput`), which is charged. */
  release: (input?: Partial<SettleInput>) => void;
  /** Input tokens an upstream processed and billed on the way to a failure (a request split into several calls, a
   *  later one failing): charged by `release`, and added by the caller to what a later success settles. */
  addBilledInput: (tokens: number) => void;
  readonly billedInput: number;
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
  context: Payer,
  model: string,
  price: Price,
  amount: number,
  hint?: RefusalHint,
  held: HeldFor = {},
): Promise<Reservation> {
  const { principal } = context;
  // A bound that is not a number is a gateway bug: refuse the request rather than reserve nothing or everything.
  if (!Number.isFinite(amount)) throw new Error(`reservation for '${model}' is not a number (${amount})`);
  // At least one micro-dollar: a balance that a past request took below zero refuses even a free request.
  const whole = Math.max(1, Math.ceil(amount));
  const at = Date.now();
  const result = await moneyStore().reserve(principal.keyId, principal.userId, whole, at);
  if (result === "missing") throw new GatewayError("invalid_api_key", "This API key was deleted");
  if (result === "budget") throw await budgetRefusal(context, whole, at);
  if (result !== "ok" && result !== "budgeted") throw await refusal(context, result, whole, hint);
  return new HeldReservation(context, model, price, whole, held.detail, held.channels, result === "budgeted" ? at : null);
}

/**
 * A reservation that was taken. A class rather than closures made per request: the methods are made once (the
 * gateway's TypeScript runner names every named closure it creates, a measurable cost per request;
 * docs/decisions/0014-no-fetch-classes-on-the-hot-path.md).
 */
class HeldReservation implements Reservation {
  #done = false;
  #record = true;

  constructor(
    private readonly context: Payer,
    private readonly model: string,
    readonly price: Price,
    readonly amount: number,
    private readonly detail: Record<string, unknown> | undefined,
    readonly channels: readonly Channel[] | undefined,
    /** When the reservation was counted against the key's budget; null when the key had none. */
    private readonly budgetAt: number | null = null,
  ) {
    context.trace?.hold({
      "gen_ai.request.model": model,
      ...(context.operation ? { "gen_ai.operation.name": context.operation } : {}),
      "gateway.reserved_usd": amount / 1_000_000,
    });
  }

  settle(input: SettleInput): number {
    if (this.#done) return 0;
    this.#done = true;
    const { context, model, price, amount: whole } = this;
    const { principal } = context;
    const mainCost = costOf(input.usage, price);
    const extraCost = input.extra ? costOf(input.extra.usage, input.extra.price) : 0;
    const cost = mainCost + extraCost;
    const usage = input.extra ? addUsage(input.usage, input.extra.usage) : input.usage;
    const given = this.detail ? { ...this.detail, ...input.detail } : input.detail;
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
      queueMs: context.upstreamAt === undefined ? 0 : Math.round(context.upstreamAt - context.startedAt),
      firstByteMs: context.answeredAt === undefined ? 0 : Math.max(1, Math.round(context.answeredAt - context.startedAt)),
      stream: input.stream,
      detail:
        input.extra || usage.toolUses || usage.cacheWrite1hTokens || context.failovers
          ? {
              ...given,
              ...(context.failovers ? { failovers: context.failovers } : {}),
              ...(usage.toolUses ? { toolUses: usage.toolUses } : {}),
              ...(usage.cacheWrite1hTokens ? { cacheWrite1hTokens: usage.cacheWrite1hTokens } : {}),
            }
          : (given ?? null),
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
    context.trace?.settled(spanAttributes(row, usage), input.status === "error");
    enqueueSettlement({
      keyId: principal.keyId,
      userId: principal.userId,
      unlimited: principal.unlimited,
      reserved: whole,
      row,
      record: this.#record,
      budgetAt: this.budgetAt,
    });
    return cost;
  }

  #billedInput = 0;

  get billedInput(): number {
    return this.#billedInput;
  }

  addBilledInput(tokens: number): void {
    if (Number.isSafeInteger(tokens) && tokens > 0) this.#billedInput += tokens;
  }

  release(input: Partial<SettleInput> = {}): void {
    const usage = this.#billedInput ? { ...NO_USAGE, textInputTokens: this.#billedInput } : NO_USAGE;
    this.settle({ usage, channel: null, status: "error", httpStatus: 502, stream: false, ...input });
  }

  cancel(): void {
    this.#record = false;
    this.release({ status: "error", httpStatus: 400 });
  }
}

/** What a settled request puts on its spans (docs/architecture.md, "Traces"): token counts under the GenAI conventions'
 *  names (input includes the cached tokens, as they say), the other units and the money under the gateway's own. */
function spanAttributes(row: LedgerRow, usage: Usage) {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    "gen_ai.usage.input_tokens": usage.textInputTokens + usage.imageInputTokens + cacheRead + cacheWrite,
    "gen_ai.usage.output_tokens": usage.textOutputTokens + usage.imageOutputTokens,
    ...(cacheRead ? { "gen_ai.usage.cache_read.input_tokens": cacheRead } : {}),
    ...(cacheWrite ? { "gen_ai.usage.cache_creation.input_tokens": cacheWrite } : {}),
    ...(usage.imageInputTokens ? { "gateway.usage.image_input_tokens": usage.imageInputTokens } : {}),
    ...(usage.imageOutputTokens ? { "gateway.usage.image_output_tokens": usage.imageOutputTokens } : {}),
    ...(usage.inputCharacters ? { "gateway.usage.input_characters": usage.inputCharacters } : {}),
    ...(usage.audioSeconds ? { "gateway.usage.audio_seconds": usage.audioSeconds } : {}),
    "gen_ai.request.stream": row.stream,
    "gateway.cost_usd": row.cost / 1_000_000,
    "gateway.settlement": row.status,
    ...(row.channelName ? { "gateway.channel.name": row.channelName } : {}),
  };
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
export async function requireFundsBeforeBody(context: Payer, minimum = 1): Promise<void> {
  const declared = Number(context.request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared < FUNDS_CHECK_BODY_BYTES) return;
  const at = Date.now();
  const refusal = shortOfFunds(await moneyStore().available(context.principal.keyId, context.principal.userId, at), minimum, at);
  if (refusal) throw refusal;
}

/**
 * Money before work's refusal of a payer who cannot cover `minimum`, the least any request of the endpoint reserves:
 * the key's quota, its budget for this period (which counts as its quota does, docs/billing.md "Key budgets") and
 * its owner's balance, each saying what is left and that the request was not read. Null when all three cover it.
 */
export function shortOfFunds(
  available: { keyQuota: number | null; balance: number; budget: BudgetState },
  minimum: number,
  at: number,
): GatewayError | null {
  const { keyQuota, balance, budget } = available;
  const least = Math.max(1, Math.ceil(minimum));
  const clause = `any request here reserves at least ${formatUsd(least)}; the request was not read`;
  if (keyQuota !== null && keyQuota < least)
    return new GatewayError(
      "quota_exhausted",
      `This API key has ${formatUsd(keyQuota)} of quota left and ${clause}. An operator can raise the key's quota.`,
    );
  if (budget && budgetLeft(budget) < least) return new GatewayError("budget_exceeded", budgetShortMessage(budget, at, clause));
  if (balance < least)
    return new GatewayError(
      "insufficient_balance",
      `The account's balance is ${formatUsd(balance)} and ${clause}. Redeem a code or ask an operator to top it up.`,
    );
  return null;
}

/** What a reservation holds beyond its amount and price. */
export type HeldFor = {
  /** Written into the ledger row's `detail` however the request ends (the price modifiers charged). */
  detail?: Record<string, unknown>;
  /** The channels that may serve the request: those the amount and price hold for (Reservation.channels). */
  channels?: readonly Channel[];
};

/** How a refused request could fit in `left` micro-USD, e.g. "Set max_tokens to 812 or less"; null when nothing would. */
export type RefusalHint = (left: number) => string | null;

/** The 403 of a request the key's budget cannot cover this period: what it was, and when it starts over. */
async function budgetRefusal(context: Payer, needed: number, at: number): Promise<GatewayError> {
  const { budget } = await moneyStore().available(context.principal.keyId, context.principal.userId, at);
  const message = budget
    ? budgetMessage(budget, needed, at)
    : "This key's budget for this period cannot cover this request; its owner or an operator can change it on the Keys page";
  return new GatewayError("budget_exceeded", message);
}

async function refusal(context: Payer, result: "key_quota" | "balance", needed: number, hint?: RefusalHint): Promise<GatewayError> {
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
