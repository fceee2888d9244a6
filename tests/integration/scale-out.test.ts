// Scale-out: two gateway processes on one PostgreSQL and one Redis stay correct together.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { randomBytes } from "node:crypto";
import {
  createPostgresDatabase,
  createUserWithKey,
  postgresAvailable,
  REDIS_TEST_URL,
  startGateway,
  stopAllGateways,
  type Gateway,
} from "../helpers/gateway";
import { chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { raceGate, type RaceGate } from "../helpers/race-gate";
import { signIn } from "../helpers/session";

function redisReachable(): Promise<boolean> {
  const url = new URL(REDIS_TEST_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379), timeout: 1500 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const BODY = { model: "std-5.5", max_tokens: 1000, messages: [{ role: "user", content: "scale" }] };

/** `content` tags a request, so the test can tell which of its requests reached the upstream. */
function chat(gateway: Gateway, key: string, content = "scale") {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ ...BODY, messages: [{ role: "user", content }] }),
  });
}

/** This test's channel key: only the two gateways under test send it, so other traffic on the port is not counted. */
const CHANNEL_KEY = `scale-out-${randomBytes(8).toString("hex")}`;

describe("two instances on PostgreSQL and Redis", async () => {
  const skip = !(await postgresAvailable()) ? "PostgreSQL is not reachable" : !(await redisReachable()) ? "Redis is not reachable" : false;
  let first: Gateway;
  let second: Gateway;
  let upstream: FakeUpstream;
  let dropDatabase: () => Promise<void>;
  /** While set, the upstream holds this test's answers until the race's gate opens. */
  let gate: RaceGate | undefined;

  before(async () => {
    if (skip) return;
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    const shared = {
      GATEWAY_SECRET: "a-shared-secret-for-both-instances-0123456789",
      GATEWAY_MASTER_KEY: "shared-master-key-0123456789",
      REDIS_URL: REDIS_TEST_URL,
    };
    // The portal is on: sign-in (next-auth) runs in these processes too.
    first = await startGateway({ databaseUrl: database.url, env: shared, portal: true });
    second = await startGateway({ databaseUrl: database.url, env: shared, portal: true });
    upstream = await startFakeUpstream(async (request, response) => {
      await Promise.all([
        new Promise((resolve) => setTimeout(resolve, 300)),
        request.headers.authorization === `Bearer ${CHANNEL_KEY}` ? gate?.arrive() : undefined,
      ]);
      sendJson(response, 200, chatCompletion("ok", "m"));
    });
    await first.admin("POST", "/api/admin/channels", {
      name: "counting",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: CHANNEL_KEY,
      models: ["std-5.5"],
      priority: 100,
    });
  });
  after(async () => {
    if (skip) return;
    await upstream.close();
    await stopAllGateways();
    await dropDatabase();
  });

  test("60 parallel requests split across both, on a key whose quota covers 5: exactly 5 served", { skip }, async (t) => {
    // What one request reserves (the same on both instances: prices come from the shared database).
    const probe = await createUserWithKey(first);
    const response = await chat(second, probe.key);
    assert.equal(response.status, 200);
    const reserved =
      (await first.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data[0]?.reserved ??
      (await second.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data[0].reserved;
    upstream.received.length = 0;

    const racer = await createUserWithKey(first, { quota: Math.floor(reserved * 5.5), balance: 1_000_000_000 });
    const race = raceGate(60);
    gate = race;
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        chat(index % 2 ? first : second, racer.key, `racer ${index}`).then((answer) => {
          if (answer.status !== 200) race.refused();
          return answer.status;
        }),
      ),
    ).finally(() => (gate = undefined));
    assert.equal(results.filter((status) => status === 200).length, 5);
    assert.equal(results.filter((status) => status === 403).length, 55);
    // Exactly the five served requests went upstream, once each: a refused one never does, a served one never twice.
    const ours = upstream.received.filter((received) => received.headers.authorization === `Bearer ${CHANNEL_KEY}`);
    const others = upstream.received.filter((received) => !ours.includes(received));
    if (others.length)
      t.diagnostic(`not from this test's gateways: ${others.map((received) => `${received.method} ${received.path}`).join(", ")}`);
    const sent = ours.map((received) => (received.body as typeof BODY).messages[0]!.content).sort();
    const served = results.flatMap((status, index) => (status === 200 ? [`racer ${index}`] : [])).sort();
    assert.deepEqual(sent, served, "the upstream calls are the served requests, once each");
    const key = (await second.admin("GET", `/api/admin/keys?userId=${racer.userId}`)).data[0];
    assert.ok(key.quotaRemaining >= 0);
  });

  test("a key revoked through one instance is refused by the other within a second", { skip }, async () => {
    const user = await createUserWithKey(first);
    // Both instances have the key cached now.
    assert.equal((await chat(first, user.key)).status, 200);
    assert.equal((await chat(second, user.key)).status, 200);
    await first.admin("DELETE", `/api/admin/keys/${user.keyId}`);
    const started = Date.now();
    let status = 200;
    // Probed with the model list: it checks the key the same way and answers at once, where a served chat request
    // waits 300 ms for this suite's upstream, which the measure would include.
    while (Date.now() - started < 1000) {
      status = (await fetch(`${second.url}/v1/models`, { headers: { authorization: `Bearer ${user.key}` } })).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, "refused by the other instance");
    assert.ok(Date.now() - started < 1000, `within a second (${Date.now() - started} ms)`);
  });

  test("a channel disabled through one instance is skipped by the other", { skip }, async () => {
    const user = await createUserWithKey(first);
    const other = await startFakeUpstream((_request, response) =>
      sendJson(response, 200, chatCompletion("from the preferred channel", "m")),
    );
    try {
      // The change reaches the other instance through Redis: wait for it (up to a second) rather than guess.
      const contentWithin = async (expected: string) => {
        const started = Date.now();
        let content = "";
        while (Date.now() - started < 1000) {
          content = (await (await chat(second, user.key)).json()).choices[0].message.content;
          if (content === expected) break;
        }
        return content;
      };
      const { id } = await first.admin("POST", "/api/admin/channels", {
        name: "preferred",
        type: "openai",
        baseUrl: `${other.url}/v1`,
        apiKey: "y",
        models: ["std-5.5"],
        priority: 200,
      });
      assert.equal(
        await contentWithin("from the preferred channel"),
        "from the preferred channel",
        "the new channel reached the other instance",
      );
      await first.admin("PATCH", `/api/admin/channels/${id}`, { status: "disabled" });
      assert.equal(await contentWithin("ok"), "ok", "the disabled channel is skipped by the other instance within a second");
    } finally {
      await other.close();
    }
  });

  test("a per-key limit of 10 per minute holds across both instances", { skip }, async () => {
    const user = await createUserWithKey(first, { rateLimitPerMinute: 10 });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        chat(index % 2 ? first : second, user.key).then(async (answer) => ({
          status: answer.status,
          retryAfter: answer.headers.get("retry-after"),
          body: await answer.json(),
        })),
      ),
    );
    assert.equal(results.filter((result) => result.status === 200).length, 10);
    const limited = results.filter((result) => result.status === 429);
    assert.equal(limited.length, 14);
    for (const result of limited) {
      assert.ok(Number(result.retryAfter) >= 1 && Number(result.retryAfter) <= 60, "retry-after in seconds");
      assert.equal(result.body.error.code, "rate_limited");
    }
    const anthropicStyle = await fetch(`${second.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": user.key, "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-sonnet-4-6", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    });
    assert.equal(anthropicStyle.status, 429);
    assert.equal((await anthropicStyle.json()).error.type, "rate_limit_error", "429 in the Messages dialect too");
  });

  test("sign-in throttling is shared: wrong passwords spread over both instances lock the account on both", { skip }, async () => {
    const user = await createUserWithKey(first);
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await signIn((attempt % 2 ? first : second).url, user.email, "not-the-password");
      assert.equal(result.ok, false);
    }
    for (const instance of [first, second]) {
      const locked = await signIn(instance.url, user.email, user.password);
      assert.equal(locked.ok, false, "the right password is refused while the account is locked");
      assert.match(locked.ok ? "" : locked.error, /Too many attempts/);
    }
  });

  test("/readyz reports the database and Redis", { skip }, async () => {
    const ready = await (await fetch(`${first.url}/readyz`)).json();
    assert.deepEqual(ready, { status: "ready", checks: { database: "ok", redis: "ok" } });
  });
});

// Every gateway this file started, including the metrics test's own, is stopped; a child left running would keep
// the test process alive.
after(stopAllGateways);

describe("metrics", () => {
  test("/metrics counters match the requests made", async () => {
    const gateway = await startGateway();
    const user = await createUserWithKey(gateway);
    for (let index = 0; index < 3; index++) assert.equal((await chat(gateway, user.key)).status, 200);
    for (let index = 0; index < 2; index++) assert.equal((await chat(gateway, "sk-unknownunknownunknownunknown")).status, 401);
    await gateway.admin("GET", "/api/admin/usage?limit=1");
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? "NaN");
    assert.equal(value(/gateway_requests_total\{endpoint="\/v1\/chat\/completions",status="200"\} (\d+)/), 3);
    assert.equal(value(/gateway_requests_total\{endpoint="\/v1\/chat\/completions",status="401"\} (\d+)/), 2);
    assert.equal(value(/gateway_request_duration_seconds_count\{endpoint="\/v1\/chat\/completions"\} (\d+)/), 5);
    const rows = (await gateway.admin("GET", `/api/admin/usage?userId=${user.userId}`)).data as {
      textInputTokens: number;
      textOutputTokens: number;
      cost: number;
    }[];
    assert.equal(
      value(/gateway_tokens_total\{model="std-5.5",kind="text_output"\} (\d+)/),
      rows.reduce((sum, row) => sum + row.textOutputTokens, 0),
    );
    assert.equal(
      value(/gateway_cost_micro_usd_total\{model="std-5.5"\} (\d+)/),
      rows.reduce((sum, row) => sum + row.cost, 0),
    );
    assert.match(text, /gateway_active_streams 0/);
  });
});
