// The ledger writer cannot be poisoned (docs/billing.md, "The ledger writer"), on SQLite and PostgreSQL:
// - over HTTP: a refused request whose error message carries a NUL (a chat request to an anthropic channel with a
//   content part of type "x\u0000": the converter refuses it and echoes the type) is written, cleaned, and the
//   requests after it are written and settled; nothing stays reserved and the waiting gauge of /metrics is back at 0.
//   Before the writer cleaned rows, PostgreSQL refused the batch (jsonb holds no \u0000) and the writer retried it
//   forever: no later row was written and every reservation stayed held.
// - on the real money store: a settlement the database refuses even in the reduced form goes to LedgerDeadLetter
//   (money applied when the database takes it, else the reservation stays held) and the others are written.
// - an upstream refusing a channel's key with a NUL in its message still gets the channel disabled.
// - PostgreSQL refusing connections (SQLSTATE 57P01, 55000): the batch waits whole and is written once it is back.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { createUserWithKey, POSTGRES_ADMIN_URL, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { withDatabase } from "../helpers/database";
import { anthropicMessage, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { postgresConfig } from "@/lib/platform/db/client";
import { openPostgresMoneyStore, openSqliteMoneyStore, type LedgerRow, type MoneyStore, type Settlement } from "@/lib/money/store";
import { LedgerWriter, type LedgerStore } from "@/lib/money/ledger";

const upstreams: FakeUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

const BALANCE = 50_000_000;

async function chat(
  gateway: Gateway,
  key: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: any; requestId: string }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "msg-opus-4-6", max_tokens: 50, ...body }),
  });
  return { status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id") ?? "" };
}

/** The value of a metric without labels in the gateway's /metrics. */
async function metric(gateway: Gateway, name: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  assert.ok(line, `${name} is in /metrics`);
  return Number(line.split(" ")[1]);
}

/** Polls until `check` holds (the writer runs every 20 ms; a stuck writer never gets there). */
async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value).slice(0, 500)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the ledger holds for a key, read from the database itself (the operator API flushes; this does not). */
async function storedRows(gateway: Gateway, keyId: string): Promise<{ requestId: string; cost: number; error: string | null }[]> {
  return withDatabase(gateway.databaseUrl, async (query) =>
    (await query(`SELECT "requestId", "cost", "error" FROM "UsageLog" WHERE "keyId" = ?`, [keyId])).map((row) => ({
      requestId: row.requestId,
      cost: Number(row.cost),
      error: row.error,
    })),
  );
}

