// Sign-in and second-factor throttling (SECURITY.md: TOTP lockout; OWASP ASVS v5 6.3) on top of lib/platform/limiter.ts.
//
// Policy, per 15-minute window (opened by the first counted attempt). The client address is the one from
// lib/platform/http/client-address.ts (the real client behind trusted proxies, not the load balancer):
// - per account *and* address: 5 attempts that did not succeed, then that address is locked out of that account
//   until the window ends. Someone else's failures, from their own address, never lock the owner out;
// - per client address: 30 failures, against one address spraying passwords across many accounts;
// - per account, across all addresses: past 10 attempts in the window that did not succeed (passwords sprayed from
//   many addresses at one account), the account is slowed down rather than locked: addresses that never signed in
//   to it get one attempt per interval between them (30 s, doubling with every further 10 attempts, at most 15
//   minutes). Addresses that have signed in to the account before (remembered 90 days) are not slowed down.
// Second-factor codes follow the same policy with their own counters.
//
// The account's counters (per address and across addresses) are charged in `check…Allowed`, before the password or
// code is verified, and cleared on success. Charging afterwards (only on failure) would let an attacker fire 100
// guesses in parallel: all of them would pass the check before the first failure was recorded. So with the usual
// flow (check → verify → record), the sixth wrong attempt is the one refused, no burst gets more than five guesses
// from one address, and a burst from many addresses gets eleven (ten, then one per interval).
//
// Nothing here looks at the database: an unknown email is counted exactly like a known one, so neither the answers
// nor the lockouts say whether an account exists. Emails are hashed into the keys so Redis holds no addresses.
import { sha256 } from "@/lib/platform/crypto";
import { addressBucket } from "@/lib/platform/http/cidr";
import { MemoryLimiter, type Limiter } from "@/lib/platform/limiter";
import { resetSingleton, singleton } from "@/lib/platform/singleton";

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** Failures per account and address in a window before that address is locked out of the account. */
export const ACCOUNT_FAILURE_LIMIT = 5;
export const ADDRESS_FAILURE_LIMIT = 30;
/** Attempts on one account from all addresses in a window past which unknown addresses are slowed down. */
export const SPRAY_THRESHOLD = 10;
export const SPRAY_FIRST_INTERVAL_MS = 30_000;
export const SPRAY_MAX_INTERVAL_MS = 15 * 60 * 1000;
/** How long an address that signed in to an account is remembered as the owner's. */
export const KNOWN_ADDRESS_MS = 90 * 24 * 3600 * 1000;
// A count no window reaches: counters that only count, never refuse by themselves.
const UNLIMITED = Number.MAX_SAFE_INTEGER;

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
  return String(email ?? "")
    .trim()
    .toLowerCase();
}

/** The bucket for a client address (lib/platform/http/cidr.ts): IPv4 per address, IPv6 per /64. */
export { addressBucket };

function bucketOf(ip: string | null | undefined): string {
  return typeof ip === "string" ? addressBucket(ip) : "";
}

/** Null when the address is unknown: one shared "unknown" bucket would let one client lock out all the others. */
function addressKey(stage: Stage, ip: string | null | undefined): string | null {
  const address = bucketOf(ip);
  return address ? `${stage}:ip:${address}` : null;
}

/** Per account and address; per account alone when the address is unknown (next dev without a proxy header). */
function pairKey(stage: Stage, email: string, ip: string | null | undefined): string {
  const address = bucketOf(ip);
  return `${stage}:account:${sha256(normaliseEmail(email))}${address ? `:ip:${sha256(address)}` : ""}`;
}

function sprayKey(stage: Stage, email: string): string {
  return `${stage}:spray:${sha256(normaliseEmail(email))}`;
}

function knownKey(email: string, ip: string): string {
  return `known:${sha256(normaliseEmail(email))}:${sha256(addressBucket(ip))}`;
}

function seconds(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}

/** The interval between attempts from unknown addresses once an account has had `attempts` in the window. */
export function sprayInterval(attempts: number): number {
  if (attempts < SPRAY_THRESHOLD) return 0;
  const doublings = Math.floor((attempts - SPRAY_THRESHOLD) / SPRAY_THRESHOLD);
  return Math.min(SPRAY_MAX_INTERVAL_MS, SPRAY_FIRST_INTERVAL_MS * 2 ** Math.min(doublings, 20));
}

