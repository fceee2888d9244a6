// Reservations sent together (PostgreSQL: gateway_reserve_many, migration 0003; SQLite: one transaction for those
// that arrive in one event-loop turn): each is all-or-nothing on its own and answered in the order given, whatever
// the others in the same batch do.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways } from "../helpers/gateway";
import { postgresConfig } from "@/lib/platform/db/client";
import { openSqliteMoneyStore } from "@/lib/money/store";

after(stopAllGateways);

describe("PostgreSQL: reservations in one call", async () => {
  const skip = !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

  test("one call: missing key, key quota, balance, unlimited key and plain successes, each on its own", { skip }, async () => {
    const gateway = await startGateway({ database: "postgres" });
    const limited = await createUserWithKey(gateway, { balance: 1_000, quota: 300 });
    const poor = await createUserWithKey(gateway, { balance: 100, quota: 10_000 });
    const unlimited = await createUserWithKey(gateway, { balance: 500, unlimited: true });
    const client = new pg.Client(postgresConfig(gateway.databaseUrl));
    await client.connect();
    try {
      const { rows } = await client.query("SELECT gateway_reserve_many($1::text[], $2::text[], $3::bigint[]) AS results", [
        [limited.keyId, limited.keyId, "no-such-key", poor.keyId, limited.keyId, unlimited.keyId, unlimited.keyId, poor.keyId],
        [limited.userId, limited.userId, limited.userId, poor.userId, limited.userId, unlimited.userId, unlimited.userId, poor.userId],
        [200, 200, 5, 150, 100, 400, 200, 100],
      ]);
      // limited: 200 ok (quota 300 → 100), 200 refused by the key, then 100 fits exactly. poor: 150 > balance 100,
      // and its key gets its part back; then 100 fits. unlimited: 400 ok, then 200 > balance 100 left.
      assert.deepEqual(rows[0].results, ["ok", "key_quota", "missing", "balance", "ok", "ok", "balance", "ok"]);
      const money = await client.query(
        `SELECT k."id", k."quotaRemaining"::bigint AS quota, u."balance"::bigint AS balance FROM "ApiKey" k JOIN "User" u ON u."id" = k."userId" WHERE k."id" = ANY($1::text[])`,
        [[limited.keyId, poor.keyId, unlimited.keyId]],
      );
      const of = (keyId: string) => money.rows.find((row) => row.id === keyId);
      assert.deepEqual([Number(of(limited.keyId).quota), Number(of(limited.keyId).balance)], [0, 700]);
      assert.deepEqual([Number(of(poor.keyId).quota), Number(of(poor.keyId).balance)], [9_900, 0]);
      assert.equal(Number(of(unlimited.keyId).balance), 100);
    } finally {
      await client.end();
    }
  });
});

describe("SQLite: reservations in one event-loop turn", () => {
  test("one transaction: missing key, key quota, balance, unlimited key and plain successes, each on its own", async () => {
    const gateway = await startGateway();
    const limited = await createUserWithKey(gateway, { balance: 1_000, quota: 300 });
    const poor = await createUserWithKey(gateway, { balance: 100, quota: 10_000 });
    const unlimited = await createUserWithKey(gateway, { balance: 500, unlimited: true });
    const store = openSqliteMoneyStore(gateway.databaseUrl.replace(/^file:/, ""));
    try {
      // Called in one turn, as requests read in one poll do: the same batch as the PostgreSQL test above.
      const results = await Promise.all([
        store.reserve(limited.keyId, limited.userId, 200),
        store.reserve(limited.keyId, limited.userId, 200),
        store.reserve("no-such-key", limited.userId, 5),
        store.reserve(poor.keyId, poor.userId, 150),
        store.reserve(limited.keyId, limited.userId, 100),
        store.reserve(unlimited.keyId, unlimited.userId, 400),
        store.reserve(unlimited.keyId, unlimited.userId, 200),
        store.reserve(poor.keyId, poor.userId, 100),
      ]);
      assert.deepEqual(results, ["ok", "key_quota", "missing", "balance", "ok", "ok", "balance", "ok"]);
      assert.deepEqual(await store.available(limited.keyId, limited.userId), { keyQuota: 0, balance: 700, budget: null });
      assert.deepEqual(await store.available(poor.keyId, poor.userId), { keyQuota: 9_900, balance: 0, budget: null });
      assert.deepEqual(await store.available(unlimited.keyId, unlimited.userId), { keyQuota: null, balance: 100, budget: null });
      // A later turn is a batch of its own and sees the first one's result.
      assert.equal(await store.reserve(limited.keyId, limited.userId, 1), "key_quota");
    } finally {
      await store.close();
    }
  });
});
