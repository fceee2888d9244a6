// Sign-in and second-factor throttling (security item 12, OWASP ASVS v5 6.3) on top of lib/runtime/limiter.
//
// Policy, per 15-minute window (opened by the first counted attempt):
// - per account (email, trimmed and lowercased): 5 attempts that did not succeed, then locked until the window ends;
// - per client address: 30 failures, against one address spraying passwords across many accounts.
// Second-factor codes follow the same policy with their own counters.
//
// The account counter is charged in `check…Allowed`, before the password or code is verified, and cleared on success.
// Charging afterwards (only on failure) would let an attacker fire 100 guesses in parallel: all of them would pass
// the check before the first failure was recorded. So with the usual flow (check → verify → record), the sixth wrong
// attempt is the one refused, and no burst gets more than five guesses at one account.
//
// Nothing here looks at the database: an unknown email is counted exactly like a known one, so neither the answers
// nor the lockouts say whether an account exists. Emails are hashed into the keys so Redis holds no addresses.
import { isIPv6 } from "node:net";
import { sha256 } from "@/lib/crypto/secrets";
import { MemoryLimiter, type Limiter } from "@/lib/runtime/limiter";
import { resetSingleton, singleton } from "@/lib/runtime/singleton";

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const ACCOUNT_FAILURE_LIMIT = 5;
export const ADDRESS_FAILURE_LIMIT = 30;

// Kept in the process-wide singleton store, not a module variable: server.ts and the Next.js bundle each load their
// own copy of this module, and a limiter set at start-up must be the one the sign-in route uses.
const LIMITER = "accounts.throttle.limiter";

function limiter(): Limiter {
  return singleton<Limiter>(LIMITER, () => new MemoryLimiter());
}

/** Replaces the limiter (the Redis one at start-up when REDIS_URL is set; a fresh one in tests). */
export function useLimiter(next: Limiter): void {
  resetSingleton(LIMITER);
  singleton(LIMITER, () => next);
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

type Stage = "signin" | "2fa";

export function normaliseEmail(email: string): string {
  return String(email ?? "").trim().toLowerCase();
}

function accountKey(stage: Stage, email: string): string {
  return `${stage}:account:${sha256(normaliseEmail(email))}`;
}

/**
 * The bucket for a client address. IPv4 (also written as `::ffff:a.b.c.d`) counts per address; IPv6 counts per /64,
 * because one subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function addressBucket(ip: string): string {
  let address = ip.trim().toLowerCase();
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv6(address)) {
    const [head = "", tail = ""] = address.split("::");
    const left = head ? head.split(":") : [];
    const right = tail ? tail.split(":") : [];
    const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
    return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`;
  }
  return address;
}

/** Null when the address is unknown: one shared "unknown" bucket would let one client lock out all the others. */
function addressKey(stage: Stage, ip: string | null | undefined): string | null {
  const address = typeof ip === "string" ? addressBucket(ip) : "";
  return address ? `${stage}:ip:${address}` : null;
}

function seconds(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}

async function check(stage: Stage, input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  const address = addressKey(stage, input.ip);
  if (address) {
    const state = await limiter().peek(address, ADDRESS_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
    if (!state.allowed) return { allowed: false, retryAfterSeconds: seconds(state.retryAfterMs) };
  }
  const account = await limiter().hit(accountKey(stage, input.email), ACCOUNT_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
  if (!account.allowed) return { allowed: false, retryAfterSeconds: seconds(account.retryAfterMs) };
  return { allowed: true };
}

async function recordFailure(stage: Stage, input: { email: string; ip?: string | null }): Promise<void> {
  // The account was already charged by check; only the address counter counts failures after the fact.
  const address = addressKey(stage, input.ip);
  if (address) await limiter().hit(address, ADDRESS_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
}

async function recordSuccess(stage: Stage, input: { email: string }): Promise<void> {
  // Only the account counter: clearing the address counter would let an attacker reset it by signing in to an
  // account of their own between guesses.
  await limiter().reset(accountKey(stage, input.email));
}

/** Call before checking a password. When not allowed, answer "too many attempts" without checking it. */
export function checkSignInAllowed(input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  return check("signin", input);
}

/** Call after a wrong password or an unknown email (both the same way). */
export function recordSignInFailure(input: { email: string; ip?: string | null }): Promise<void> {
  return recordFailure("signin", input);
}

/** Call after a correct password: clears the account's counter. */
export function recordSignInSuccess(input: { email: string }): Promise<void> {
  return recordSuccess("signin", input);
}

/** Call before checking a TOTP or backup code. */
export function checkSecondFactorAllowed(input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  return check("2fa", input);
}

export function recordSecondFactorFailure(input: { email: string; ip?: string | null }): Promise<void> {
  return recordFailure("2fa", input);
}

export function recordSecondFactorSuccess(input: { email: string }): Promise<void> {
  return recordSuccess("2fa", input);
}

// ---------------------------------------------------------------------------------------------------------------
// Other account flows (sign-up, reset mails, reset attempts, redeem-code guesses) count events in named buckets on
// the same limiter, so they are shared across instances with Redis like the sign-in counters.

/** The bucket name for `purpose` and a client address; null when the address is unknown (see addressKey). */
export function addressCounter(purpose: string, ip: string | null | undefined): string | null {
  const address = typeof ip === "string" ? addressBucket(ip) : "";
  return address ? `${purpose}:ip:${address}` : null;
}

/** The bucket name for `purpose` and an account, by its email (hashed: Redis holds no addresses). */
export function accountCounter(purpose: string, email: string): string {
  return `${purpose}:account:${sha256(normaliseEmail(email))}`;
}

/** Counts one event in `bucket` and says whether it is within `limit` per window. */
export async function countEvent(bucket: string, limit: number, windowMs = THROTTLE_WINDOW_MS): Promise<ThrottleDecision> {
  const state = await limiter().hit(bucket, limit, windowMs);
  return state.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: seconds(state.retryAfterMs) };
}

/** Whether one more event in `bucket` would be within `limit`, without counting it. */
export async function peekEvents(bucket: string, limit: number, windowMs = THROTTLE_WINDOW_MS): Promise<ThrottleDecision> {
  const state = await limiter().peek(bucket, limit, windowMs);
  return state.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: seconds(state.retryAfterMs) };
}

/**
 * What a locked caller reads: when to try again, relative and as a UTC time, e.g.
 * "Too many attempts. Try again in 15 minutes (after 2026-01-01T12:15:00Z)." The same text for every account,
 * known or not, since the counters never look at the database.
 */
export function lockedMessage(retryAfterSeconds: number, now = Date.now()): string {
  const wait = Math.max(1, Math.ceil(retryAfterSeconds));
  const relative = wait < 60 ? `${wait} second${wait === 1 ? "" : "s"}` : `${Math.ceil(wait / 60)} minute${Math.ceil(wait / 60) === 1 ? "" : "s"}`;
  const at = new Date(now + wait * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return `Too many attempts. Try again in ${relative} (after ${at}).`;
}
