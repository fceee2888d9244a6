// Redeem codes are shown as GW-XXXXX-XXXXX-XXXXX-XXXXX; people retype them in other case, with spaces or dashes,
// and confuse O with 0 and I or L with 1.
// New codes use Crockford's base-32 alphabet: 20 characters, 100 random bits, no letter that looks
// like a digit. Their stored hash is of a case-free form: upper case, separators dropped, O→0, I/L→1, behind a "v2:"
// tag so it can never equal an old hash. Older codes were case-sensitive random strings: they keep their hash (of
// the form with only spaces and dashes dropped), so a lookup tries the case-free hash first, then the old one.
import { randomToken, sha256 } from "@/lib/platform/crypto";

export const REDEEM_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A new code: GW- and four groups of five characters from REDEEM_ALPHABET (100 bits). */
export function newRedeemCode(): string {
  return `GW-${[0, 1, 2, 3].map(() => randomToken(5, REDEEM_ALPHABET)).join("-")}`;
}

/** The form of a code in the older format: only spaces and dashes ignored, case kept. */
export function normaliseRedeemCode(input: string): string {
  return input.replace(/[\s-]+/g, "").trim();
}

/** The case-free form of a new code. */
export function caseFreeRedeemCode(input: string): string {
  return normaliseRedeemCode(input).toUpperCase().replace(/O/g, "0").replace(/[IL]/g, "1");
}

/** The hash stored for a new code. */
export function redeemCodeHash(code: string): string {
  return sha256(`v2:${caseFreeRedeemCode(code)}`);
}

/** The hashes to look a typed code up by, newest scheme first (distinct). */
export function redeemLookupHashes(input: string): string[] {
  const hashes = [redeemCodeHash(input), sha256(normaliseRedeemCode(input))];
  return [...new Set(hashes)];
}
