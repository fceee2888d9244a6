// Password hashing with scrypt (docs/decisions/0004-secrets-hashed-or-encrypted.md: passwords get a slow hash).
// Stored as `scrypt$N$r$p$salt$hash` (salt and hash in base64url) so the cost can be raised later: old hashes keep
// verifying with the parameters they were made with, and `needsRehash` tells the caller when to upgrade one.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * N = 2^15, r = 8, p = 1: about 100-110 ms per hash on the 2-core development machine (2^14 was ~50 ms, 2^16 ~225 ms).
 * Uses 128 * N * r = 32 MiB per hash, which is exactly node's default `maxmem`, hence the explicit limit below.
 */
export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MIN_LENGTH = 8;
const MAX_LENGTH = 200;

// Bounds for parameters read back from the database: a corrupt or hostile row must not make one sign-in allocate
// gigabytes or spin for minutes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function deriveKey(plain: string, salt: Buffer, length: number, parameters: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...parameters, maxmem: 128 * parameters.N * parameters.r * parameters.p + 16 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(plain.normalize("NFKC"), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(plain, salt, KEY_BYTES, SCRYPT_PARAMETERS);
  const { N, r, p } = SCRYPT_PARAMETERS;
  return ["scrypt", N, r, p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

type Parsed = { N: number; r: number; p: number; salt: Buffer; key: Buffer };

function parse(encoded: string): Parsed | null {
  if (typeof encoded !== "string") return null;
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part!) ? Number(part) : NaN)) as [number, number, number];
  const isPowerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0;
  if (!isPowerOfTwo || N > MAX_N || !(r >= 1 && r <= MAX_R) || !(p >= 1 && p <= MAX_P)) return null;
  const salt = Buffer.from(parts[4]!, "base64url");
  const key = Buffer.from(parts[5]!, "base64url");
  if (salt.length < 8 || key.length < 16 || key.length > 128) return null;
  return { N, r, p, salt, key };
}

/**
 * True when `plain` matches. Never throws on a malformed stored value (returns false), and still spends one hash
 * so a broken row is not distinguishable by timing from a wrong password.
 */
export async function verifyPassword(plain: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed || typeof plain !== "string" || plain.length > MAX_LENGTH * 4) {
    await verifyAgainstDummy(typeof plain === "string" ? plain.slice(0, MAX_LENGTH) : "");
    return false;
  }
  const candidate = await deriveKey(plain, parsed.salt, parsed.key.length, parsed);
  return timingSafeEqual(candidate, parsed.key);
}

/** True when the stored hash was made with other parameters than today's (re-hash it after a successful sign-in). */
export function needsRehash(encoded: string): boolean {
  const parsed = parse(encoded);
  if (!parsed) return true;
  return (
    parsed.N !== SCRYPT_PARAMETERS.N ||
    parsed.r !== SCRYPT_PARAMETERS.r ||
    parsed.p !== SCRYPT_PARAMETERS.p ||
    parsed.key.length !== KEY_BYTES
  );
}

/**
 * A valid hash of a random password nobody knows, with today's parameters. Sign-in for an unknown email verifies
 * against it, so it costs the same time as a known email with a wrong password and reveals nothing.
 */
export const DUMMY_HASH = [
  "scrypt",
  SCRYPT_PARAMETERS.N,
  SCRYPT_PARAMETERS.r,
  SCRYPT_PARAMETERS.p,
  randomBytes(SALT_BYTES).toString("base64url"),
  randomBytes(KEY_BYTES).toString("base64url"),
].join("$");

/** Spends one full hash and always answers false. */
export async function verifyAgainstDummy(plain: string): Promise<false> {
  const parsed = parse(DUMMY_HASH)!;
  const candidate = await deriveKey(typeof plain === "string" ? plain : "", parsed.salt, parsed.key.length, parsed);
  timingSafeEqual(candidate, parsed.key);
  return false;
}

// A short list of the passwords tried first by every credential-stuffing list; the length rule removes most others.
const COMMON = new Set([
  "password",
  "password1",
  "password123",
  "12345678",
  "123456789",
  "1234567890",
  "qwertyuiop",
  "qwerty123",
  "iloveyou",
  "11111111",
  "abc12345",
  "abcd1234",
  "letmein1",
  "welcome1",
  "sunshine",
  "football",
  "baseball",
  "princess",
  "trustno1",
  "changeme",
  "admin123",
  "passw0rd",
]);

function isSequence(characters: string[]): boolean {
  const codes = characters.map((character) => character.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  if (Math.abs(step) !== 1) return false;
  return codes.every((code, index) => index === 0 || code - codes[index - 1]! === step);
}

/**
 * Null when the password is acceptable, otherwise a message to show the user. The rules follow OWASP ASVS v5 6.2:
 * a minimum length, a generous maximum, no composition rules, and a check against obviously guessable values.
 */
export function checkPasswordStrength(plain: string, context: { email?: string } = {}): string | null {
  if (typeof plain !== "string") return "Enter a password.";
  // Count characters as the user sees them, not UTF-16 units, so an emoji is one character.
  const characters = [...plain];
  if (characters.length < MIN_LENGTH) return `Use at least ${MIN_LENGTH} characters.`;
  if (characters.length > MAX_LENGTH) return `Use at most ${MAX_LENGTH} characters.`;
  if (characters.every((character) => character === characters[0])) return "Use more than one repeated character.";
  if (isSequence(characters)) return "Avoid a simple sequence such as 12345678 or abcdefgh.";
  const lower = plain.toLowerCase();
  if (COMMON.has(lower)) return "This password is too common. Choose another.";
  const email = context.email?.trim().toLowerCase();
  if (email && (lower === email || lower === email.split("@")[0])) return "Do not use your email address as your password.";
  return null;
}
