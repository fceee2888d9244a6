// Money under concurrency: N parallel requests on a key whose quota covers 3 produce
// exactly 3 upstream calls, and nothing goes below zero. On SQLite and PostgreSQL.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { raceGate, type RaceGate } from "../helpers/race-gate";

const upstreams: FakeUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

const BODY = { model: "std-5.5", max_tokens: 1000, messages: [{ role: "user", content: "race" }] };

async function raceOn(gateway: Gateway, limit: "key" | "balance") {
  // During the race the upstream holds its answers until every request has reserved or been refused, so none of
  // them settles (giving back the unused part of its reservation) before the others have reserved.
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

  // What one request reserves, measured on a separate key.
  const probe = await createUserWithKey(gateway);
  const first = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${probe.key}`, "content-type": "application/json" },
    body: JSON.stringify(BODY),
  });
  assert.equal(first.status, 200);
  const reserved = (await gateway.admin("GET", `/api/admin/usage?requestId=${first.headers.get("x-request-id")}`)).data[0]
    .reserved as number;
  upstream.received.length = 0;

  const coversThree = Math.floor(reserved * 3.5);
  const racer =
    limit === "key"
      ? await createUserWithKey(gateway, { quota: coversThree, balance: 100_000_000 })
      : await createUserWithKey(gateway, { balance: coversThree, unlimited: true });
  const race = raceGate(30);
  gate = race;
  const responses = await Promise.all(
    Array.from({ length: 30 }, () =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${racer.key}`, "content-type": "application/json" },
        body: JSON.stringify(BODY),
      }).then(async (response) => {
        if (response.status !== 200) race.refused();
        return { status: response.status, body: await response.json() };
      }),
    ),
  ).finally(() => (gate = undefined));
  const served = responses.filter((response) => response.status === 200).length;
  const refused = responses.filter((response) => response.status === 403);
  assert.equal(served, 3, "exactly the three the quota covers are served");
  assert.equal(upstream.received.length, 3, "exactly three upstream calls");
  assert.equal(refused.length, 27);
  for (const response of refused) assert.equal(response.body.error.code, limit === "key" ? "quota_exhausted" : "insufficient_balance");

  const user = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find((row: { id: string }) => row.id === racer.userId);
  const key = (await gateway.admin("GET", `/api/admin/keys?userId=${racer.userId}`)).data[0];
  const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${racer.keyId}&limit=100`)).data as { cost: number }[];
  const spent = rows.reduce((sum, row) => sum + row.cost, 0);
  assert.equal(rows.length, 3);
  assert.ok(user.balance >= 0 && key.quotaRemaining >= 0, "never below zero");
  if (limit === "key") assert.equal(key.quotaRemaining, coversThree - spent, "the key paid exactly what the ledger says");
  else assert.equal(user.balance, coversThree - spent, "the balance paid exactly what the ledger says");
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`quota races on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    test("30 parallel requests, a key quota that covers 3", { skip }, async () => {
      await raceOn(await startGateway({ database }), "key");
    });
    test("30 parallel requests, an owner's balance that covers 3", { skip }, async () => {
      await raceOn(await startGateway({ database }), "balance");
    });
  });
}
