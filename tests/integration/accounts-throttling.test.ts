// Accounts: sign-up turned off, and sign-in throttling and lockout (each on its own gateway: these tests fill the
// counters of their client address).
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { callApi, median } from "../helpers/user-api";
import { LOCKED, randomEmail, assertError } from "../helpers/accounts-setup";

describe("sign-up turned off by GATEWAY_SIGNUP=off", () => {
  test("answers 403 with a clear message, whatever the body", async () => {
    const gateway = await startGateway({ env: { GATEWAY_SIGNUP: "off" } });
    for (const body of [{ email: randomEmail(), password: "a-fine-password-1" }, "{broken"]) {
      const refused = await callApi(gateway.url, "POST", "/api/user/signup", { body });
      assertError(refused, 403, "forbidden", /Sign-up is turned off on this gateway/);
    }
    await gateway.stop();
  });
});

describe("sign-in throttling on SQLite (its own gateway: these tests fill the address's counter)", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ portal: true });
  });

  test("wrong passwords lock the account after five; a known and an unknown email read the same", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const unknown = randomEmail("nobody");
    const trace = async (address: string, finalPassword: string) => {
      const answers: unknown[] = [];
      for (let attempt = 0; attempt < 5; attempt++) answers.push(await signIn(gateway.url, address, `wrong-password-${attempt}`));
      const last = await signIn(gateway.url, address, finalPassword);
      return { answers, last };
    };
    const known = await trace(email, password);
    const missing = await trace(unknown, password);
    assert.deepEqual(known.answers, Array(5).fill({ ok: false, error: "Invalid email or password", status: 401 }));
    assert.deepEqual(missing.answers, known.answers);
    // The right password is not even checked while locked.
    for (const last of [known.last, missing.last]) {
      assert.equal(last.ok, false);
      assert.equal(last.ok ? 0 : last.status, 401);
      const match = LOCKED.exec(last.ok ? "" : last.error);
      assert.ok(match, `lockout message: ${JSON.stringify(last)}`);
      assert.equal(match[1], "15");
      assert.equal(match[2], "minutes");
    }
  });

  test("an unknown email takes about as long as a wrong password for a known one", async () => {
    const known = await Promise.all([0, 1, 2].map(() => createUserWithKey(gateway)));
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    const timed = async (email: string) => {
      const started = performance.now();
      const result = await signIn(gateway.url, email, "wrong-password-x");
      assert.deepEqual(result, { ok: false, error: "Invalid email or password", status: 401 });
      return performance.now() - started;
    };
    await timed(randomEmail("warm-up"));
    for (let round = 0; round < 2; round++) {
      for (const user of known) {
        knownTimes.push(await timed(user.email));
        unknownTimes.push(await timed(randomEmail("unknown")));
      }
    }
    const knownMedian = median(knownTimes);
    const unknownMedian = median(unknownTimes);
    // Both spend one scrypt hash (~100 ms here); without the dummy hash an unknown email would answer in a few ms.
    const difference = Math.abs(knownMedian - unknownMedian);
    assert.ok(difference < Math.max(40, 0.3 * knownMedian), `known ${knownMedian.toFixed(1)} ms vs unknown ${unknownMedian.toFixed(1)} ms`);
    assert.ok(unknownMedian > 40, `an unknown email still spends a hash (${unknownMedian.toFixed(1)} ms)`);
  });

  test("throttling per client address: after 30 failures from one address even a new account's right password waits", async () => {
    // Runs last in this describe: the two tests before recorded 10 + 13 failures from 127.0.0.1 (locked attempts
    // are not failures: nothing was checked). The limit is 30 per 15 minutes, so 7 more fail and the next is locked.
    const { email, password } = await createUserWithKey(gateway);
    let failures = 0;
    let locked: Awaited<ReturnType<typeof signIn>> | null = null;
    for (let attempt = 0; attempt < 40 && !locked; attempt++) {
      const result = await signIn(gateway.url, randomEmail("spray"), "spray-password-1");
      if (!result.ok && LOCKED.test(result.error)) locked = result;
      else {
        assert.deepEqual(result, { ok: false, error: "Invalid email or password", status: 401 });
        failures++;
      }
    }
    assert.ok(locked, "the address was locked");
    assert.equal(failures, 7, "locked after the 30th failure from this address");
    const fresh = await signIn(gateway.url, email, password);
    assert.equal(fresh.ok, false);
    assert.match(fresh.ok ? "" : fresh.error, LOCKED);
  });
});
