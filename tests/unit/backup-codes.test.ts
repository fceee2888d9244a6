import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hashBackupCode, newBackupCodes, normaliseBackupCode, wrapBackupHash } from "@/lib/accounts/backup-codes";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const SECRET = "a-test-secret-of-at-least-32-characters";

test("newBackupCodes makes ten distinct codes like abcd-efgh-jkmn with their SHA-256 hashes", () => {
  const { plain, hashes } = newBackupCodes(SECRET);
  assert.equal(plain.length, 10);
  assert.equal(hashes.length, 10);
  assert.equal(new Set(plain).size, 10);
  for (const [index, code] of plain.entries()) {
    assert.match(code, /^[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}$/);
    assert.equal(
      hashes[index],
      wrapBackupHash(sha256(code.replaceAll("-", "")), SECRET),
      "an HMAC with the secret over the code's SHA-256",
    );
    assert.notEqual(hashes[index], `h1:${sha256(code.replaceAll("-", ""))}`);
    assert.ok(!hashes[index]!.includes(code.replaceAll("-", "")));
  }
});

test("newBackupCodes honours count and refuses nonsense", () => {
  assert.equal(newBackupCodes(SECRET, 3).plain.length, 3);
  assert.equal(newBackupCodes(SECRET, 1).hashes.length, 1);
  for (const count of [0, -1, 1.5, 101, Number.NaN]) assert.throws(() => newBackupCodes(SECRET, count), RangeError);
});

test("codes are random: no repeats across many batches, every symbol used", () => {
  const seen = new Set<string>();
  const symbols = new Set<string>();
  for (let batch = 0; batch < 200; batch++) {
    for (const code of newBackupCodes(SECRET).plain) {
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
  const { plain, hashes } = newBackupCodes(SECRET, 1);
  const typed = plain[0]!.toUpperCase().replaceAll("-", " ");
  assert.equal(hashBackupCode(typed, SECRET), hashes[0]);
  assert.notEqual(hashBackupCode(typed.slice(1), SECRET), hashes[0]);
});

test("backup codes are keyed with the secret: another secret gives another hash, a legacy row wraps to the same value", () => {
  const code = "abcd-efgh-jkmn";
  assert.notEqual(
    hashBackupCode(code, SECRET),
    hashBackupCode(code, `${SECRET}-rotated`),
    "a dump without the secret cannot be checked offline",
  );
  const legacy = sha256("abcdefghjkmn");
  assert.equal(wrapBackupHash(legacy, SECRET), hashBackupCode(code, SECRET), "a legacy SHA-256 row, wrapped at start-up, matches the code");
});