async function storedMoney(gateway: Gateway, userId: string, keyId: string): Promise<{ balance: number; quota: number }> {
  return withDatabase(gateway.databaseUrl, async (query) => {
    const [user] = await query(`SELECT "balance" FROM "User" WHERE "id" = ?`, [userId]);
    const [key] = await query(`SELECT "quotaRemaining" FROM "ApiKey" WHERE "id" = ?`, [keyId]);
    return { balance: Number(user.balance), quota: Number(key.quotaRemaining) };
  });
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`the ledger writer on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

    test("a refusal whose message holds a NUL is written cleaned; the requests after it are written and settled", { skip }, async () => {
      const upstream = await startFakeUpstream((_request, response) =>
        sendJson(response, 200, anthropicMessage("hello", "claude-backend")),
      );
      upstreams.push(upstream);
      const gateway = await startGateway({ database });
      await gateway.admin("POST", "/api/admin/channels", {
        name: "anthropic for chat",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "k",
        models: ["msg-opus-4-6"],
        modelMapping: { "msg-opus-4-6": "claude-backend" },
        priority: 50,
      });
      const payer = await createUserWithKey(gateway, { balance: BALANCE, quota: BALANCE });

      const poisoned = await chat(gateway, payer.key, { messages: [{ role: "user", content: [{ type: "x\u0000" }] }] });
      assert.equal(poisoned.status, 400, JSON.stringify(poisoned.body));
      assert.ok(poisoned.body.error.message.includes("x\u0000"), "the converter's message echoes the type, NUL and all");
      const served: string[] = [];
      for (let index = 0; index < 5; index++) {
        const answer = await chat(gateway, payer.key, { messages: [{ role: "user", content: `hello ${index}` }] });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        served.push(answer.requestId);
      }

      // Every row is written, without any read that would flush the writer by hand.
      const rows = await eventually(
        "the ledger rows of the six requests",
        () => storedRows(gateway, payer.keyId),
        (found) => found.length === 6,
      );
      const refused = rows.find((row) => row.requestId === poisoned.requestId);
      assert.ok(refused, "the refused request's row is written");
      assert.equal(refused.cost, 0);
      assert.ok(refused.error?.includes("x\uFFFD"), `the NUL is replaced by U+FFFD in the row: ${refused.error}`);
      assert.ok(!refused.error?.includes("\u0000"));
      for (const requestId of served)
        assert.ok(
          rows.some((row) => row.requestId === requestId && row.cost > 0),
          `${requestId} is billed`,
        );

      // Balances settle: the key and the owner paid exactly what the ledger says; no reservation stays held.
      const spent = rows.reduce((sum, row) => sum + row.cost, 0);
      assert.deepEqual(await storedMoney(gateway, payer.userId, payer.keyId), { balance: BALANCE - spent, quota: BALANCE - spent });
      assert.equal(await metric(gateway, "gateway_ledger_settlements_waiting"), 0);
      assert.equal(await metric(gateway, "gateway_ledger_dead_letters_total"), 0);
      // The operator API shows the same.
      const listed = (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=100`)).data as LedgerRow[];
      assert.equal(listed.length, 6);
      assert.equal((await gateway.admin("GET", "/api/admin/overview")).deadLetters, 0);
    });

    test("an upstream refusing the channel's key with a NUL in its message: the channel is still disabled", { skip }, async () => {
      const upstream = await startFakeUpstream((_request, response) =>
        sendJson(response, 401, { error: { message: "invalid key \u0000 here", type: "invalid_request_error" } }),
      );
      upstreams.push(upstream);
      const gateway = await startGateway({ database });
      const { id } = await gateway.admin("POST", "/api/admin/channels", {
        name: "refusing",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "wrong",
        models: ["std-5.5"],
        priority: 90,
      });
      const payer = await createUserWithKey(gateway, { balance: BALANCE, quota: BALANCE });
      // Served by the next channel (the built-in simulator), or refused when there is none: either way the first is off.
      await chat(gateway, payer.key, { model: "std-5.5", messages: [{ role: "user", content: "hi" }] });
      const channel = await eventually(
        "the refusing channel",
        async () => (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { id: string }) => row.id === id),
        (row) => row.status === "disabled",
      );
      assert.ok(channel.disabledReason.includes("invalid key \uFFFD here"), channel.disabledReason);
    });

    test("a settlement refused even in its reduced form goes to LedgerDeadLetter; the others are written", { skip }, async () => {
      const gateway = await startGateway({ database });
      const payer = await createUserWithKey(gateway, { balance: BALANCE, quota: BALANCE });
      let pool: pg.Pool | null = null;
      let store: MoneyStore;
      if (database === "sqlite") store = openSqliteMoneyStore(gateway.databaseUrl.replace(/^file:/, ""));
      else {
        pool = new pg.Pool(postgresConfig(gateway.databaseUrl));
        store = openPostgresMoneyStore(pool);
      }
      try {
        const writer = new LedgerWriter(() => store);
        const settlement = async (name: string, cost: number, change: Partial<LedgerRow> = {}): Promise<Settlement> => {
          assert.equal(await store.reserve(payer.keyId, payer.userId, 1_000), "ok");
          return {
            keyId: payer.keyId,
            userId: payer.userId,
            unlimited: false,
            reserved: 1_000,
            row: { ...ledgerRow(payer, name, cost), ...change },
          };
        };
        // A NUL in the model, an unpaired surrogate in the detail's keys and values: cleaned, written as usual.
        const unicode = await settlement("unicode", 30, { model: "m\u0000odel", detail: { "k\uD800": ["v\uDC00", { deep: "\u0000" }] } });
        // A missing request id (NOT NULL): refused as it is and reduced alike, but its money can move without its row.
        const noRequestId = await settlement("no-request-id", 40, { requestId: null as unknown as string });
        // A cost that is not a number: neither the row nor the money movement can be written; the reservation stays.
        const notANumber = await settlement("not-a-number", Number.NaN);
        const batch = [await settlement("good-1", 100), unicode, noRequestId, await settlement("good-2", 200), notANumber];
        batch.push(await settlement("good-3", 300));
        for (const entry of batch) writer.enqueue(entry);
        await writer.flush();
        assert.equal(writer.waiting(), 0, "nothing waits: nothing is retried forever");

        const rows = await withDatabase(gateway.databaseUrl, (query) =>
          query(`SELECT "requestId", "model", "cost", "detail" FROM "UsageLog" WHERE "keyId" = ? ORDER BY "requestId"`, [payer.keyId]),
        );
        assert.deepEqual(
          rows.map((row) => [row.requestId, Number(row.cost)]),
          [
            ["req-good-1", 100],
            ["req-good-2", 200],
            ["req-good-3", 300],
            ["req-unicode", 30],
          ],
        );
        const written = rows.find((row) => row.requestId === "req-unicode");
        assert.equal(written.model, "m\uFFFDodel");
        const detail = typeof written.detail === "string" ? JSON.parse(written.detail) : written.detail;
        assert.deepEqual(detail, { "k\uFFFD": ["v\uFFFD", { deep: "\uFFFD" }] });

        const letters = await withDatabase(gateway.databaseUrl, (query) =>
          query(`SELECT "requestId", "reserved", "cost", "moneyApplied", "settlement", "error" FROM "LedgerDeadLetter" ORDER BY "cost"`),
        );
        assert.equal(letters.length, 2);
        const [held, applied] = [letters.find((row) => row.cost === null)!, letters.find((row) => row.cost !== null)!];
        assert.equal(Number(applied.cost), 40);
        assert.equal(Boolean(applied.moneyApplied), true);
        assert.equal(JSON.parse(applied.settlement).row.model, "model-no-request-id");
        assert.equal(Boolean(held.moneyApplied), false);
        assert.equal(Number(held.reserved), 1_000);
        assert.equal(JSON.parse(held.settlement).row.cost, "NaN", "the serialized settlement keeps what JSON cannot");
        for (const letter of letters) assert.ok(letter.error.length > 0, "the database's answer is kept");

        // Money: the written rows and the dead letter whose money applied are charged; the one held keeps its reservation.
        const charged = 100 + 30 + 40 + 200 + 300;
        assert.deepEqual(await store.available(payer.keyId, payer.userId), {
          keyQuota: BALANCE - charged - 1_000,
          balance: BALANCE - charged - 1_000,
          budget: null,
        });
        assert.equal((await gateway.admin("GET", "/api/admin/overview")).deadLetters, 2);
      } finally {
        await store.close();
        await pool?.end();
      }
    });
  });
}

