// Prices per model (USD per 1M tokens, so one token costs that many micro-USD) and groups, cached in memory and
// dropped on change. Cost is computed once, here, for every endpoint.
import { db } from "../db/client";
import { singleton } from "../runtime/singleton";
import { subscribe } from "../runtime/events";

export type Price = { model: string; textInput: number; textOutput: number; imageInput: number; imageOutput: number; version: number };
export type Usage = { textInputTokens: number; textOutputTokens: number; imageInputTokens: number; imageOutputTokens: number };
export type Group = { name: string; models: Set<string>; rateLimitPerMinute: number | null };

const TTL_MS = 30_000;

type Snapshot<T> = { value: T | null; loaded: number; loading: Promise<T> | null };

function cached<T>(name: string, event: string, load: () => Promise<T>): () => Promise<T> {
  const state = singleton(name, () => {
    const snapshot: Snapshot<T> = { value: null, loaded: 0, loading: null };
    subscribe((published) => {
      if (published.type === event) snapshot.loaded = 0;
    });
    return snapshot;
  });
  return async () => {
    if (state.value && Date.now() - state.loaded < TTL_MS) return state.value;
    state.loading ??= load()
      .then((value) => {
        state.value = value;
        state.loaded = Date.now();
        return value;
      })
      .finally(() => (state.loading = null));
    return state.loading;
  };
}

const prices = cached("billing.prices", "prices.changed", async () => {
  const rows = await db().modelPrice.findMany();
  return new Map(rows.map((row) => [row.model, { model: row.model, textInput: row.textInput, textOutput: row.textOutput, imageInput: row.imageInput, imageOutput: row.imageOutput, version: row.version }]));
});

const groups = cached("billing.groups", "groups.changed", async () => {
  const rows = await db().group.findMany();
  return new Map(rows.map((row) => [row.name, { name: row.name, models: new Set(row.models as string[]), rateLimitPerMinute: row.rateLimitPerMinute }]));
});

export async function priceOf(model: string): Promise<Price | null> {
  return (await prices()).get(model) ?? null;
}

export async function groupOf(name: string): Promise<Group | null> {
  return (await groups()).get(name) ?? null;
}

/** micro-USD, rounded up: a fraction of a micro-dollar is still charged as one. */
export function costOf(usage: Usage, price: Price): number {
  const exact =
    usage.textInputTokens * price.textInput +
    usage.textOutputTokens * price.textOutput +
    usage.imageInputTokens * price.imageInput +
    usage.imageOutputTokens * price.imageOutput;
  return Math.max(0, Math.ceil(exact - 1e-9));
}

export const NO_USAGE: Usage = { textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 };
