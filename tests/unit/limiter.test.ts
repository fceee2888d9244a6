import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { MemoryLimiter, RedisLimiter, createLimiter, type Limiter } from "@/lib/platform/limiter";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (milliseconds: number) => (now += milliseconds) };
}

describe("MemoryLimiter", () => {
  test("counts hits in a fixed window and refuses past the limit, saying when to retry", async () => {
    const time = clock();
    const limiter = new MemoryLimiter({ now: time.now });
    for (let count = 1; count <= 3; count++) {
      assert.deepEqual(await limiter.hit("key", 3, 60_000), { allowed: true, count, retryAfterMs: 0 });
      time.advance(1_000);
    }
    assert.deepEqual(await limiter.hit("key", 3, 60_000), { allowed: false, count: 4, retryAfterMs: 57_000 });
  });

  test("refused hits do not extend the window; it reopens when it ends", async () => {
    const time = clock();
    const limiter = new MemoryLimiter({ now: time.now });
    await limiter.hit("key", 1, 10_000);
    time.advance(5_000);
    assert.deepEqual(await limiter.hit("key", 1, 10_000), { allowed: false, count: 2, retryAfterMs: 5_000 });
    time.advance(4_999);
    assert.deepEqual(await limiter.hit("key", 1, 10_000), { allowed: false, count: 3, retryAfterMs: 1 });
    time.advance(1);
    assert.deepEqual(await limiter.hit("key", 1, 10_000), { allowed: true, count: 1, retryAfterMs: 0 });
  });

  test("peek reads without counting: allowed means one more hit would be", async () => {
    const time = clock();
    const limiter = new MemoryLimiter({ now: time.now });
    assert.deepEqual(await limiter.peek("key", 2, 60_000), { allowed: true, count: 0, retryAfterMs: 0 });
    await limiter.hit("key", 2, 60_000);
    assert.deepEqual(await limiter.peek("key", 2, 60_000), { allowed: true, count: 1, retryAfterMs: 0 });
    assert.deepEqual(await limiter.peek("key", 2, 60_000), { allowed: true, count: 1, retryAfterMs: 0 });
    await limiter.hit("key", 2, 60_000);
    time.advance(20_000);
    assert.deepEqual(await limiter.peek("key", 2, 60_000), { allowed: false, count: 2, retryAfterMs: 40_000 });
    time.advance(40_000);
    assert.deepEqual(await limiter.peek("key", 2, 60_000), { allowed: true, count: 0, retryAfterMs: 0 });
  });

  test("reset forgets one key; keys are independent", async () => {
    const limiter = new MemoryLimiter();
    await limiter.hit("a", 1, 60_000);
    await limiter.hit("a", 1, 60_000);
    await limiter.hit("b", 1, 60_000);
    await limiter.reset("a");
    assert.equal((await limiter.peek("a", 1, 60_000)).count, 0);
    assert.equal((await limiter.peek("b", 1, 60_000)).count, 1);
    await limiter.reset("never-seen");
  });

  test("a limit of 0 refuses everything", async () => {
    const limiter = new MemoryLimiter();
    assert.equal((await limiter.hit("key", 0, 1_000)).allowed, false);
  });

  test("parallel hits: exactly `limit` allowed", async () => {
    const limiter = new MemoryLimiter();
    const results = await Promise.all(Array.from({ length: 100 }, () => limiter.hit("key", 7, 60_000)));
    assert.equal(results.filter((result) => result.allowed).length, 7);
    assert.deepEqual(
      results.map((result) => result.count).sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
  });

  test("expired windows are swept on the next hit after the sweep interval", async () => {
    const time = clock();
    const limiter = new MemoryLimiter({ now: time.now, sweepIntervalMs: 60_000 });
    for (let index = 0; index < 50; index++) await limiter.hit(`short-${index}`, 5, 1_000);
    await limiter.hit("long", 5, 600_000);
    assert.equal(limiter.size, 51);
    time.advance(2_000);
    await limiter.hit("other", 5, 600_000);
    assert.equal(limiter.size, 52, "no sweep before the interval");
    time.advance(60_000);
    await limiter.hit("other", 5, 600_000);
    assert.equal(limiter.size, 2, "the 50 expired windows are gone, live ones stay");
    assert.equal((await limiter.peek("long", 5, 600_000)).count, 1);
    assert.equal((await limiter.peek("other", 5, 600_000)).count, 2);
  });

  test("stays within maxEntries: expired first, then the oldest windows", async () => {
    const time = clock();
    const limiter = new MemoryLimiter({ now: time.now, maxEntries: 100 });
    for (let index = 0; index < 60; index++) await limiter.hit(`expiring-${index}`, 5, 1_000);
    time.advance(1_000);
    for (let index = 0; index < 60; index++) await limiter.hit(`live-${index}`, 5, 60_000);
    assert.ok(limiter.size <= 100);
    // The expired ones went first, so every live key is still counted.
    for (let index = 0; index < 60; index++) assert.equal((await limiter.peek(`live-${index}`, 5, 60_000)).count, 1);
    for (let index = 0; index < 1_000; index++) await limiter.hit(`flood-${index}`, 5, 60_000);
    assert.ok(limiter.size <= 100, `size ${limiter.size}`);
    assert.equal((await limiter.peek("flood-999", 5, 60_000)).count, 1, "the newest key survives");
    assert.equal((await limiter.peek("live-0", 5, 60_000)).count, 0, "the oldest was dropped");
  });

  test("invalid arguments throw", async () => {
    const limiter = new MemoryLimiter();
    await assert.rejects(limiter.hit("key", -1, 1_000), RangeError);
    await assert.rejects(limiter.hit("key", 1, 0), RangeError);
    await assert.rejects(limiter.hit("key", 1, 1.5), RangeError);
    await assert.rejects(limiter.peek("key", Number.NaN, 1_000), RangeError);
  });
});

describe("RedisLimiter script loading", () => {
  test("falls back to EVAL when Redis does not have the script cached (NOSCRIPT), and propagates other errors", async () => {
    const calls: string[] = [];
    let failWith = "NOSCRIPT No matching script. Please use EVAL.";
    const fake = {
      async evalsha(digest: string, keyCount: number, key: string) {
        calls.push(`evalsha ${digest.length} ${keyCount} ${key}`);
        throw new Error(failWith);
      },
      async eval(script: string, keyCount: number, key: string, windowMs: number) {
        calls.push(`eval ${script.includes("INCR")} ${keyCount} ${key} ${windowMs}`);
        return [1, 1_000];
      },
    };
    const limiter = new RedisLimiter(fake as unknown as Redis, { prefix: "p:" });
    assert.deepEqual(await limiter.hit("k", 5, 1_000), { allowed: true, count: 1, retryAfterMs: 0 });
    assert.deepEqual(calls, ["evalsha 40 1 p:k", "eval true 1 p:k 1000"]);
    failWith = "ECONNREFUSED";
    await assert.rejects(limiter.hit("k", 5, 1_000), /ECONNREFUSED/);
  });
});

describe("createLimiter", () => {
  test("without Redis it is in process; with a client it uses Redis", () => {
    assert.equal(createLimiter().kind, "memory");
    assert.equal(createLimiter(null).kind, "memory");
    assert.equal(createLimiter({} as Redis).kind, "redis");
  });
});

describe("RedisLimiter (redis://127.0.0.1:6379)", () => {
  const prefix = `test:limiter:${randomBytes(6).toString("hex")}:`;
  let redis: Redis | null = null;
  let second: Redis | null = null;
  let unavailable = "";

  before(async () => {
    const connect = async () => {
      const client = new Redis("redis://127.0.0.1:6379", {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
        retryStrategy: () => null,
      });
      await client.connect();
      await client.ping();
      return client;
    };
    try {
      redis = await connect();
      second = await connect();
    } catch (error) {
      unavailable = `Redis is not reachable at redis://127.0.0.1:6379 (${error instanceof Error ? error.message : error}); skipping the Redis limiter tests`;
      console.log(unavailable);
      redis?.disconnect();
      redis = null;
    }
  });

  after(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await second?.quit();
  });

  const limiterFor = (client: Redis | null): Limiter => createLimiter(client, { prefix });

  test("counts, refuses past the limit, and sets an expiry on the key", async (context) => {
    if (!redis) return context.skip(unavailable);
    const limiter = limiterFor(redis);
    assert.equal(limiter.kind, "redis");
    for (let count = 1; count <= 3; count++)
      assert.deepEqual(await limiter.hit("basic", 3, 60_000), { allowed: true, count, retryAfterMs: 0 });
    const refused = await limiter.hit("basic", 3, 60_000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.count, 4);
    assert.ok(refused.retryAfterMs > 59_000 && refused.retryAfterMs <= 60_000, String(refused.retryAfterMs));
    const ttl = await redis.pttl(`${prefix}basic`);
    assert.ok(ttl > 59_000 && ttl <= 60_000, `key expires (pttl ${ttl})`);
    assert.equal(await redis.get(`${prefix}basic`), "4");
  });

  test("peek does not count and reports the remaining window", async (context) => {
    if (!redis) return context.skip(unavailable);
    const limiter = limiterFor(redis);
    assert.deepEqual(await limiter.peek("peek", 2, 60_000), { allowed: true, count: 0, retryAfterMs: 0 });
    assert.equal(await redis.exists(`${prefix}peek`), 0, "peek creates nothing");
    await limiter.hit("peek", 2, 60_000);
    assert.deepEqual(await limiter.peek("peek", 2, 60_000), { allowed: true, count: 1, retryAfterMs: 0 });
    await limiter.hit("peek", 2, 60_000);
    const full = await limiter.peek("peek", 2, 60_000);
    assert.equal(full.allowed, false);
    assert.equal(full.count, 2);
    assert.ok(full.retryAfterMs > 55_000 && full.retryAfterMs <= 60_000);
  });

  test("the window ends after windowMs, and refused hits do not extend it", async (context) => {
    if (!redis) return context.skip(unavailable);
    const limiter = limiterFor(redis);
    await limiter.hit("expiry", 1, 400);
    await sleep(200);
    const refused = await limiter.hit("expiry", 1, 400);
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterMs <= 220, `the window was not extended (retry after ${refused.retryAfterMs} ms)`);
    await sleep(refused.retryAfterMs + 50);
    assert.deepEqual(await limiter.hit("expiry", 1, 400), { allowed: true, count: 1, retryAfterMs: 0 });
  });

  test("reset deletes the key", async (context) => {
    if (!redis) return context.skip(unavailable);
    const limiter = limiterFor(redis);
    await limiter.hit("reset", 1, 60_000);
    await limiter.reset("reset");
    assert.equal(await redis.exists(`${prefix}reset`), 0);
    assert.equal((await limiter.hit("reset", 1, 60_000)).count, 1);
  });

  test("two clients (two gateway processes) share one counter: exactly `limit` of 60 parallel hits pass", async (context) => {
    if (!redis || !second) return context.skip(unavailable);
    const limiters = [limiterFor(redis), limiterFor(second)];
    const results = await Promise.all(Array.from({ length: 60 }, (_, index) => limiters[index % 2]!.hit("shared", 10, 60_000)));
    assert.equal(results.filter((result) => result.allowed).length, 10);
    assert.deepEqual(
      results.map((result) => result.count).sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, index) => index + 1),
    );
  });

  test("a key left without an expiry gets one on the next hit instead of locking forever", async (context) => {
    if (!redis) return context.skip(unavailable);
    await redis.set(`${prefix}stuck`, "99");
    const result = await limiterFor(redis).hit("stuck", 5, 30_000);
    assert.equal(result.allowed, false);
    assert.ok(result.retryAfterMs > 0 && result.retryAfterMs <= 30_000);
    const ttl = await redis.pttl(`${prefix}stuck`);
    assert.ok(ttl > 0 && ttl <= 30_000, `pttl ${ttl}`);
  });

  test("keys carry the prefix; the default prefix is gateway:limit:", async (context) => {
    if (!redis) return context.skip(unavailable);
    await limiterFor(redis).hit("prefixed", 1, 60_000);
    assert.equal(await redis.exists(`${prefix}prefixed`), 1);
    const defaultKey = `prefix-check-${randomBytes(6).toString("hex")}`;
    await new RedisLimiter(redis).hit(defaultKey, 1, 1_000);
    assert.equal(await redis.exists(`gateway:limit:${defaultKey}`), 1);
    await redis.del(`gateway:limit:${defaultKey}`);
  });
});
