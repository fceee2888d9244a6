// One rate limiter for per-key request limits and sign-in throttling, in process or in Redis
// (docs/decisions/0009-scale-out-on-postgres-and-redis.md: with REDIS_URL, every gateway process shares the same counters).
//
// Algorithm: a fixed window that opens at a key's first hit and lasts `windowMs`. Every hit increments the count;
// the window does not move while it is open, so hits refused during a lockout do not prolong it. It can let up to
// 2 × limit through around a window boundary; that is accepted in exchange for one counter per key and one atomic
// round trip, and it is still "at most `limit` per window" for the lockout policy.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

export type LimitResult = {
  /** hit: this hit is within the limit. peek: a further hit would be. */
  allowed: boolean;
  /** Hits counted in the current window (including this one, for hit). */
  count: number;
  /** When not allowed: milliseconds until the window ends and counting starts again; otherwise 0. */
  retryAfterMs: number;
};

export interface Limiter {
  /** Counts one hit on `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<LimitResult>;
  /** Reads the state of `key` without counting. `limit` and `windowMs` describe the same policy as for hit. */
  peek(key: string, limit: number, windowMs: number): Promise<LimitResult>;
  /** Forgets `key` (e.g. the account counter after a successful sign-in). */
  reset(key: string): Promise<void>;
  readonly kind: "memory" | "redis";
}

function checkArguments(limit: number, windowMs: number): void {
  if (!Number.isFinite(limit) || limit < 0) throw new RangeError("limit must be a number ≥ 0");
  if (!Number.isInteger(windowMs) || windowMs < 1) throw new RangeError("windowMs must be a positive integer");
}

function result(count: number, limit: number, remainingMs: number, counted: boolean): LimitResult {
  const allowed = counted ? count <= limit : count < limit;
  return { allowed, count, retryAfterMs: allowed ? 0 : Math.max(1, remainingMs) };
}

// ---------------------------------------------------------------------------------------------------------------
// In process

type Window = { count: number; resetAt: number };

export type MemoryLimiterOptions = {
  /** Most keys held at once (default 100 000). Past it, expired windows are swept, then the oldest are dropped. */
  maxEntries?: number;
  /** How often, at most, a hit sweeps expired windows (default 60 s). */
  sweepIntervalMs?: number;
  /** The clock, replaceable in tests. */
  now?: () => number;
};

export class MemoryLimiter implements Limiter {
  readonly kind = "memory" as const;
  private readonly windows = new Map<string, Window>();
  private readonly maxEntries: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private lastSweep: number;

  constructor(options: MemoryLimiterOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** Keys currently held (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private open(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.resetAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  /** Drops expired windows; if still full, drops the oldest (Map order is insertion order) to stay bounded. */
  private sweep(now: number, force: boolean): void {
    if (!force && now - this.lastSweep < this.sweepIntervalMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Dropping a live window forgets someone's count: only as a last resort against unbounded memory.
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxEntries) break;
      this.windows.delete(key);
    }
  }

  async hit(key: string, limit: number, windowMs: number): Promise<LimitResult> {
    checkArguments(limit, windowMs);
    const now = this.now();
    this.sweep(now, this.windows.size >= this.maxEntries);
    let window = this.open(key, now);
    if (!window) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return result(window.count, limit, window.resetAt - now, true);
  }

  async peek(key: string, limit: number, windowMs: number): Promise<LimitResult> {
    checkArguments(limit, windowMs);
    const now = this.now();
    const window = this.open(key, now);
    return result(window?.count ?? 0, limit, window ? window.resetAt - now : windowMs, false);
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Redis

// INCR and PEXPIRE in one script, so two processes can never both see count 1, and a key can never be left without
// an expiry (which would lock it forever) if a process dies between the two commands.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}
`;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

export type RedisLimiterOptions = {
  /** Prepended to every key (default `gateway:limit:`). */
  prefix?: string;
};

export class RedisLimiter implements Limiter {
  readonly kind = "redis" as const;
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: RedisLimiterOptions = {},
  ) {
    this.prefix = options.prefix ?? "gateway:limit:";
  }

  /** EVALSHA, loading the script on NOSCRIPT (after a Redis restart or on a fresh server). */
  private async run(script: string, key: string, ...args: (string | number)[]): Promise<[number, number]> {
    const digest = sha1(script);
    try {
      return (await this.redis.evalsha(digest, 1, this.prefix + key, ...args)) as [number, number];
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes("NOSCRIPT")) throw error;
      return (await this.redis.eval(script, 1, this.prefix + key, ...args)) as [number, number];
    }
  }

  async hit(key: string, limit: number, windowMs: number): Promise<LimitResult> {
    checkArguments(limit, windowMs);
    const [count, ttl] = await this.run(HIT_SCRIPT, key, windowMs);
    return result(Number(count), limit, Number(ttl), true);
  }

  async peek(key: string, limit: number, windowMs: number): Promise<LimitResult> {
    checkArguments(limit, windowMs);
    const [count, ttl] = await this.run(PEEK_SCRIPT, key);
    // PTTL is -2 for a missing key: nothing counted, a new window would be a full one.
    return result(Number(count), limit, Number(ttl) > 0 ? Number(ttl) : windowMs, false);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/**
 * The limiter for this deployment: Redis when a client is given (shared by all gateway processes), otherwise in
 * process. Redis errors propagate to the caller, which decides whether to fail open (request limits) or closed.
 */
export function createLimiter(redis?: Redis | null, options: MemoryLimiterOptions & RedisLimiterOptions = {}): Limiter {
  return redis ? new RedisLimiter(redis, options) : new MemoryLimiter(options);
}
