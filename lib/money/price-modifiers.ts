// Request fields that change what the vendor bills for the same tokens (docs/billing.md, "Price modifiers"): a
// service tier, fast mode, US-only inference, and any field or beta an operator names on the Settings page. They are
// known by name. A value that can cost more than the standard price goes upstream only when the model's price sets a
// multiplier for it, and is then reserved and charged at the model's rates times that multiplier; otherwise the
// request is refused with a 400 naming the field. The values that never cost more (the standard ones, `flex`) pass
// without a price. Every other field a client sends is passed on and bounded by the request's size, as before.
import { GatewayError } from "@/lib/platform/errors";
import { db } from "@/lib/platform/db/client";
import { cached } from "@/lib/platform/cached";
import type { Price } from "./prices";

/** The Setting row that holds the operator's extra modifier names (lib/admin-api/settings.ts). */
export const MODIFIER_FIELDS_SETTING = "price.modifierFields";

/** The prefix of a modifier name that is an `anthropic-beta` value rather than a body field. */
export const BETA_PREFIX = "anthropic-beta:";

type BuiltIn = {
  /** Values that are the vendor's standard price: they pass and change nothing. */
  standard: readonly string[];
  /** Values billed below the standard price: they pass; charged at the model's multiplier for them when one is set. */
  cheaper: readonly string[];
};

/**
 * The vendors' own price modifiers (docs/billing.md has the figures and the pages they come from). Any value not
 * listed here (OpenAI's `priority`, `scale`, `fast`; Anthropic's `speed: "fast"`, `inference_geo: "us"`, or a value
 * a vendor adds later) is a modifier that needs a price.
 */
export const BUILT_IN_MODIFIERS: Readonly<Record<string, BuiltIn>> = {
  // OpenAI: auto (the project's tier, standard unless the operator's project says otherwise) and default are standard,
  // flex is billed at Batch rates (half). Anthropic: auto and standard_only are standard.
  service_tier: { standard: ["auto", "default", "standard_only"], cheaper: ["flex"] },
  // Anthropic fast mode: a multiple of the standard rates.
  speed: { standard: ["standard"], cheaper: [] },
  // Anthropic data residency: "global" is standard, "us" costs more on the models that take it.
  inference_geo: { standard: ["global"], cheaper: [] },
};

const BUILT_IN_ENTRIES = Object.entries(BUILT_IN_MODIFIERS);

/** Names an operator may not add: the fields every request carries or the gateway itself sets. */
export const RESERVED_FIELDS: readonly string[] = ["model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options"];

/** A body field name (`reasoning_mode`) or a beta (`anthropic-beta:some-beta-2026-01-01`). */
export const MODIFIER_NAME = /^(?:[A-Za-z][A-Za-z0-9_]{0,63}|anthropic-beta:[A-Za-z0-9][A-Za-z0-9._-]{0,99})$/;

/** A key of a price's `modifiers`: a name, or a name and one of its values (`service_tier:priority`). */
export const MODIFIER_KEY = /^(?:[A-Za-z][A-Za-z0-9_]{0,63}(?::[^\s:][^\s]{0,99})?|anthropic-beta:[A-Za-z0-9][A-Za-z0-9._-]{0,99})$/;

const operatorFields = cached("billing.modifier-fields", "settings.changed", async () => {
  const row = await db().setting.findUnique({ where: { key: MODIFIER_FIELDS_SETTING } });
  return Array.isArray(row?.value) ? (row.value as unknown[]).filter((name): name is string => typeof name === "string") : [];
});

/** The operator's extra modifier names, as saved on the Settings page. */
export function modifierFieldNames(): Promise<string[]> {
  return operatorFields();
}

/** One modifier a request carries, priced: the price key that matched and its multiplier. */
export type AppliedModifier = {
  /** `service_tier:priority`, `speed:fast`, `anthropic-beta:…`, or an operator's field name. */
  key: string;
  /** The body field, or `anthropic-beta:<beta>` for a beta. */
  name: string;
  multiplier: number;
};

export type PriceModifiers = {
  /** Every priced modifier the request carries; empty when it is billed at the standard price. */
  applied: AppliedModifier[];
  /** Their product: what every token rate of the model is multiplied by. */
  multiplier: number;
};

