// A key's budget per calendar period and its address allowlists (docs/api.md, "Key budgets and allowed addresses";
// docs/billing.md, "Key budgets"): the operator's budget the owner may lower, never raise, remove or re-period; a
// request past the budget is a 403 `budget_exceeded` in the endpoint's dialect saying when it resets; a new period
// starts the count over (the period start is moved back in the database rather than waiting for midnight); 40
// requests racing on one key never pass the budget, on SQLite and on PostgreSQL + Redis, exactly as the quota holds
// (tests/integration/gateway-money.test.ts); and a request from an address outside the key's list is a 403 naming it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import Sqlite from "better-sqlite3";
import pg from "pg";
import { createUserWithKey, postgresAvailable, REDIS_TEST_URL, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { raceGate, type RaceGate } from "../helpers/race-gate";
import { signedIn } from "../helpers/user-api";
import { periodEnd, periodStart } from "@/lib/money/budget";

const upstreams: FakeUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

const DAY_MS = 86_400_000;
const CHAT = { model: "std-5.5", max_tokens: 1000, messages: [{ role: "user", content: "budget" }] };

/** Sets a key's budget counter in the database: what it spent, and from when it counts. */
async function setCounter(gateway: Gateway, keyId: string, spent: number, start: number): Promise<void> {
  if (gateway.databaseUrl.startsWith("file:")) {
    const database = new Sqlite(gateway.databaseUrl.slice("file:".length));
    try {
      database.prepare(`UPDATE "ApiKey" SET "budgetSpent" = ?, "budgetPeriodStart" = ? WHERE "id" = ?`).run(spent, start, keyId);
    } finally {
      database.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: gateway.databaseUrl });
  await client.connect();
  try {
    await client.query(`UPDATE "ApiKey" SET "budgetSpent" = $1, "budgetPeriodStart" = $2 WHERE "id" = $3`, [spent, start, keyId]);
  } finally {
    await client.end();
  }
}

const operatorKey = async (gateway: Gateway, userId: string, keyId: string) =>
  (await gateway.admin("GET", `/api/admin/keys?userId=${userId}`)).data.find((key: { id: string }) => key.id === keyId);

function chat(gateway: Gateway, key: string, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(CHAT),
  });
}

