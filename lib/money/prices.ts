// Prices per model (USD per 1M tokens, so one token costs that many micro-USD) and groups, cached in memory and
// dropped on change. Cost is computed once, here, for every endpoint.
import { db } from "@/lib/platform/db/client";
import { cached } from "@/lib/platform/cached";

export type Price = {
  model: string;
  textInput: number;
  textOutput: number;
  imageInput: number;
  imageOutput: number;
  /** Speech: USD per 1M input characters (micro-USD per character). */
  characterInput: number;
  /** Transcription: USD per 1M seconds of audio (micro-USD per second). */
  audioInputSecond: number;
  /** Prompt caching: multipliers of the text input rate in force for cache reads and 5-minute / 1-hour cache writes. */
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  /** Long-context tier: a request whose input passes `threshold` tokens has all its text billed at these rates. */
  tier: { threshold: number; textInput: number; textOutput: number } | null;
  /** Server tools billed per use, micro-USD per use by tool name (`web_search`). */
  toolPrices: Record<string, number>;
  /** Price modifiers (lib/money/price-modifiers.ts): the multiplier of every token rate by `field:value` or name. */
  modifiers: Record<string, number>;
  version: number;
};
export type Usage = {
  /** Text input read fresh (cache reads and writes are counted apart). */
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  cacheReadTokens?: number;
  /** Cache writes of every duration, including the 1-hour ones below. */
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  /** Server tool uses by tool name. */
  toolUses?: Record<string, number>;
  /** Speech: the characters spoken. */
  inputCharacters?: number;
  /** Transcription: seconds of audio (fractions kept). */
  audioSeconds?: number;
};
export type Group = { name: string; models: Set<string>; rateLimitPerMinute: number | null };

const prices = cached("billing.prices", "prices.changed", async () => {
  const rows = await db().modelPrice.findMany();
  return new Map(rows.map((row) => [row.model, priceFromRow(row)]));
});

const groups = cached("billing.groups", "groups.changed", async () => {
  const rows = await db().group.findMany();
  return new Map(
    rows.map((row) => [row.name, { name: row.name, models: new Set(row.models as string[]), rateLimitPerMinute: row.rateLimitPerMinute }]),
  );
});

export async function priceOf(model: string): Promise<Price | null> {
  return (await prices()).get(model) ?? null;
}

export async function groupOf(name: string): Promise<Group | null> {
  return (await groups()).get(name) ?? null;
}

type PriceRow = {
  model: string;
  textInput: number;
  textOutput: number;
  imageInput: number;
  imageOutput: number;
  characterInput?: number;
  audioInputSecond?: number;
  cacheReadMultiplier: number;
  cacheWriteMultiplier: number;
  cacheWrite1hMultiplier: number;
  tierThreshold: number | null;
  tierTextInput: number | null;
  tierTextOutput: number | null;
  toolPrices: unknown;
  modifiers?: unknown;
  version: number;
};

export function priceFromRow(row: PriceRow): Price {
  const toolPrices: Record<string, number> = {};
  if (row.toolPrices && typeof row.toolPrices === "object") {
    for (const [name, value] of Object.entries(row.toolPrices as Record<string, unknown>))
      if (typeof value === "number" && value >= 0) toolPrices[name] = value;
  }
  const modifiers: Record<string, number> = {};
  if (row.modifiers && typeof row.modifiers === "object") {
    for (const [key, value] of Object.entries(row.modifiers as Record<string, unknown>))
      if (key !== "__proto__" && typeof value === "number" && value > 0) modifiers[key] = value;
  }
  return {
    model: row.model,
    textInput: row.textInput,
    textOutput: row.textOutput,
    imageInput: row.imageInput,
    imageOutput: row.imageOutput,
    characterInput: row.characterInput ?? 0,
    audioInputSecond: row.audioInputSecond ?? 0,
    cacheRead: row.cacheReadMultiplier,
    cacheWrite: row.cacheWriteMultiplier,
    cacheWrite1h: row.cacheWrite1hMultiplier,
    tier:
      row.tierThreshold !== null && row.tierTextInput !== null && row.tierTextOutput !== null
        ? { threshold: row.tierThreshold, textInput: row.tierTextInput, textOutput: row.tierTextOutput }
        : null,
    toolPrices,
    modifiers,
    version: row.version,
  };
}

/** Text input tokens of every kind: what the long-context threshold is compared with (cache tokens count too). */
export function totalTextInput(usage: Usage): number {
  return usage.textInputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** The text rates (USD per 1M tokens) for a request with this much input: the tier's once the input passes it. */
export function textRates(price: Price, inputTokens: number): { input: number; output: number; tier: boolean } {
  if (price.tier && inputTokens > price.tier.threshold) return { input: price.tier.textInput, output: price.tier.textOutput, tier: true };
  return { input: price.textInput, output: price.textOutput, tier: false };
}

/** micro-USD, rounded up: a fraction of a micro-dollar is still charged as one. */
export function costOf(usage: Usage, price: Price): number {
  const rates = textRates(price, totalTextInput(usage));
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const write5m = Math.max(0, (usage.cacheWriteTokens ?? 0) - write1h);
  let exact =
    usage.textInputTokens * rates.input +
    (usage.cacheReadTokens ?? 0) * rates.input * price.cacheRead +
    write5m * rates.input * price.cacheWrite +
    write1h * rates.input * price.cacheWrite1h +
    usage.textOutputTokens * rates.output +
    usage.imageInputTokens * price.imageInput +
    usage.imageOutputTokens * price.imageOutput +
    (usage.inputCharacters ?? 0) * price.characterInput +
    (usage.audioSeconds ?? 0) * price.audioInputSecond;
  for (const [tool, uses] of Object.entries(usage.toolUses ?? {})) exact += uses * (price.toolPrices[tool] ?? 0);
  return Math.max(0, Math.ceil(exact - 1e-9));
}

/**
 * The most a text request can cost (docs/billing.md): its input bound at the highest input multiplier the request
 * can trigger (a cache write), its output cap, the long-context tier's rates when the input bound passes the
 * threshold, and its server tools at their per-use price times the uses allowed.
 */
export function textReservation(
  price: Price,
  bound: { inputTokens: number; outputTokens: number; inputMultiplier?: number; toolUses?: Record<string, number> },
): number {
  const rates = textRates(price, bound.inputTokens);
  let exact = bound.inputTokens * rates.input * Math.max(1, bound.inputMultiplier ?? 1) + bound.outputTokens * rates.output;
  for (const [tool, uses] of Object.entries(bound.toolUses ?? {})) exact += uses * (price.toolPrices[tool] ?? 0);
  return Math.max(0, Math.ceil(exact - 1e-9));
}

export const NO_USAGE: Usage = { textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 };

/** A price with no caching discount, no tier and no server tools, from its four rates (tests, tools). */
export function plainPrice(rates: {
  model: string;
  textInput: number;
  textOutput: number;
  imageInput: number;
  imageOutput: number;
  characterInput?: number;
  audioInputSecond?: number;
  version?: number;
}): Price {
  return {
    cacheRead: 1,
    cacheWrite: 1,
    cacheWrite1h: 1,
    tier: null,
    toolPrices: {},
    modifiers: {},
    version: 1,
    characterInput: 0,
    audioInputSecond: 0,
    ...rates,
  };
}
