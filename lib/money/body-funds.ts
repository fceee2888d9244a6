// Money before work for request bodies (docs/billing.md, "Money before work"): a large body is not read, or not read
// to its end, when its payer cannot cover the least a request of its size reserves. The reservation after parsing is
// what decides; this spares the parse, the validation and the count of a request that cannot be served.
import { GatewayError } from "@/lib/platform/errors";
import type { BodyWatch } from "@/lib/platform/http/watched-body";
import { BYTES_PER_TOKEN_FLOOR } from "./reservation";
import { groupOf, priceOf } from "./prices";
import { catalogEntryOrGeneric, type ModelKind } from "@/lib/catalog";
import { formatUsd, shortOfFunds, type Payer } from "./reserve";
import { moneyStore, type BudgetState } from "./store";
import { budgetLeft, budgetShortMessage } from "./budget";

/** Bodies below this size are read without asking (one database read per large body, none for the chat path). */
export const WATCHED_BODY_BYTES = 1024 * 1024;

/** Who pays, with what the key may call (its group's models, narrowed by its own list). */
export type BodyPayer = Payer & { principal: Payer["principal"] & { group: string; models: string[] } };

/**
 * The lowest text input price (micro-USD per token) among the priced models the key may call: whatever model the body
 * names, its text is reserved at no less. 0 when the key may call no priced model (nothing is then refused by size).
 */
export async function cheapestInputPrice(principal: BodyPayer["principal"], kinds: readonly ModelKind[] = TEXT_BODIES): Promise<number> {
  const group = await groupOf(principal.group);
  let cheapest = Infinity;
  for (const model of group?.models ?? []) {
    if (principal.models.length && !principal.models.includes(model)) continue;
    // Only the models the endpoint serves: a speech model's text is priced per character (its token price is 0), and
    // would otherwise let any text body through unread.
    if (!kinds.includes((await catalogEntryOrGeneric(model)).kind)) continue;
    const price = await priceOf(model);
    if (price) cheapest = Math.min(cheapest, price.textInput);
  }
  return Number.isFinite(cheapest) ? cheapest : 0;
}

/** The kinds of model a JSON body of text or image requests is priced as (an embeddings body passes its own). */
const TEXT_BODIES: readonly ModelKind[] = ["text", "image"];

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The watch for a paid endpoint's JSON body (lib/platform/http/watched-body.ts). From WATCHED_BODY_BYTES on, the key's
 * quota and its owner's balance are read once: less than `least` (the least any request of the endpoint reserves) and
 * the body is not read at all; otherwise it may hold as many text bytes as what is left pays for at four bytes per
 * token and the cheapest input price the key can use (`bySize` false: the body's size says nothing about its price,
 * as for uploads, and only `least` applies). A class: made for every request, its methods are not
 * (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md).
 */
export class PaidBodyWatch implements BodyWatch {
  readonly fromBytes = WATCHED_BODY_BYTES;
  readonly #least: number;
  readonly #bySize: boolean;
  readonly #kinds: readonly ModelKind[] | undefined;
  #funds: { keyQuota: number | null; balance: number; budget: BudgetState; at: number; price: number } | null = null;

  constructor(
    private readonly context: BodyPayer,
    options: { least?: number; bySize?: boolean; kinds?: readonly ModelKind[] } = {},
  ) {
    this.#least = Math.max(1, Math.ceil(options.least ?? 1));
    this.#bySize = options.bySize !== false;
    this.#kinds = options.kinds;
  }

  async start(): Promise<number> {
    const { principal } = this.context;
    const least = this.#least;
    const at = Date.now();
    const [available, price] = await Promise.all([
      moneyStore().available(principal.keyId, principal.userId, at),
      this.#bySize ? cheapestInputPrice(principal, this.#kinds) : Promise.resolve(0),
    ]);
    this.#funds = { ...available, at, price };
    const refusal = shortOfFunds(available, least, at);
    if (refusal) throw refusal;
    if (price <= 0) return Infinity;
    const { keyQuota, balance, budget } = available;
    const left = Math.min(keyQuota ?? Infinity, budget ? budgetLeft(budget) : Infinity, balance);
    return Math.floor((left * BYTES_PER_TOKEN_FLOOR) / price);
  }

  refuse(textBytes: number, whole: boolean): Error {
    const { keyQuota, balance, budget, at, price } = this.#funds!;
    const needed = Math.ceil((textBytes / BYTES_PER_TOKEN_FLOOR) * price);
    const what =
      `This request's body holds at least ${megabytes(textBytes)} of text, which reserves at least ${formatUsd(needed)} ` +
      `(${BYTES_PER_TOKEN_FLOOR} bytes per token at $${price.toFixed(2)} per 1M input tokens, the lowest price among the models this key may use)`;
    const read = whole ? "the body was not parsed" : "the body was not read to its end";
    if (keyQuota !== null && keyQuota < needed) {
      return new GatewayError(
        "quota_exhausted",
        `${what} and this API key has ${formatUsd(keyQuota)} of quota left; ${read}. An operator can raise the key's quota.`,
      );
    }
    if (budget && budgetLeft(budget) < needed)
      return new GatewayError("budget_exceeded", budgetShortMessage(budget, at, `${lowerFirst(what)}; ${read}`));
    return new GatewayError(
      "insufficient_balance",
      `${what} and the account's balance is ${formatUsd(balance)}; ${read}. Redeem a code or ask an operator to top it up.`,
    );
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The watch for a paid endpoint's JSON body (see PaidBodyWatch). */
export function paidBodyWatch(
  context: BodyPayer,
  options: { least?: number; bySize?: boolean; kinds?: readonly ModelKind[] } = {},
): BodyWatch {
  return new PaidBodyWatch(context, options);
}
