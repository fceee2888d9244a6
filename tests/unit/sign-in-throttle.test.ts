import { beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import {
  ACCOUNT_FAILURE_LIMIT,
  ADDRESS_FAILURE_LIMIT,
  addressBucket,
  checkSecondFactorAllowed,
  checkSignInAllowed,
  recordSecondFactorFailure,
  recordSecondFactorSuccess,
  recordSignInComplete,
  recordSignInFailure,
  recordSignInSuccess,
  SPRAY_THRESHOLD,
  sprayInterval,
  useLimiter,
} from "@/lib/accounts/throttle";
import { MemoryLimiter, RedisLimiter } from "@/lib/platform/limiter";

let now = 0;
const FIFTEEN_MINUTES = 15 * 60 * 1000;

beforeEach(() => {
  now = 1_000_000;
  useLimiter(new MemoryLimiter({ now: () => now }));
});

/** One sign-in attempt with a wrong password, as the sign-in route does it. */
async function failedSignIn(email: string, ip?: string | null) {
  const decision = await checkSignInAllowed({ email, ip });
  if (decision.allowed) await recordSignInFailure({ email, ip });
  return decision;
}

test("five wrong passwords lock the account for that address until the 15-minute window ends; other addresses are not locked", async () => {
  for (let attempt = 1; attempt <= ACCOUNT_FAILURE_LIMIT; attempt++) {
    assert.deepEqual(await failedSignIn("alice@example.com", "203.0.113.1"), { allowed: true }, `attempt ${attempt}`);
    now += 10_000;
  }
  assert.equal(ACCOUNT_FAILURE_LIMIT, 5);
  // Locked from that address, and the right password would not even be checked.
  const locked = await checkSignInAllowed({ email: "alice@example.com", ip: "203.0.113.1" });
  assert.deepEqual(locked, { allowed: false, retryAfterSeconds: 15 * 60 - 50 });
  // Someone else's failures never lock the owner out from their own address.
  assert.deepEqual(await checkSignInAllowed({ email: "alice@example.com", ip: "198.51.100.7" }), { allowed: true });
  // Knocking on a locked account does not extend the lock.
  now += 5 * 60_000;
  assert.deepEqual(await checkSignInAllowed({ email: "alice@example.com", ip: "203.0.113.1" }), {
    allowed: false,
    retryAfterSeconds: 10 * 60 - 50,
  });
  now = 1_000_000 + FIFTEEN_MINUTES;
  assert.deepEqual(await checkSignInAllowed({ email: "alice@example.com", ip: "203.0.113.1" }), { allowed: true });
});

test("the email is matched case- and space-insensitively", async () => {
  for (const email of ["Bob@Example.com", " bob@example.com", "BOB@EXAMPLE.COM", "bob@example.com ", "bob@example.com"]) {
    assert.equal((await failedSignIn(email)).allowed, true);
  }
  assert.equal((await checkSignInAllowed({ email: "bob@EXAMPLE.com" })).allowed, false);
});

test("an unknown email is counted exactly like a known one (the throttle never looks accounts up)", async () => {
  const trace = async (email: string) => {
    const decisions = [];
    for (let attempt = 0; attempt < 7; attempt++) decisions.push(await failedSignIn(email, "203.0.113.9"));
    return decisions;
  };
  const known = await trace("carol@example.com");
  now = 1_000_000;
  useLimiter(new MemoryLimiter({ now: () => now }));
  const unknown = await trace("nobody-here@example.com");
  assert.deepEqual(unknown, known);
});

test("a correct password clears the account counter but not the address counter", async () => {
  for (let attempt = 0; attempt < 4; attempt++) await failedSignIn("dave@example.com", "203.0.113.2");
  assert.deepEqual(await checkSignInAllowed({ email: "dave@example.com", ip: "203.0.113.2" }), { allowed: true });
  await recordSignInSuccess({ email: "DAVE@example.com", ip: "203.0.113.2" });
  for (let attempt = 0; attempt < 5; attempt++) assert.equal((await failedSignIn("dave@example.com", "203.0.113.2")).allowed, true);
  assert.equal((await checkSignInAllowed({ email: "dave@example.com", ip: "203.0.113.2" })).allowed, false);
  // The address saw 4 + 5 failures (not reset by the success): 21 more across other accounts reach its limit of 30.
  for (let index = 0; index < ADDRESS_FAILURE_LIMIT - 9; index++)
    assert.equal((await failedSignIn(`spray-${index}@example.com`, "203.0.113.2")).allowed, true);
  assert.equal((await checkSignInAllowed({ email: "fresh@example.com", ip: "203.0.113.2" })).allowed, false);
});

test("thirty failures from one address across many accounts block that address only", async () => {
  assert.equal(ADDRESS_FAILURE_LIMIT, 30);
  for (let index = 0; index < 30; index++) {
    assert.deepEqual(await failedSignIn(`user${index}@example.com`, "198.51.100.20"), { allowed: true });
    now += 1_000;
  }
  const blocked = await checkSignInAllowed({ email: "someone-new@example.com", ip: "198.51.100.20" });
  assert.deepEqual(blocked, { allowed: false, retryAfterSeconds: 15 * 60 - 30 });
  assert.deepEqual(await checkSignInAllowed({ email: "someone-new@example.com", ip: "198.51.100.21" }), { allowed: true });
  // A refused check by address does not charge the account.
  for (let index = 0; index < 10; index++) await checkSignInAllowed({ email: "victim@example.com", ip: "198.51.100.20" });
  assert.deepEqual(await checkSignInAllowed({ email: "victim@example.com", ip: "198.51.100.99" }), { allowed: true });
});

test("a parallel burst of guesses gets at most five through from one address, eleven from many", async () => {
  const fromOne = await Promise.all(Array.from({ length: 50 }, () => checkSignInAllowed({ email: "erin@example.com", ip: "192.0.2.1" })));
  assert.equal(fromOne.filter((decision) => decision.allowed).length, ACCOUNT_FAILURE_LIMIT);
  const fromMany = await Promise.all(
    Array.from({ length: 50 }, (_, index) => checkSignInAllowed({ email: "erin-2@example.com", ip: `192.0.2.${index}` })),
  );
  assert.equal(fromMany.filter((decision) => decision.allowed).length, SPRAY_THRESHOLD + 1);
});

test("passwords sprayed from many addresses slow the account down for unknown addresses, one attempt per interval; an address that signed in before is not slowed", async () => {
  assert.equal(SPRAY_THRESHOLD, 10);
  await recordSignInComplete({ email: "owner@example.com", ip: "203.0.113.50" });
  for (let index = 0; index < SPRAY_THRESHOLD; index++)
    assert.equal((await failedSignIn("owner@example.com", `198.51.100.${index}`)).allowed, true);
  // The eleventh unknown address takes the interval's one attempt; the twelfth waits for the next interval.
  assert.equal((await failedSignIn("owner@example.com", "198.51.100.100")).allowed, true);
  assert.deepEqual(await failedSignIn("owner@example.com", "198.51.100.101"), { allowed: false, retryAfterSeconds: 30 });
  // The owner's address is not slowed, and its success ends the slow-down for everyone.
  assert.deepEqual(await checkSignInAllowed({ email: "owner@example.com", ip: "203.0.113.50" }), { allowed: true });
  now += 30_000;
  assert.equal((await failedSignIn("owner@example.com", "198.51.100.102")).allowed, true);
  assert.equal((await failedSignIn("owner@example.com", "198.51.100.103")).allowed, false);
  await recordSignInSuccess({ email: "owner@example.com", ip: "203.0.113.50" });
  assert.equal((await failedSignIn("owner@example.com", "198.51.100.104")).allowed, true);
});

test("the slow-down interval doubles every ten further attempts, up to 15 minutes", () => {
  assert.equal(sprayInterval(9), 0);
  assert.equal(sprayInterval(10), 30_000);
  assert.equal(sprayInterval(19), 30_000);
  assert.equal(sprayInterval(20), 60_000);
  assert.equal(sprayInterval(30), 120_000);
  assert.equal(sprayInterval(1_000), 15 * 60_000);
});

test("without a client address only the account is counted (no shared 'unknown' bucket)", async () => {
  for (let index = 0; index < 40; index++) await failedSignIn(`noip${index}@example.com`, null);
  for (let index = 0; index < 40; index++) await failedSignIn(`noip-b${index}@example.com`, "");
  assert.deepEqual(await checkSignInAllowed({ email: "another@example.com" }), { allowed: true });
});

test("second-factor failures have their own counters with the same policy", async () => {
  for (let attempt = 0; attempt < 5; attempt++) {
    assert.deepEqual(await checkSecondFactorAllowed({ email: "frank@example.com", ip: "203.0.113.5" }), { allowed: true });
    await recordSecondFactorFailure({ email: "frank@example.com", ip: "203.0.113.5" });
  }
  assert.deepEqual(await checkSecondFactorAllowed({ email: "frank@example.com", ip: "203.0.113.5" }), {
    allowed: false,
    retryAfterSeconds: 900,
  });
  // The password step is unaffected, and vice versa.
  assert.deepEqual(await checkSignInAllowed({ email: "frank@example.com", ip: "203.0.113.5" }), { allowed: true });
  await recordSecondFactorSuccess({ email: "frank@example.com", ip: "203.0.113.5" });
  assert.deepEqual(await checkSecondFactorAllowed({ email: "frank@example.com", ip: "203.0.113.5" }), { allowed: true });
});

test("addressBucket: IPv4 per address, IPv4-mapped IPv6 as IPv4, IPv6 per /64", () => {
  assert.equal(addressBucket("203.0.113.1"), "203.0.113.1");
  assert.equal(addressBucket(" ::FFFF:203.0.113.1 "), "203.0.113.1");
  assert.equal(addressBucket("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(addressBucket("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  assert.equal(addressBucket("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(addressBucket("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressBucket("::1"), "0:0:0:0::/64");
});

test("two addresses in one IPv6 /64 share a counter", async () => {
  for (let index = 0; index < 30; index++) await failedSignIn(`v6-${index}@example.com`, `2001:db8:5:6::${(index + 1).toString(16)}`);
  assert.equal((await checkSignInAllowed({ email: "v6-new@example.com", ip: "2001:db8:5:6:ffff::9" })).allowed, false);
  assert.equal((await checkSignInAllowed({ email: "v6-new@example.com", ip: "2001:db8:5:7::1" })).allowed, true);
});

test("works unchanged on the Redis limiter, shared across two processes' clients", async (context) => {
  const prefix = `test:throttle:${randomBytes(6).toString("hex")}:`;
  const clients: Redis[] = [];
  try {
    for (let index = 0; index < 2; index++) {
      const client = new Redis("redis://127.0.0.1:6379", {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
        retryStrategy: () => null,
      });
      clients.push(client);
      await client.connect();
    }
  } catch (error) {
    for (const client of clients) client.disconnect();
    return context.skip(`Redis is not reachable at redis://127.0.0.1:6379 (${error instanceof Error ? error.message : error})`);
  }
  context.after(async () => {
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
    for (const client of clients) await client.quit();
  });
  const [first, second] = clients.map((client) => new RedisLimiter(client, { prefix }));
  for (let attempt = 0; attempt < 5; attempt++) {
    useLimiter(attempt % 2 ? first! : second!);
    assert.equal((await failedSignIn("grace@example.com", "203.0.113.77")).allowed, true);
  }
  useLimiter(first!);
  const locked = await checkSignInAllowed({ email: "grace@example.com", ip: "203.0.113.77" });
  assert.equal(locked.allowed, false);
  if (!locked.allowed) assert.ok(locked.retryAfterSeconds > 890 && locked.retryAfterSeconds <= 900);
  const keys = await clients[0]!.keys(`${prefix}*`);
  assert.ok(
    keys.every((key) => !key.includes("grace")),
    "no email address is stored in Redis",
  );
  await recordSignInSuccess({ email: "grace@example.com", ip: "203.0.113.77" });
  assert.equal((await checkSignInAllowed({ email: "grace@example.com", ip: "203.0.113.77" })).allowed, true);
});