async function isKnownAddress(email: string, ip: string | null | undefined): Promise<boolean> {
  if (!bucketOf(ip)) return false;
  return (await limiter().peek(knownKey(email, ip!), 1, KNOWN_ADDRESS_MS)).count > 0;
}

async function check(stage: Stage, input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  const address = addressKey(stage, input.ip);
  if (address) {
    const state = await limiter().peek(address, ADDRESS_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
    if (!state.allowed) return { allowed: false, retryAfterSeconds: seconds(state.retryAfterMs) };
  }
  // Every attempt on the account counts here, before anything is verified, for the same reason as the pair counter
  // below: a parallel burst from many addresses must not all pass before the first failure is recorded.
  const spray = await limiter().hit(sprayKey(stage, input.email), UNLIMITED, THROTTLE_WINDOW_MS);
  const interval = sprayInterval(spray.count - 1);
  if (interval > 0 && !(await isKnownAddress(input.email, input.ip))) {
    // One attempt per interval for all unknown addresses together: the slot's window opens with the interval of the
    // attempt that takes it, so a longer interval applies from the next slot on.
    const slot = await limiter().hit(`${sprayKey(stage, input.email)}:slot`, 1, interval);
    if (!slot.allowed) return { allowed: false, retryAfterSeconds: seconds(slot.retryAfterMs) };
  }
  const pair = await limiter().hit(pairKey(stage, input.email, input.ip), ACCOUNT_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
  if (!pair.allowed) return { allowed: false, retryAfterSeconds: seconds(pair.retryAfterMs) };
  return { allowed: true };
}

async function recordFailure(stage: Stage, input: { email: string; ip?: string | null }): Promise<void> {
  // The account's counters were charged by check; the address counter counts failures after the fact.
  const address = addressKey(stage, input.ip);
  if (address) await limiter().hit(address, ADDRESS_FAILURE_LIMIT, THROTTLE_WINDOW_MS);
}

async function recordSuccess(stage: Stage, input: { email: string; ip?: string | null }): Promise<void> {
  // The account's counters only: clearing the address counter would let an attacker reset it by signing in to an
  // account of their own between guesses. Only the password's (or the code's) holder gets here, so the
  // account-wide counter may go too.
  await limiter().reset(pairKey(stage, input.email, input.ip));
  await limiter().reset(sprayKey(stage, input.email));
}

/** Call before checking a password. When not allowed, answer "too many attempts" without checking it. */
export function checkSignInAllowed(input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  return check("signin", input);
}

/** Call after a wrong password or an unknown email (both the same way). */
export function recordSignInFailure(input: { email: string; ip?: string | null }): Promise<void> {
  return recordFailure("signin", input);
}

/** Call after a correct password: clears the account's counters for this address. */
export function recordSignInSuccess(input: { email: string; ip?: string | null }): Promise<void> {
  return recordSuccess("signin", input);
}

/** Call when a sign-in completed (password and, when on, the second factor): the address is now the owner's. */
export async function recordSignInComplete(input: { email: string; ip?: string | null }): Promise<void> {
  if (!bucketOf(input.ip)) return;
  const key = knownKey(input.email, input.ip!);
  // A fresh 90-day window on every sign-in, so an address in regular use is never forgotten.
  await limiter().reset(key);
  await limiter().hit(key, UNLIMITED, KNOWN_ADDRESS_MS);
}

/** Call before checking a TOTP or backup code. */
export function checkSecondFactorAllowed(input: { email: string; ip?: string | null }): Promise<ThrottleDecision> {
  return check("2fa", input);
}

export function recordSecondFactorFailure(input: { email: string; ip?: string | null }): Promise<void> {
  return recordFailure("2fa", input);
}

export function recordSecondFactorSuccess(input: { email: string; ip?: string | null }): Promise<void> {
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
export function lockedMessage(retryAfterSeconds: number): string {
  // Words only: a raw timestamp means nothing to a person (and is in the wrong time zone); Retry-After has the number.
  const wait = Math.max(1, Math.ceil(retryAfterSeconds));
  const relative =
    wait < 60 ? `${wait} second${wait === 1 ? "" : "s"}` : `${Math.ceil(wait / 60)} minute${Math.ceil(wait / 60) === 1 ? "" : "s"}`;
  return `Too many attempts. Try again in ${relative}.`;
}
