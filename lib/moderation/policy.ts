// The prompt filter of the content policy (docs/api.md §7: `moderation=auto` filters normally, `low` less strictly).
// The operator keeps one list of blocked terms per level; `low` checks only its own list, `auto` checks both, so
// whatever `low` refuses, `auto` refuses too. Pure: the lists come from lib/moderation/store.ts.
import { z } from "zod";

export const MODERATION_LEVELS = ["auto", "low"] as const;
export type ModerationLevel = (typeof MODERATION_LEVELS)[number];
export type ModerationTerms = Record<ModerationLevel, string[]>;

/** The Setting row that holds the operator's lists. */
export const MODERATION_SETTING_KEY = "moderation.terms";
export const MAX_TERMS_PER_LEVEL = 2000;
export const MAX_TERM_CHARACTERS = 200;

/**
 * Shipped defaults, replaceable by the operator. A term matches whole words, case- and accent-insensitively,
 * ignoring punctuation between words ("self-harm" also matches "self harm"); a trailing `*` matches any word that
 * starts with the term ("porn*" matches "pornographic").
 */
export const DEFAULT_MODERATION_TERMS: Readonly<ModerationTerms> = Object.freeze({
  // Refused at every level: sexual content involving minors.
  low: [
    "child porn*",
    "child sexual abuse",
    "csam",
    "underage nude*",
    "underage naked",
    "underage sex*",
    "nude child*",
    "naked child*",
    "sexualized minor*",
    "sexualised minor*",
  ],
  // Refused at the default level on top of the above: nudity, explicit sex and graphic violence.
  auto: [
    "nude*",
    "naked",
    "nudity",
    "porn*",
    "hentai",
    "explicit sex",
    "sex act*",
    "gore",
    "gory",
    "behead*",
    "decapitat*",
    "dismember*",
    "disembowel*",
    "mutilat*",
    "self-harm",
  ],
});

/** Lowercase, accents and punctuation removed, words separated by single spaces. */
export function normaliseText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}*]+/gu, " ")
    .trim();
}

function termPattern(term: string): RegExp | null {
  const prefix = term.trim().endsWith("*");
  const words = normaliseText(term).replace(/\*/g, " ").trim();
  if (!words) return null;
  const escaped = words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^| )${escaped}${prefix ? "[\\p{L}\\p{N}]*" : ""}(?= |$)`, "u");
}

/** Compiled once per list, since lists only change when the operator saves them. */
export type CompiledTerms = Record<ModerationLevel, { term: string; pattern: RegExp }[]>;

export function compileTerms(terms: ModerationTerms): CompiledTerms {
  const compile = (list: string[]) =>
    list.flatMap((term) => {
      const pattern = termPattern(term);
      return pattern ? [{ term, pattern }] : [];
    });
  return { auto: compile(terms.auto), low: compile(terms.low) };
}

/** The first blocked term the prompt contains at this level, or null when the prompt passes. */
export function findBlockedTerm(prompt: string, level: ModerationLevel, terms: CompiledTerms): string | null {
  // Normalised the same way as the terms; '*' in a prompt is punctuation, not a wildcard.
  const text = normaliseText(prompt).replace(/\*/g, " ").replace(/ +/g, " ");
  const lists = level === "low" ? [terms.low] : [terms.low, terms.auto];
  for (const list of lists) {
    for (const { term, pattern } of list) if (pattern.test(text)) return term;
  }
  return null;
}

const term = z
  .string({ error: "each term must be a string" })
  .transform((value) => value.trim())
  .refine((value) => normaliseText(value).replace(/\*/g, "").trim() !== "", { error: "a term needs at least one letter or digit" })
  .refine((value) => value.length <= MAX_TERM_CHARACTERS, { error: `a term is at most ${MAX_TERM_CHARACTERS} characters` });

const termList = z
  .array(term, { error: "must be an array of strings" })
  .max(MAX_TERMS_PER_LEVEL, { error: `at most ${MAX_TERMS_PER_LEVEL} terms per level` })
  // Duplicates (after trimming and lowercasing) are dropped, keeping the first.
  .transform((list) => list.filter((value, index) => list.findIndex((other) => other.toLowerCase() === value.toLowerCase()) === index));

/** The operator's update: either list may be left out to keep it as it is. */
export const moderationUpdateSchema = z.strictObject(
  { auto: termList.optional(), low: termList.optional(), reset: z.boolean().optional() },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field(s): ${issue.keys.join(", ")}; send 'auto', 'low' or 'reset'`
        : "must be a JSON object",
  },
);

/** A stored value, read leniently: anything unreadable falls back to the defaults for that level. */
export function readStoredTerms(value: unknown): ModerationTerms {
  const stored = (typeof value === "object" && value !== null ? value : {}) as Partial<Record<ModerationLevel, unknown>>;
  const list = (level: ModerationLevel) => {
    const parsed = termList.safeParse(stored[level]);
    return parsed.success ? parsed.data : [...DEFAULT_MODERATION_TERMS[level]];
  };
  return { auto: list("auto"), low: list("low") };
}
