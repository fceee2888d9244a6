// The operator's blocked-term lists, kept in the Setting table under "moderation.terms" ({auto: [...], low: [...]}),
// cached in memory and dropped when any instance saves them ("settings.changed"). No row means the defaults.
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { publish } from "@/lib/platform/events";
import { cached } from "@/lib/platform/cached";
import {
  compileTerms,
  DEFAULT_MODERATION_TERMS,
  findBlockedTerm,
  MODERATION_SETTING_KEY,
  readStoredTerms,
  type ModerationLevel,
  type ModerationTerms,
} from "./policy";

export type StoredModeration = { terms: ModerationTerms; customised: boolean; updatedAt: Date | null };

export async function readModeration(): Promise<StoredModeration> {
  const row = await db().setting.findUnique({ where: { key: MODERATION_SETTING_KEY } });
  if (!row)
    return {
      terms: { auto: [...DEFAULT_MODERATION_TERMS.auto], low: [...DEFAULT_MODERATION_TERMS.low] },
      customised: false,
      updatedAt: null,
    };
  return { terms: readStoredTerms(row.value), customised: true, updatedAt: row.updatedAt };
}

/** The terms, compiled, kept 30 s and reloaded at once after a change (lib/platform/cached.ts). */
const compiledTerms = cached("moderation.terms", "settings.changed", async () => compileTerms((await readModeration()).terms));

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
