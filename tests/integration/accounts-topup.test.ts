// Redeem codes (POST /api/user/topup) on SQLite and PostgreSQL: session or the user's own API key, which code
// problem it was, codes stored hashed, and the race: 20 parallel redemptions of one code by two users credit once.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { callApi, signedIn } from "../helpers/user-api";
import { withDatabase } from "../helpers/database";

after(stopAllGateways);

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

async function balanceOf(gateway: Gateway, userId: string): Promise<number> {
  const users = await gateway.admin("GET", "/api/admin/users?limit=1000");
  return users.data.find((user: { id: string }) => user.id === userId).balance;
}

function topupTests(database: "sqlite" | "postgres") {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ portal: true, database });
  });

  test("a code redeemed with the session credits the user once, and says which problem a code has", async () => {
    const user = await createUserWithKey(gateway, { balance: 1000 });
    const browser = await signedIn(gateway.url, user.email, user.password);
    const [code, second] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 2500, count: 2 })).codes as string[];
    const redeemed = await browser.call("POST", "/api/user/topup", { key: code });
    assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
    assert.deepEqual(redeemed.body, { quota: 2500, balance: 3500 });
    assert.equal(await balanceOf(gateway, user.userId), 3500);

    const again = await browser.call("POST", "/api/user/topup", { key: code });
    assert.deepEqual(again.body, {
      error: { message: "This redeem code has already been used", type: "invalid_request_error", code: "invalid_request", param: "key" },
    });
    assert.equal(again.status, 400);
    const unknown = await browser.call("POST", "/api/user/topup", { key: "GW-AAAAA-BBBBB-CCCCC-DDDDD" });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /does not exist/);
    // Codes that are expired already cannot be made (400); one that expires in a moment can.
    const past = await fetch(`${gateway.url}/api/admin/redeem-codes`, {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: JSON.stringify({ quota: 10, count: 1, expiresAt: "2020-01-01T00:00:00Z" }),
    });
    assert.deepEqual([past.status, (await past.json()).error.param], [400, "expiresAt"]);
    const [expired] = (
      await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 10, count: 1, expiresAt: new Date(Date.now() + 1500).toISOString() })
    ).codes;
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const late = await browser.call("POST", "/api/user/topup", { key: expired });
    assert.equal(late.status, 400);
    assert.match(late.body.error.message, /has expired/);
    assert.equal(await balanceOf(gateway, user.userId), 3500, "refusals credit nothing");

    // Retyped with spaces and other dashes, the code is still found (its hash is of the normalised form).
    const retyped = second!.replace(/-/g, " ");
    const spaced = await browser.call("POST", "/api/user/topup", { key: ` ${retyped} ` });
    assert.deepEqual(spaced.body, { quota: 2500, balance: 6000 });

    // The ledger has a topup row per credit, visible in the user's usage as a credit.
    const usage = await browser.call("GET", "/api/user/usage?kind=topup");
    assert.equal(usage.body.total, 2);
    assert.deepEqual(
      usage.body.data.map((row: { cost: number }) => row.cost),
      [-2500, -2500],
    );
    assert.equal(
      usage.body.daily.reduce((sum: number, row: { credited: number }) => sum + row.credited, 0),
      5000,
    );

    // Stored hashed: the database has the SHA-256 of the code, never the code.
    await withDatabase(gateway.databaseUrl, async (query) => {
      const rows = await query(`SELECT * FROM "RedeemCode" WHERE "codeHash" = ?`, [sha256(`v2:${code!.replace(/-/g, "")}`)]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, "used");
      assert.equal(rows[0].redeemedById, user.userId);
      assert.equal(JSON.stringify(rows).includes(code!), false);
    });
  });

  test("new codes are case-free (any case, O for 0, I or L for 1, any separators); a code from before keeps its exact case", async () => {
    const user = await createUserWithKey(gateway, { balance: 0 });
    const browser = await signedIn(gateway.url, user.email, user.password);
    const { codes } = await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 100, count: 3 });
    for (const code of codes as string[])
      assert.match(code, /^GW(-[0-9A-HJKMNP-TV-Z]{5}){4}$/, "Crockford base 32: 100 bits, no I, L, O or U");
    const typedLoosely = (codes[0] as string).toLowerCase().replace(/0/g, "o").replace(/1/g, "l").replace(/-/g, " ");
    assert.deepEqual((await browser.call("POST", "/api/user/topup", { key: typedLoosely })).body, { quota: 100, balance: 100 });
    assert.deepEqual((await browser.call("POST", "/api/user/topup", { key: (codes[1] as string).replace(/-/g, "") })).body, {
      quota: 100,
      balance: 200,
    });

    // A code in the older format: case-sensitive letters, stored as SHA-256 of the code without dashes.
    const legacy = "GW-aBcDe-FgHjK-mNpQr-StUvW";
    await withDatabase(gateway.databaseUrl, (query) =>
      query(
        `INSERT INTO "RedeemCode" ("id", "codeHash", "prefix", "batch", "quota", "status", "createdAt") VALUES (?, ?, ?, ?, ?, 'unused', CURRENT_TIMESTAMP)`,
        [`legacy-${user.userId}`, sha256(legacy.replace(/-/g, "")), legacy.slice(0, 8), "legacy", 50],
      ),
    );
    const wrongCase = await browser.call("POST", "/api/user/topup", { key: legacy.toUpperCase() });
    assert.equal(wrongCase.status, 400, "an old code is not case-free");
    assert.deepEqual((await browser.call("POST", "/api/user/topup", { key: legacy })).body, { quota: 50, balance: 250 });
  });

  test("a code redeemed with the user's API key credits the key's owner; other credentials are refused", async () => {
    const user = await createUserWithKey(gateway, { balance: 0 });
    const [code] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 700, count: 1 })).codes;
    const withKey = await callApi(gateway.url, "POST", "/api/user/topup", {
      body: { key: code },
      headers: { authorization: `Bearer ${user.key}` },
    });
    assert.equal(withKey.status, 200, JSON.stringify(withKey.body));
    assert.deepEqual(withKey.body, { quota: 700, balance: 700 });
    assert.equal(await balanceOf(gateway, user.userId), 700);

    const [next] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 1, count: 1 })).codes;
    const refusals: [Record<string, string>, number, string][] = [
      [{}, 401, "unauthenticated"],
      [{ authorization: "Bearer sk-doesnotexistdoesnotexistdoesnotexist1234" }, 401, "invalid_api_key"],
      [{ authorization: "Bearer ' OR 1=1--" }, 401, "invalid_api_key"],
      [{ authorization: "Bearer" }, 401, "invalid_api_key"],
      // Not the gateway's scheme (a proxy's Basic auth, say): ignored, so this is a call without credentials.
      [{ authorization: `Basic ${user.key}` }, 401, "unauthenticated"],
      [{ "x-api-key": user.key }, 401, "wrong_auth_scheme"],
    ];
    for (const [headers, status, code] of refusals) {
      const result = await callApi(gateway.url, "POST", "/api/user/topup", { body: { key: next }, headers });
      assert.equal(result.status, status, `${JSON.stringify(headers)}: ${JSON.stringify(result.body)}`);
      assert.equal(result.body.error.code, code);
    }
    const expired = await gateway.admin("POST", "/api/admin/keys", { userId: user.userId, quota: 1, expiresAt: "2020-01-01T00:00:00Z" });
    const withExpired = await callApi(gateway.url, "POST", "/api/user/topup", {
      body: { key: next },
      headers: { authorization: `Bearer ${expired.key}` },
    });
    assert.equal(withExpired.status, 401);
    assert.equal(withExpired.body.error.code, "expired_api_key");
    // A deleted key no longer acts for its owner.
    await gateway.admin("DELETE", `/api/admin/keys/${user.keyId}`);
    const deleted = await callApi(gateway.url, "POST", "/api/user/topup", {
      body: { key: next },
      headers: { authorization: `Bearer ${user.key}` },
    });
    assert.equal(deleted.status, 401);
    assert.equal(await balanceOf(gateway, user.userId), 700);
  });

  test("20 parallel redemptions of one code by two users (key and session) credit exactly once", async () => {
    const alice = await createUserWithKey(gateway, { balance: 0 });
    const bob = await createUserWithKey(gateway, { balance: 0 });
    const bobBrowser = await signedIn(gateway.url, bob.email, bob.password);
    for (let round = 0; round < 3; round++) {
      const [code] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 1000, count: 1 })).codes;
      const before = { alice: await balanceOf(gateway, alice.userId), bob: await balanceOf(gateway, bob.userId) };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          index % 2 === 0
            ? callApi(gateway.url, "POST", "/api/user/topup", { body: { key: code }, headers: { authorization: `Bearer ${alice.key}` } })
            : bobBrowser.call("POST", "/api/user/topup", { key: code }),
        ),
      );
      const succeeded = results.filter((result) => result.status === 200);
      assert.equal(succeeded.length, 1, `round ${round}: ${results.map((result) => result.status).join(",")}`);
      assert.equal(succeeded[0]!.body.quota, 1000);
      for (const result of results.filter((item) => item.status !== 200)) {
        assert.equal(result.status, 400);
        assert.equal(result.body.error.message, "This redeem code has already been used");
      }
      const afterBalances = { alice: await balanceOf(gateway, alice.userId), bob: await balanceOf(gateway, bob.userId) };
      assert.equal(afterBalances.alice - before.alice + (afterBalances.bob - before.bob), 1000, `round ${round}: credited once`);
      assert.ok(afterBalances.alice === before.alice || afterBalances.bob === before.bob);
    }
    // One ledger row per credit.
    const aliceTopups = await gateway.admin("GET", `/api/admin/usage?userId=${alice.userId}&kind=topup`);
    const bobTopups = await gateway.admin("GET", `/api/admin/usage?userId=${bob.userId}&kind=topup`);
    assert.equal(aliceTopups.data.length + bobTopups.data.length, 3);
  });

  test("unknown codes are throttled per user", async () => {
    const user = await createUserWithKey(gateway, { balance: 0 });
    const headers = { authorization: `Bearer ${user.key}` };
    for (let attempt = 0; attempt < 10; attempt++) {
      const result = await callApi(gateway.url, "POST", "/api/user/topup", {
        body: { key: `GW-NOPE${attempt}-XXXXX-XXXXX-XXXXX` },
        headers,
      });
      assert.equal(result.status, 400);
    }
    const [code] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 5, count: 1 })).codes;
    const locked = await callApi(gateway.url, "POST", "/api/user/topup", { body: { key: code }, headers });
    assert.equal(locked.status, 429);
    assert.equal(locked.body.error.code, "locked");
    assert.match(locked.body.error.message, /Try again in 15 minutes/);
    assert.equal(await balanceOf(gateway, user.userId), 0);
  });
}

describe("topup on SQLite", () => topupTests("sqlite"));

describe("topup on PostgreSQL", async () => {
  const available = await postgresAvailable();
  if (!available) {
    test("PostgreSQL is not reachable on 127.0.0.1:5432", { skip: true }, () => undefined);
    return;
  }
  topupTests("postgres");
});