export const NO_MODIFIERS: PriceModifiers = { applied: [], multiplier: 1 };

/**
 * The modifiers a text request carries and their multiplier, or a 400 naming the first one that could cost more and
 * has no price on the model. `betas` are the request's `anthropic-beta` values, `extra` the operator's names
 * (modifierFieldNames). Reads a handful of known names: the work does not grow with the body.
 */
export function priceModifiersOf(
  body: Record<string, unknown>,
  betas: readonly string[],
  price: Price,
  extra: readonly string[],
): PriceModifiers {
  const applied: AppliedModifier[] = [];
  for (const [name, rule] of BUILT_IN_ENTRIES) {
    const found = builtInModifier(name, rule, body, price);
    if (found) applied.push(found);
  }
  for (const name of extra) {
    if (Object.hasOwn(BUILT_IN_MODIFIERS, name)) continue;
    const found = name.startsWith(BETA_PREFIX) ? betaModifier(name, betas, price) : operatorModifier(name, body, price);
    if (found) applied.push(found);
  }
  if (!applied.length) return NO_MODIFIERS;
  return { applied, multiplier: applied.reduce((product, modifier) => product * modifier.multiplier, 1) };
}

function builtInModifier(name: string, rule: BuiltIn, body: Record<string, unknown>, price: Price): AppliedModifier | null {
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    throw new GatewayError("invalid_request", `Invalid '${name}': must be a string; got ${describeValue(value)}`, { param: name });
  }
  if (rule.standard.includes(value)) return null;
  const key = `${name}:${value}`;
  const multiplier = multiplierOf(price, key);
  if (multiplier !== undefined) return { key, name, multiplier };
  // A value billed below the standard price is served without a price of its own: charged at the standard rates,
  // never below what the vendor bills. An operator sets its multiplier (0.5 for OpenAI's flex) to pass the discount on.
  if (rule.cheaper.includes(value)) return null;
  throw unpriced(name, `'${name}: ${JSON.stringify(value).slice(0, 80)}'`, key, price.model);
}

function operatorModifier(name: string, body: Record<string, unknown>, price: Price): AppliedModifier | null {
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  if (value === undefined || value === null) return null;
  // A value of its own (`field:value`) wins over the field's price for any value (`field`).
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    const key = `${name}:${String(value)}`;
    const multiplier = multiplierOf(price, key);
    if (multiplier !== undefined) return { key, name, multiplier };
  }
  const multiplier = multiplierOf(price, name);
  if (multiplier !== undefined) return { key: name, name, multiplier };
  throw unpriced(name, `'${name}'`, name, price.model);
}

function betaModifier(name: string, betas: readonly string[], price: Price): AppliedModifier | null {
  const beta = name.slice(BETA_PREFIX.length);
  if (!betas.includes(beta)) return null;
  const multiplier = multiplierOf(price, name);
  if (multiplier !== undefined) return { key: name, name, multiplier };
  throw unpriced("anthropic-beta", `the beta '${beta}'`, name, price.model);
}

function multiplierOf(price: Price, key: string): number | undefined {
  return Object.hasOwn(price.modifiers, key) ? price.modifiers[key] : undefined;
}

function unpriced(param: string, what: string, key: string, model: string): GatewayError {
  return new GatewayError(
    "invalid_request",
    `${what} is not available for '${model}': it changes what the vendor bills and no price is set for it here. Leave it out, or ask an operator to set its multiplier (${key}) on the model's price.`,
    { param },
  );
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : JSON.stringify(value);
}

/** The price with every token rate multiplied (the long-context tier's too); caching multipliers and per-use tool
 * prices are the vendor's own and stay as they are. */
export function multipliedPrice(price: Price, multiplier: number): Price {
  if (multiplier === 1) return price;
  return {
    ...price,
    textInput: price.textInput * multiplier,
    textOutput: price.textOutput * multiplier,
    imageInput: price.imageInput * multiplier,
    imageOutput: price.imageOutput * multiplier,
    tier: price.tier
      ? { threshold: price.tier.threshold, textInput: price.tier.textInput * multiplier, textOutput: price.tier.textOutput * multiplier }
      : null,
  };
}
