// Backup codes for the second factor (security item 13): random, shown once, stored as SHA-256, single use
// (the caller marks a row used with a conditional update).
import { randomToken, sha256 } from "@/lib/crypto/secrets";

// Lowercase letters and digits without the look-alikes i, l, o, 0, 1: codes are read off paper and typed by hand.
// 31 symbols × 12 characters ≈ 59 bits per code.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const GROUPS = 3;
const GROUP_LENGTH = 4;

/** Lowercase, without spaces or dashes (including the Unicode dashes a word processor or phone may substitute). */
export function normaliseBackupCode(input: string): string {
  return String(input).toLowerCase().replace(/[\s\-\u2010-\u2015\u2212]+/g, "");
}

export function hashBackupCode(input: string): string {
  return sha256(normaliseBackupCode(input));
}

function newBackupCode(): string {
  const raw = randomToken(GROUPS * GROUP_LENGTH, ALPHABET);
  const groups: string[] = [];
  for (let index = 0; index < raw.length; index += GROUP_LENGTH) groups.push(raw.slice(index, index + GROUP_LENGTH));
  return groups.join("-");
}

/** `count` new codes like `abcd-efgh-jkmn`: `plain` to show once, `hashes` (same order) to store. */
export function newBackupCodes(count = 10): { plain: string[]; hashes: string[] } {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new RangeError("count must be an integer from 1 to 100");
  const plain = new Set<string>();
  // A duplicate is astronomically unlikely, but two equal codes would make one of them unusable after the first use.
  while (plain.size < count) plain.add(newBackupCode());
  const codes = [...plain];
  return { plain: codes, hashes: codes.map(hashBackupCode) };
}
