import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, scrypt } from "node:crypto";
import {
  DUMMY_HASH,
  SCRYPT_PARAMETERS,
  checkPasswordStrength,
  hashPassword,
  needsRehash,
  verifyAgainstDummy,
  verifyPassword,
} from "@/lib/accounts/password";

async function median(times: number, run: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < times; index++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

test("hashPassword encodes scrypt$N$r$p$salt$hash with a fresh salt each time", async () => {
  const first = await hashPassword("correct horse battery");
  const second = await hashPassword("correct horse battery");
  const parts = first.split("$");
  assert.equal(parts.length, 6);
  assert.deepEqual(parts.slice(0, 4), ["scrypt", String(SCRYPT_PARAMETERS.N), String(SCRYPT_PARAMETERS.r), String(SCRYPT_PARAMETERS.p)]);
  assert.equal(Buffer.from(parts[4]!, "base64url").length, 16);
  assert.equal(Buffer.from(parts[5]!, "base64url").length, 32);
  assert.notEqual(first, second, "two hashes of one password differ (random salt)");
  assert.ok(!first.includes("correct horse"));
});

test("verifyPassword accepts the right password and refuses others", async () => {
  const encoded = await hashPassword("correct horse battery");
  assert.equal(await verifyPassword("correct horse battery", encoded), true);
  assert.equal(await verifyPassword("correct horse batterY", encoded), false);
  assert.equal(await verifyPassword("", encoded), false);
  assert.equal(await verifyPassword("correct horse battery ", encoded), false);
});

test("verifyPassword treats canonically equal Unicode the same (NFKC)", async () => {
  const composed = "caf\u00e9 au lait";
  const decomposed = "cafe\u0301 au lait";
  const encoded = await hashPassword(composed);
  assert.equal(await verifyPassword(decomposed, encoded), true);
});

test("verifyPassword still verifies hashes made with older parameters, and needsRehash flags them", async () => {
  const salt = randomBytes(16);
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt("old password 1", salt, 32, { N: 2 ** 12, r: 8, p: 1 }, (error, derived) => (error ? reject(error) : resolve(derived))),
  );
  const encoded = ["scrypt", 2 ** 12, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
  assert.equal(await verifyPassword("old password 1", encoded), true);
  assert.equal(await verifyPassword("old password 2", encoded), false);
  assert.equal(needsRehash(encoded), true);
  assert.equal(needsRehash(await hashPassword("new password 1")), false);
});

test("verifyPassword answers false, without throwing, for malformed or hostile stored values", async () => {
  const valid = await hashPassword("something long");
  const [, , , , salt, hash] = valid.split("$");
  const broken = [
    "",
    "plain-text-password",
    "bcrypt$2b$10$abc",
    `scrypt$32768$8$1$${salt}`,
    `scrypt$32767$8$1$${salt}$${hash}`, // N not a power of two
    `scrypt$${2 ** 24}$8$1$${salt}$${hash}`, // N far too large: would allocate 2 GiB
    `scrypt$32768$999$1$${salt}$${hash}`,
    `scrypt$32768$8$1$$${hash}`,
    `scrypt$32768$8$1$${salt}$`,
    `scrypt$-1$8$1$${salt}$${hash}`,
  ];
  for (const encoded of broken) {
    assert.equal(await verifyPassword("something long", encoded), false, encoded);
  }
  assert.equal(needsRehash("garbage"), true);
  // Not a string at all (a null column read as any)
  assert.equal(await verifyPassword("something long", null as unknown as string), false);
});

test("DUMMY_HASH is a well-formed hash nothing matches", async () => {
  assert.match(DUMMY_HASH, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  assert.equal(await verifyPassword("", DUMMY_HASH), false);
  assert.equal(await verifyPassword("password", DUMMY_HASH), false);
  assert.equal(await verifyAgainstDummy("anything at all"), false);
});

test("an unknown email (dummy verify) costs about the same time as a wrong password for a known one", async () => {
  const encoded = await hashPassword("the real password");
  const hashTime = await median(5, () => hashPassword("the real password"));
  const knownTime = await median(5, () => verifyPassword("a wrong password", encoded));
  const unknownTime = await median(5, () => verifyAgainstDummy("a wrong password"));
  const malformedTime = await median(5, () => verifyPassword("a wrong password", "not a hash"));
  console.log(
    `scrypt N=${SCRYPT_PARAMETERS.N} r=${SCRYPT_PARAMETERS.r} p=${SCRYPT_PARAMETERS.p}: ` +
      `hash ${hashTime.toFixed(1)} ms, verify known ${knownTime.toFixed(1)} ms, dummy ${unknownTime.toFixed(1)} ms, malformed ${malformedTime.toFixed(1)} ms (medians of 5)`,
  );
  assert.ok(hashTime > 20, `hashing must be slow on purpose, took ${hashTime} ms`);
  for (const [name, time] of [
    ["dummy", unknownTime],
    ["malformed", malformedTime],
  ] as const) {
    const ratio = time / knownTime;
    assert.ok(ratio > 0.5 && ratio < 2, `${name} verify took ${time.toFixed(1)} ms vs ${knownTime.toFixed(1)} ms for a known account`);
  }
});

test("checkPasswordStrength", () => {
  const cases: [string, string | null, { email?: string }?][] = [
    ["", "Use at least 8 characters."],
    ["short", "Use at least 8 characters."],
    ["1234567", "Use at least 8 characters."],
    ["aaaaaaaa", "Use more than one repeated character."],
    ["🙂🙂🙂🙂🙂🙂🙂🙂", "Use more than one repeated character."],
    ["🙂🙂🙂🙂", "Use at least 8 characters."], // 8 UTF-16 units but 4 characters
    ["12345678", "Avoid a simple sequence such as 12345678 or abcdefgh."],
    ["abcdefghij", "Avoid a simple sequence such as 12345678 or abcdefgh."],
    ["87654321", "Avoid a simple sequence such as 12345678 or abcdefgh."],
    ["Password", "This password is too common. Choose another."],
    ["password123", "This password is too common. Choose another."],
    [`${"x".repeat(199)}y`, null],
    [`${"x".repeat(200)}y`, "Use at most 200 characters."],
    ["alice@example.com", "Do not use your email address as your password.", { email: "Alice@Example.com" }],
    ["alicealice", null, { email: "alice@example.com" }],
    ["aliceinwonder", null, { email: "alice@example.com" }],
    ["correct horse battery staple", null],
    ["Tr0ub4dor&3", null],
    ["12345679", null],
  ];
  for (const [input, expected, context] of cases) {
    assert.equal(checkPasswordStrength(input, context), expected, JSON.stringify(input));
  }
  assert.equal(checkPasswordStrength(undefined as unknown as string), "Enter a password.");
});
