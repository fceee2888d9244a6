import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hashBackupCode, newBackupCodes, normaliseBackupCode } from "@/lib/accounts/backup-codes";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

test("newBackupCodes makes ten distinct codes like abcd-efgh-jkmn with their SHA-256 hashes", () => {
  const { plain, hashes } = newBackupCodes();
  assert.equal(plain.length, 10);
  assert.equal(hashes.length, 10);
  assert.equal(new Set(plain).size, 10);
  for (const [index, code] of plain.entries()) {
    assert.match(code, /^[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}$/);
    assert.equal(hashes[index], sha256(code.replaceAll("-", "")));
    assert.ok(!hashes[index]!.includes(code.replaceAll("-", "")));
  }
});

test("newBackupCodes honours count and refuses nonsense", () => {
  assert.equal(newBackupCodes(3).plain.length, 3);
  assert.equal(newBackupCodes(1).hashes.length, 1);
  for (const count of [0, -1, 1.5, 101, Number.NaN]) assert.throws(() => newBackupCodes(count), RangeError);
});

test("codes are random: no repeats across many batches, every symbol used", () => {
  const seen = new Set<string>();
  const symbols = new Set<string>();
  for (let batch = 0; batch < 200; batch++) {
    for (const code of newBackupCodes().plain) {
      assert.ok(!seen.has(code));
      seen.add(code);
      for (const character of code.replaceAll("-", "")) symbols.add(character);
    }
  }
  assert.equal(symbols.size, 31, "the whole 31-symbol alphabet appears");
  for (const lookAlike of ["i", "l", "o", "0", "1"]) assert.ok(!symbols.has(lookAlike));
});

test("normaliseBackupCode lowercases and drops spaces and dashes, so any typing matches the stored hash", () => {
  assert.equal(normaliseBackupCode("ABCD-EFGH-JKMN"), "abcdefghjkmn");
  assert.equal(normaliseBackupCode(" abcd efgh  jkmn\n"), "abcdefghjkmn");
  assert.equal(normaliseBackupCode("abcd\u2013efgh\u2014jkmn"), "abcdefghjkmn"); // en and em dash from autocorrect
  assert.equal(normaliseBackupCode("abcdefghjkmn"), "abcdefghjkmn");
  const { plain, hashes } = newBackupCodes(1);
  const typed = plain[0]!.toUpperCase().replaceAll("-", " ");
  assert.equal(hashBackupCode(typed), hashes[0]);
  assert.notEqual(hashBackupCode(typed.slice(1)), hashes[0]);
});
