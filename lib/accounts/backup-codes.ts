// Backup codes for the second factor (SECURITY.md: backup codes random, single use, hashed): random, shown once, single use (the caller marks a row
// used with a conditional update). Stored as an HMAC keyed with the gateway secret over the code's SHA-256
// ("h1:<hex>"): ~59 bits of code would be crackable offline from a database dump if hashed without a key. Rows from
// before were plain SHA-256; start-up wraps them (HMAC over the stored hash gives the same value), so old codes keep
// working. Rotating GATEWAY_SECRET voids every backup code (README.md).
import { createHmac } from "node:crypto";
import { deriveSecret, randomToken, sha256 } from "@/lib/platform/crypto";

export const BACKUP_HASH_PREFIX = "h1:";

/** The stored form of a code's SHA-256 (a new code's, or a legacy row's stored hash). */
export function wrapBackupHash(sha256Hex: string, secret: string): string {
  return `${BACKUP_HASH_PREFIX}${createHmac("sha256", deriveSecret(secret, "backup-codes")).update(sha256Hex).digest("hex")}`;
}

// Lowercase letters and digits without the look-alikes i, l, o, 0, 1: codes are read off paper and typed by hand.
// 31 symbols × 12 characters ≈ 59 bits per code.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const GROUPS = 3;
const GROUP_LENGTH = 4;

/** Lowercase, without spaces or dashes (including the Unicode dashes a word processor or phone may substitute). */
export function normaliseBackupCode(input: string): string {
  return String(input)
    .toLowerCase()
    .replace(/[\s\-\u2010-\u2015\u2212]+/g, "");
}

export function hashBackupCode(input: string, secret: string): string {
  return wrapBackupHash(sha256(normaliseBackupCode(input)), secret);
}

function newBackupCode(): string {
  const raw = randomToken(GROUPS * GROUP_LENGTH, ALPHABET);
  const groups: string[] = [];
  for (let index = 0; index < raw.length; index += GROUP_LENGTH) groups.push(raw.slice(index, index + GROUP_LENGTH));
  return groups.join("-");
}

/** `count` new codes like `abcd-efgh-jkmn`: `plain` to show once, `hashes` (same order) to store. */
export function newBackupCodes(secret: string, count = 10): { plain: string[]; hashes: string[] } {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new RangeError("count must be an integer from 1 to 100");
  const plain = new Set<string>();
  // A duplicate is astronomically unlikely, but two equal codes would make one of them unusable after the first use.
  while (plain.size < count) plain.add(newBackupCode());
  const codes = [...plain];
  return { plain: codes, hashes: codes.map((code) => hashBackupCode(code, secret)) };
}
