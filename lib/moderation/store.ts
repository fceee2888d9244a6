// The operator's blocked-term lists, kept in the Setting table under "moderation.terms" ({auto: [...], low: [...]}),
// cached in memory and dropped when any instance saves them ("settings.changed"). No row means the defaults.
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { publish, subscribe } from "@/lib/platform/events";
import { singleton } from "@/lib/platform/singleton";
import {
  compileTerms,
  DEFAULT_MODERATION_TERMS,
  findBlockedTerm,
  MODERATION_SETTING_KEY,
  readStoredTerms,
  type CompiledTerms,
  type ModerationLevel,
  type ModerationTerms,
} from "./policy";

const TTL_MS = 30_000;

type State = { terms: ModerationTerms | null; compiled: CompiledTerms | null; loaded: number; loading: Promise<void> | null };

function state(): State {
  return singleton("moderation.terms", () => {
    const value: State = { terms: null, compiled: null, loaded: 0, loading: null };
    subscribe((event) => {
      if (event.type === "settings.changed") value.loaded = 0;
    });
    return value;
  });
}

export type StoredModeration = { terms: ModerationTerms; customised: boolean; updatedAt: Date | null };

export async function readModeration(): Promise<StoredModeration> {
  const row = await db().setting.findUnique({ where: { key: MODERATION_SETTING_KEY } });
  if (!row) return { terms: { auto: [...DEFAULT_MODERATION_TERMS.auto], low: [...DEFAULT_MODERATION_TERMS.low] }, customised: false, updatedAt: null };
  return { terms: readStoredTerms(row.value), customised: true, updatedAt: row.updatedAt };
}

async function compiledTerms(): Promise<CompiledTerms> {
  const current = state();
  if (current.compiled && Date.now() - current.loaded < TTL_MS) return current.compiled;
  current.loading ??= readModeration()
    .then(({ terms }) => {
      current.terms = terms;
      current.compiled = compileTerms(terms);
      current.loaded = Date.now();
    })
    .finally(() => (current.loading = null));
  await current.loading;
  return current.compiled!;
}

/** Saves both lists (or removes the row, back to the defaults) and tells every instance. */
export async function saveModeration(terms: ModerationTerms | null): Promise<StoredModeration> {
  if (terms === null) await db().setting.deleteMany({ where: { key: MODERATION_SETTING_KEY } });
  else {
    await db().setting.upsert({
      where: { key: MODERATION_SETTING_KEY },
      create: { key: MODERATION_SETTING_KEY, value: terms },
      update: { value: terms },
    });
  }
  publish({ type: "settings.changed" });
  return readModeration();
}

/** Refuses a prompt that contains a blocked term at the request's moderation level: 400 content_policy_violation. */
export async function checkPrompt(prompt: string, level: ModerationLevel): Promise<void> {
  const term = findBlockedTerm(prompt, level, await compiledTerms());
  if (term === null) return;
  throw new GatewayError(
    "content_policy_violation",
    `The prompt was refused by the content policy (moderation '${level}'): it contains the blocked term '${term}'. Nothing was charged.`,
    { param: "prompt" },
  );
}