describe("key budgets and allowed addresses on SQLite", () => {
  let gateway: Gateway;
  before(async () => {
    // 127.0.0.1 is a trusted proxy here, so a test can send the address a load balancer would forward.
    gateway = await startGateway({ portal: true, env: { GATEWAY_TRUSTED_PROXIES: "127.0.0.1" } });
  });

  test("the operator's budget: the owner may lower it, not raise, remove or re-period it, and a key answer shows what is left", async () => {
    const owner = await createUserWithKey(gateway);
    const set = await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { budget: 5_000_000, budgetPeriod: "day" });
    assert.equal(set.budget, 5_000_000);
    assert.equal(set.budgetPeriod, "day");
    assert.equal(set.budgetByOperator, true);
    assert.equal(set.budgetLeft, 5_000_000);
    assert.equal(set.budgetResetsAt, new Date(periodEnd("day", Date.now())).toISOString());
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    const raise = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { budget: 6_000_000 });
    assert.equal(raise.status, 403, JSON.stringify(raise.body));
    assert.match(raise.body.error.message, /An operator set this key's budget of \$5\.00 a day: you may lower it, not raise it/);
    const remove = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { budget: null });
    assert.equal(remove.status, 403);
    assert.match(remove.body.error.message, /not remove it/);
    const period = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { budgetPeriod: "month" });
    assert.equal(period.status, 403);
    assert.match(period.body.error.message, /not change its period/);
    assert.equal((await operatorKey(gateway, owner.userId, owner.keyId)).budget, 5_000_000, "nothing changed");
    const lower = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { budget: 2_000_000 });
    assert.equal(lower.status, 200, JSON.stringify(lower.body));
    assert.equal(lower.body.budget, 2_000_000);
    // A budget the owner set on their own key is theirs to change.
    const own = await browser.call("POST", "/api/user/keys", { name: "own", quota: 1_000_000, budget: 1_000_000, budgetPeriod: "week" });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    assert.equal(own.body.budgetByOperator, false);
    const raised = await browser.call("PATCH", `/api/user/keys/${own.body.id}`, { budget: 3_000_000, budgetPeriod: "month" });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    assert.deepEqual([raised.body.budget, raised.body.budgetPeriod], [3_000_000, "month"]);
    const bad = await browser.call("PATCH", `/api/user/keys/${own.body.id}`, { budgetPeriod: "year" });
    assert.equal(bad.status, 400);
  });

  test("a request past the budget is a 403 budget_exceeded in each dialect, saying when the budget resets", async () => {
    const owner = await createUserWithKey(gateway);
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { budget: 5_000_000, budgetPeriod: "day" });
    await setCounter(gateway, owner.keyId, 5_000_000, Date.now());
    const resets = new Date(periodEnd("day", Date.now())).toISOString().replace(".000Z", "Z");
    const expected = `This key's daily budget of $5.00 is spent; it resets at ${resets}`;

    const openai = await chat(gateway, owner.key);
    assert.equal(openai.status, 403);
    const openaiError = (await openai.json()).error;
    assert.deepEqual([openaiError.code, openaiError.type, openaiError.message], ["budget_exceeded", "budget_exceeded", expected]);

    const anthropic = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": owner.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(anthropic.status, 403);
    const anthropicBody = await anthropic.json();
    assert.deepEqual([anthropicBody.type, anthropicBody.error.type, anthropicBody.error.message], ["error", "budget_exceeded", expected]);

    const google = await fetch(`${gateway.url}/v1beta/models/std-5.5:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": owner.key, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    assert.equal(google.status, 403);
    const googleError = (await google.json()).error;
    assert.equal(googleError.code, 403);
    assert.equal(googleError.status, "RESOURCE_EXHAUSTED");
    assert.equal(googleError.message, expected);
    assert.equal(googleError.details[0].reason, "BUDGET_EXCEEDED");
  });

  test("money before work reads the budget: a large body the budget cannot cover is refused before it is read", async () => {
    // docs/billing.md, "Money before work": the budget counts as the key's quota does, for JSON bodies and uploads.
    const owner = await createUserWithKey(gateway, { balance: 100_000_000, quota: 100_000_000 });
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { budget: 1_000, budgetPeriod: "day" });
    const resets = new Date(periodEnd("day", Date.now())).toISOString().replace(".000Z", "Z");
    const text = "budget ".repeat(400_000);
    const large = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-5.5", max_tokens: 16, messages: [{ role: "user", content: text }] }),
    });
    assert.equal(large.status, 403);
    const largeError = (await large.json()).error;
    assert.equal(largeError.code, "budget_exceeded");
    assert.match(
      largeError.message,
      new RegExp(
        `^This key's daily budget of \\$0\\.001 has \\$0\\.001 left and this request's body holds at least .* of text, .*; the body was not (read to its end|parsed); it resets at ${resets}$`,
      ),
    );

    await setCounter(gateway, owner.keyId, 1_000, Date.now());
    const upload = new FormData();
    upload.append("model", "std-transcribe-1");
    upload.append("file", new Blob([new Uint8Array(1_500_000)]), "speech.wav");
    const transcription = await fetch(`${gateway.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.key}` },
      body: upload,
    });
    assert.equal(transcription.status, 403);
    const uploadError = (await transcription.json()).error;
    assert.equal(uploadError.code, "budget_exceeded");
    assert.match(
      uploadError.message,
      new RegExp(
        `^This key's daily budget of \\$0\\.001 has \\$0\\.00 left and any request here reserves at least .*; the request was not read; it resets at ${resets}$`,
      ),
    );
    const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${owner.keyId}&limit=10`)).data;
    assert.equal(rows.length, 0, "nothing was charged");
  });

  test("a new period starts the count over: the counter of yesterday's period does not refuse today's request", async () => {
    const owner = await createUserWithKey(gateway);
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { budget: 5_000_000, budgetPeriod: "day" });
    await setCounter(gateway, owner.keyId, 5_000_000, periodStart("day", Date.now() - DAY_MS));
    const before = await operatorKey(gateway, owner.userId, owner.keyId);
    assert.equal(before.budgetSpent, 0, "the answer already counts yesterday's spending as gone");
    const response = await chat(gateway, owner.key);
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${owner.keyId}&limit=10`)).data as { cost: number }[];
    const key = await operatorKey(gateway, owner.userId, owner.keyId);
    assert.equal(rows.length, 1);
    assert.equal(key.budgetSpent, rows[0]!.cost, "the new period counts only today's request, settled to its cost");
    assert.equal(key.budgetLeft, 5_000_000 - rows[0]!.cost);
  });

  test("the allowlist: a request from an address outside it is a 403 naming the address; inside it is served (IPv4 and IPv6, behind a trusted proxy)", async () => {
    const owner = await createUserWithKey(gateway);
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { allowedIps: ["203.0.113.0/24", "2001:db8::/32"] });
    const outside = await chat(gateway, owner.key, { "x-forwarded-for": "198.51.100.7" });
    assert.equal(outside.status, 403);
    const error = (await outside.json()).error;
    assert.equal(error.code, "ip_not_allowed");
    assert.match(error.message, /this request came from 198\.51\.100\.7/);
    const direct = await chat(gateway, owner.key);
    assert.equal(direct.status, 403, "the proxy's own address is not the client's");
    assert.match((await direct.json()).error.message, /came from 127\.0\.0\.1/);
    for (const address of ["203.0.113.9", "2001:db8:1::5"]) {
      const inside = await chat(gateway, owner.key, { "x-forwarded-for": address });
      assert.equal(inside.status, 200, `${address}: ${await inside.clone().text()}`);
      await inside.text();
    }
    const anthropic = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": owner.key,
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
        "x-forwarded-for": "2001:db9::1",
      },
      body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(anthropic.status, 403);
    const anthropicBody = await anthropic.json();
    assert.equal(anthropicBody.error.type, "permission_error");
    assert.match(anthropicBody.error.message, /came from 2001:db9::1/);
  });

  test("the owner may narrow the operator's address list, not widen or remove it; a bad entry is a 400 naming it", async () => {
    const owner = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    const badOperator = await fetch(`${gateway.url}/api/admin/keys/${owner.keyId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: JSON.stringify({ allowedIps: ["10.0.0.0/8", "10.0.0.0/33"] }),
    });
    assert.equal(badOperator.status, 400);
    assert.match((await badOperator.json()).error.message, /'10\.0\.0\.0\/33' in allowedIps is not an IPv4 or IPv6 address or CIDR/);
    const badOwner = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { allowedIps: ["not-an-address"] });
    assert.equal(badOwner.status, 400);
    assert.match(badOwner.body.error.message, /'not-an-address' in allowedIps/);
    const badCreate = await browser.call("POST", "/api/user/keys", { quota: 1, allowedIps: ["1.2.3.4/8/9"] });
    assert.equal(badCreate.status, 400);
    assert.match(badCreate.body.error.message, /'1\.2\.3\.4\/8\/9'/);

    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { allowedIps: ["203.0.113.0/24"] });
    const widen = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { allowedIps: ["203.0.0.0/16"] });
    assert.equal(widen.status, 403);
    assert.match(
      widen.body.error.message,
      /'203\.0\.0\.0\/16' is outside the addresses an operator allowed this key \(203\.0\.113\.0\/24\)/,
    );
    const remove = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { allowedIps: [] });
    assert.equal(remove.status, 403);
    assert.match(remove.body.error.message, /you may narrow that list, not remove it/);
    const narrow = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { allowedIps: ["203.0.113.8/29"] });
    assert.equal(narrow.status, 200, JSON.stringify(narrow.body));
    assert.deepEqual([narrow.body.allowedIps, narrow.body.operatorAllowedIps], [["203.0.113.8/29"], ["203.0.113.0/24"]]);
    const outsideNarrow = await chat(gateway, owner.key, { "x-forwarded-for": "203.0.113.1" });
    assert.equal(outsideNarrow.status, 403, "the owner's narrower list holds");
    await outsideNarrow.text();
    const insideNarrow = await chat(gateway, owner.key, { "x-forwarded-for": "203.0.113.9" });
    assert.equal(insideNarrow.status, 200);
    await insideNarrow.text();
  });
});

/** 40 requests on one key whose budget covers 3 reservations: exactly 3 are served and the counter is their cost. */
async function budgetRace(gateway: Gateway) {
  let gate: RaceGate | undefined;
  const upstream = await startFakeUpstream(async (_request, response) => {
    await gate?.arrive();
    sendJson(response, 200, chatCompletion("ok", "m"));
  });
  upstreams.push(upstream);
  await gateway.admin("POST", "/api/admin/channels", {
    name: "counting",
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "x",
    models: ["std-5.5"],
    priority: 100,
  });
  const probe = await createUserWithKey(gateway);
  const first = await chat(gateway, probe.key);
  assert.equal(first.status, 200);
  await first.text();
  const reserved = (await gateway.admin("GET", `/api/admin/usage?requestId=${first.headers.get("x-request-id")}`)).data[0]
    .reserved as number;
  upstream.received.length = 0;

  const coversThree = Math.floor(reserved * 3.5);
  const racer = await createUserWithKey(gateway, { quota: 100_000_000, balance: 100_000_000 });
  await gateway.admin("PATCH", `/api/admin/keys/${racer.keyId}`, { budget: coversThree, budgetPeriod: "month" });
  const race = raceGate(40);
  gate = race;
  const responses = await Promise.all(
    Array.from({ length: 40 }, () =>
      chat(gateway, racer.key).then(async (response) => {
        if (response.status !== 200) race.refused();
        return { status: response.status, body: await response.json() };
      }),
    ),
  ).finally(() => (gate = undefined));
  const served = responses.filter((response) => response.status === 200).length;
  const refused = responses.filter((response) => response.status === 403);
  assert.equal(served, 3, "exactly the three the budget covers are served");
  assert.equal(upstream.received.length, 3, "exactly three upstream calls");
  assert.equal(refused.length, 37);
  for (const response of refused) assert.equal(response.body.error.code, "budget_exceeded");
  const key = await operatorKey(gateway, racer.userId, racer.keyId);
  const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${racer.keyId}&limit=100`)).data as { cost: number }[];
  const spent = rows.reduce((sum, row) => sum + row.cost, 0);
  assert.equal(rows.length, 3);
  assert.equal(key.budgetSpent, spent, "the counter holds exactly what the ledger charged");
  assert.ok(key.budgetSpent <= coversThree, "never past the budget");
  assert.equal(key.quotaRemaining, 100_000_000 - spent, "the quota paid the same");
}

describe("budget races", async () => {
  const skip = (await postgresAvailable()) ? false : "PostgreSQL is not reachable at 127.0.0.1:5432";
  test("40 parallel requests on one key whose budget covers 3, on SQLite", async () => {
    await budgetRace(await startGateway());
  });
  test("40 parallel requests on one key whose budget covers 3, on PostgreSQL + Redis", { skip }, async () => {
    await budgetRace(await startGateway({ database: "postgres", env: { REDIS_URL: REDIS_TEST_URL } }));
  });
});