describe("the ledger writer while PostgreSQL refuses connections", async () => {
  const skip = !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

  test("the batch waits whole (not split, nothing dead-lettered) and is written once the database is back", { skip }, async () => {
    const gateway = await startGateway({ database: "postgres" });
    const payer = await createUserWithKey(gateway, { balance: BALANCE, quota: BALANCE });
    const name = new URL(gateway.databaseUrl).pathname.slice(1);
    const pool = new pg.Pool({ ...postgresConfig(gateway.databaseUrl), max: 2 });
    // Connections this test ends on purpose: the pool reports them here.
    pool.on("error", () => undefined);
    const store = openPostgresMoneyStore(pool);
    const calls: number[] = [];
    const counting: LedgerStore = {
      settle: (settlements) => {
        calls.push(settlements.length);
        return store.settle(settlements);
      },
      deadLetter: (settlement, failure) => {
        calls.push(-1);
        return store.deadLetter(settlement, failure);
      },
    };
    const admin = new pg.Client(postgresConfig(POSTGRES_ADMIN_URL));
    await admin.connect();
    try {
      const writer = new LedgerWriter(() => counting, { delayMs: 60_000, retryMs: 60_000 });
      for (const label of ["a", "b", "c"]) {
        assert.equal(await store.reserve(payer.keyId, payer.userId, 1_000), "ok");
        writer.enqueue({ keyId: payer.keyId, userId: payer.userId, unlimited: false, reserved: 1_000, row: ledgerRow(payer, label, 100) });
      }
      // The database goes away: no new connection is accepted and the open ones are ended (SQLSTATE 55000 and 57P01).
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
      await writer.flush();
      await writer.flush();
      assert.deepEqual(calls, [3, 3], "one attempt per flush with the whole batch: a connection error is not split");
      assert.equal(writer.waiting(), 3, "nothing is lost");

      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await writer.flush();
      assert.deepEqual(calls, [3, 3, 3]);
      assert.equal(writer.waiting(), 0);
      const rows = await withDatabase(gateway.databaseUrl, (query) =>
        query(`SELECT "requestId" FROM "UsageLog" WHERE "keyId" = ? ORDER BY "requestId"`, [payer.keyId]),
      );
      assert.deepEqual(
        rows.map((row) => row.requestId),
        ["req-a", "req-b", "req-c"],
      );
      assert.deepEqual(await store.available(payer.keyId, payer.userId), { keyQuota: BALANCE - 300, balance: BALANCE - 300, budget: null });
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
      await pool.end();
    }
  });
});

function ledgerRow(payer: { userId: string; keyId: string }, name: string, cost: number): LedgerRow {
  return {
    kind: "request",
    requestId: `req-${name}`,
    userId: payer.userId,
    keyId: payer.keyId,
    keyPrefix: "sk-test",
    endpoint: "/v1/chat/completions",
    model: `model-${name}`,
    channelId: null,
    channelName: null,
    textInputTokens: 10,
    textOutputTokens: 5,
    imageInputTokens: 0,
    imageOutputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reserved: 1_000,
    cost,
    overReservation: 0,
    priceVersion: 1,
    status: "success",
    httpStatus: 200,
    error: null,
    latencyMs: 12,
    stream: false,
    detail: null,
    createdAt: new Date(),
  };
}
