// Throttles behind a load balancer (GATEWAY_TRUSTED_PROXIES): the client address is read from X-Forwarded-For past
// the trusted proxies (lib/platform/http/client-address.ts), and the sign-in lockout counts per account *and* address
// (lib/accounts/throttle.ts): someone else's failures never lock the owner out, and passwords sprayed at one account
// from many addresses slow that account down for unknown addresses instead of locking it. On SQLite (in-process
// counters) and on PostgreSQL with Redis (shared counters).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomInt } from "node:crypto";
import { createUserWithKey, postgresAvailable, REDIS_TEST_URL, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { parseRanges } from "@/lib/platform/http/cidr";
import { clientAddress } from "@/lib/platform/http/client-address";
import { parseEnv } from "@/lib/platform/env";

after(stopAllGateways);

const LOCKED = /^Too many attempts\. Try again in \d+ (minutes?|seconds?)/;

/** Addresses of this run: Redis keeps counters between runs, so every run uses its own. */
const base = `${randomInt(1, 223)}.${randomInt(0, 255)}.${randomInt(0, 255)}`;
const address = (host: number) => `${base}.${host}`;
const via = (client: string) => ({ "x-forwarded-for": `${client}, 10.1.2.3` });

describe("the client address behind trusted proxies", () => {
  test("X-Forwarded-For is read from the right, past trusted proxies only; without trusted proxies it is ignored", () => {
    const { ranges } = parseRanges("127.0.0.1/32, 10.0.0.0/8, fd00::/8");
    assert.equal(
      clientAddress("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.2", ranges),
      "203.0.113.9",
      "the client-written entry on the left is never used",
    );
    assert.equal(
      clientAddress("::ffff:127.0.0.1", "203.0.113.9", ranges),
      "203.0.113.9",
      "an IPv4-mapped socket address matches an IPv4 range",
    );
    assert.equal(clientAddress("fd00::1", "2001:db8::7", ranges), "2001:db8::7");
    assert.equal(clientAddress("198.51.100.1", "203.0.113.9", ranges), "198.51.100.1", "an untrusted peer's header is ignored");
    assert.equal(clientAddress("127.0.0.1", "not-an-address, 10.0.0.2", ranges), "10.0.0.2", "garbage stops the walk at the last proxy");
    assert.equal(clientAddress("127.0.0.1", undefined, ranges), "127.0.0.1");
    assert.equal(clientAddress("127.0.0.1", "203.0.113.9", parseRanges("").ranges), "127.0.0.1", "no trusted proxies: the socket");
    assert.equal(clientAddress("127.0.0.1", ["203.0.113.9:4711", "[2001:db8::1]:443"], ranges), "2001:db8::1");
  });

  test("GATEWAY_TRUSTED_PROXIES is validated at start-up, naming the bad entry", () => {
    assert.throws(
      () => parseEnv({ GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8, 10.0.0.0/33, example.com" }),
      /GATEWAY_TRUSTED_PROXIES: '10\.0\.0\.0\/33' is not an IPv4 or IPv6 address or CIDR[\s\S]*'example\.com'/,
    );
    assert.doesNotThrow(() => parseEnv({ GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.7, fd00::/8, ::1" }));
  });
});

const databases: { name: string; skip: string | false; options: Parameters<typeof startGateway>[0] }[] = [
  { name: "SQLite", skip: false, options: {} },
  {
    name: "PostgreSQL and Redis",
    skip: !(await postgresAvailable()) && "PostgreSQL is not reachable on 127.0.0.1",
    options: { database: "postgres", env: { REDIS_URL: REDIS_TEST_URL } },
  },
];

for (const { name, skip, options } of databases) {
  describe(`throttles by client address, on ${name}`, { skip }, () => {
    let gateway: Gateway;
    const start = async () => {
      gateway ??= await startGateway({
        ...options,
        portal: true,
        timeoutMs: 120_000,
        env: { ...options?.env, GATEWAY_TRUSTED_PROXIES: "127.0.0.1/32, ::1/128, 10.0.0.0/8" },
      });
      return gateway;
    };
    const hostOffset = name === "SQLite" ? 0 : 100;

    test("an attacker's failures lock only the attacker's address out of the account; the owner signs in from theirs", async () => {
      const gateway = await start();
      const owner = await createUserWithKey(gateway);
      const attacker = address(hostOffset + 1);
      for (let attempt = 0; attempt < 5; attempt++) {
        const failed = await signIn(gateway.url, owner.email, "wrong-password-guess", undefined, via(attacker));
        assert.equal(failed.ok, false);
        assert.doesNotMatch(failed.ok ? "" : failed.error, LOCKED);
      }
      const locked = await signIn(gateway.url, owner.email, owner.password, undefined, via(attacker));
      assert.match(
        locked.ok ? "" : locked.error,
        LOCKED,
        "the sixth attempt from the attacker's address is locked, even with the right password",
      );
      const signedIn = await signIn(gateway.url, owner.email, owner.password, undefined, via(address(hostOffset + 2)));
      assert.equal(signedIn.ok, true, "the owner, from another address, is not locked out");
    });

    test("a password sprayed at one account from many addresses slows unknown addresses down; an address that signed in before is not slowed", async () => {
      const gateway = await start();
      const owner = await createUserWithKey(gateway);
      const home = address(hostOffset + 10);
      assert.equal((await signIn(gateway.url, owner.email, owner.password, undefined, via(home))).ok, true);
      // Ten failures from ten addresses: none of them is locked by its own counter.
      for (let host = 0; host < 10; host++) {
        const failed = await signIn(gateway.url, owner.email, "wrong-password-guess", undefined, via(address(hostOffset + 20 + host)));
        assert.doesNotMatch(failed.ok ? "" : failed.error, LOCKED);
      }
      // Now unknown addresses share one attempt per interval: the first gets it, the next is told when to retry.
      const first = await signIn(gateway.url, owner.email, "wrong-password-guess", undefined, via(address(hostOffset + 40)));
      assert.doesNotMatch(first.ok ? "" : first.error, LOCKED);
      const slowed = await signIn(gateway.url, owner.email, owner.password, undefined, via(address(hostOffset + 41)));
      assert.match(slowed.ok ? "" : slowed.error, /^Too many attempts\. Try again in \d+ seconds?/);
      // The owner at home signs in at once.
      assert.equal((await signIn(gateway.url, owner.email, owner.password, undefined, via(home))).ok, true);
    });

    test("sign-up counts per client address: ten from one address, the eleventh refused; another address is not affected", async () => {
      const gateway = await start();
      const signup = (client: string) =>
        fetch(`${gateway.url}/api/user/signup`, {
          method: "POST",
          headers: { "content-type": "application/json", ...via(client) },
          body: JSON.stringify({ email: `proxied-${randomBytes(5).toString("hex")}@example.com`, password: "a-long-enough-password" }),
        });
      const crowded = address(hostOffset + 60);
      for (let index = 0; index < 10; index++) assert.equal((await signup(crowded)).status, 202);
      assert.equal((await signup(crowded)).status, 429);
      assert.equal((await signup(address(hostOffset + 61))).status, 202);
    });
  });
}
