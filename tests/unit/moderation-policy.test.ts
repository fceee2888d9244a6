// The content policy's prompt filter (docs/api.md §7): whole-word, case- and accent-insensitive terms, `low` checking only
// its own list and `auto` checking both, and the operator's update format.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  compileTerms,
  DEFAULT_MODERATION_TERMS,
  findBlockedTerm,
  moderationUpdateSchema,
  normaliseText,
  readStoredTerms,
} from "@/lib/moderation/policy";

const defaults = compileTerms({ auto: [...DEFAULT_MODERATION_TERMS.auto], low: [...DEFAULT_MODERATION_TERMS.low] });

test("normalising: lowercase, accents and punctuation gone, single spaces", () => {
  assert.equal(normaliseText("  Ça, c'est   GORE!!  "), "ca c est gore");
  assert.equal(normaliseText("Self-Harm"), "self harm");
  assert.equal(normaliseText("ｎｕｄｅ"), "nude", "full-width letters fold to ASCII");
});

test("auto refuses what auto and low list; low refuses only its own list", () => {
  assert.equal(findBlockedTerm("A GORY battle scene", "auto", defaults), "gory");
  assert.equal(findBlockedTerm("A GORY battle scene", "low", defaults), null, "low filters less strictly");
  assert.equal(findBlockedTerm("child pornography", "auto", defaults), "child porn*");
  assert.equal(findBlockedTerm("child pornography", "low", defaults), "child porn*", "what low refuses, auto refuses too");
  assert.equal(findBlockedTerm("a watercolour of a lighthouse at dawn", "auto", defaults), null);
});

test("whole words only, with a trailing * for word prefixes", () => {
  const terms = compileTerms({ auto: ["gore", "behead*", "self-harm"], low: [] });
  assert.equal(findBlockedTerm("Al Gore giving a speech", "auto", terms), "gore", "a listed word matches wherever it stands");
  assert.equal(findBlockedTerm("a gorgeous sunset", "auto", terms), null, "no match inside another word");
  assert.equal(findBlockedTerm("a beheaded statue", "auto", terms), "behead*");
  assert.equal(findBlockedTerm("self harm", "auto", terms), "self-harm", "punctuation between words does not matter");
  assert.equal(findBlockedTerm("self—harm", "auto", terms), "self-harm");
  assert.equal(findBlockedTerm("selfharm", "auto", terms), null);
  assert.equal(findBlockedTerm("G.O.R.E", "auto", terms), null);
  assert.equal(findBlockedTerm("gore*", "auto", terms), "gore", "a '*' in the prompt is not a wildcard");
  assert.equal(findBlockedTerm("Gòre", "auto", terms), "gore", "accents do not hide a term");
});

test("terms with regex characters are taken literally", () => {
  const terms = compileTerms({ auto: ["a.b (c)", "x+"], low: [] });
  assert.equal(findBlockedTerm("aXb c", "auto", terms), null);
  assert.equal(findBlockedTerm("a b c", "auto", terms), "a.b (c)");
  assert.equal(findBlockedTerm("xx", "auto", terms), null);
});

test("the operator's update: trimmed, de-duplicated, validated; unknown fields refused", () => {
  const parsed = moderationUpdateSchema.parse({ auto: [" Gore ", "gore", "blood"], low: [] });
  assert.deepEqual(parsed.auto, ["Gore", "blood"]);
  assert.equal(moderationUpdateSchema.safeParse({ auto: "gore" }).success, false);
  assert.equal(moderationUpdateSchema.safeParse({ auto: ["***"] }).success, false);
  assert.equal(moderationUpdateSchema.safeParse({ auto: ["x".repeat(201)] }).success, false);
  assert.equal(moderationUpdateSchema.safeParse({ auto: Array.from({ length: 2001 }, (_, index) => `t${index}`) }).success, false);
  const unknown = moderationUpdateSchema.safeParse({ high: ["x"] });
  assert.equal(unknown.success, false);
  assert.match(unknown.error!.issues[0]!.message, /unknown field\(s\): high/);
});

test("a stored value is read leniently: a damaged level falls back to its defaults", () => {
  assert.deepEqual(readStoredTerms({ auto: ["a"], low: ["b"] }), { auto: ["a"], low: ["b"] });
  assert.deepEqual(readStoredTerms({ auto: "broken" }), {
    auto: [...DEFAULT_MODERATION_TERMS.auto],
    low: [...DEFAULT_MODERATION_TERMS.low],
  });
  assert.deepEqual(readStoredTerms(null).low, [...DEFAULT_MODERATION_TERMS.low]);
});
