// What the gateway tells strangers: /metrics only with a token, /readyz in fixed words, and upstream errors without
// the operator's upstream account identifiers (the vendor's words for a refused request are kept, minus the ids;
// rate limits and failures get the gateway's own sentence; the original goes to the log).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, POSTGRES_ADMIN_URL, type Gateway } from "../helpers/gateway";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { postgresConfig } from "@/lib/platform/db/client";

const METRICS_TOKEN = "metrics-token-for-the-test-0123";

let gateway: Gateway;
let key: string;
let upstream: FakeUpstream;
/** What the fake upstream answers next: status and JSON body. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };

before(async () => {
  gateway = await startGateway({ env: { GATEWAY_METRICS_TOKEN: METRICS_TOKEN } });
  key = (await createUserWithKey(gateway)).key;
  upstream = await startFakeUpstream((_request, response) => {
    response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  // Only the fake serves the models: a retryable failure must reach the client, not the simulator.
  const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[];
  for (const channel of channels) await gateway.admin("PATCH", `/api/admin/channels/${channel.id}`, { status: "disabled" });
  await gateway.admin("POST", "/api/admin/channels", {
    name: "openai-like",
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "upstream-key-123456",
    models: ["std-5.5"],
    priority: 10,
  });
  await gateway.admin("POST", "/api/admin/channels", {
    name: "anthropic-like",
    type: "anthropic",
    baseUrl: upstream.url,
    apiKey: "upstream-key-123456",
    models: ["msg-sonnet-4-6"],
    priority: 10,
  });
});
after(async () => {
  await stopAllGateways();
  await upstream?.close();
});

const chat = () =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
  });

const messages = () =>
  fetch(`${gateway.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "msg-sonnet-4-6", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
  });

const IDENTIFIERS = ["org-AbCdEf123456", "proj_Zy98Xw76Vu54", "req_0123456789abcdef", "sk-proj-AAAAbbbbCCCCdddd1234"];

describe("what errors, /metrics and /readyz give away", () => {
  test("/metrics needs GATEWAY_METRICS_TOKEN or the master key as a bearer token; 401 with a reason otherwise", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer not-the-token-at-all" },
      { authorization: `Basic ${METRICS_TOKEN}` },
      { authorization: `Bearer ${key}` },
    ] as Record<string, string>[]) {
      const refused = await fetch(`${gateway.url}/metrics`, { headers });
      assert.equal(refused.status, 401, JSON.stringify(headers));
      const body = (await refused.json()) as { error: { message: string } };
      assert.match(body.error.message, /GATEWAY_METRICS_TOKEN|cannot read the metrics/);
    }
    for (const token of [METRICS_TOKEN, gateway.masterKey]) {
      const allowed = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(allowed.status, 200);
      assert.match(await allowed.text(), /gateway_requests_total|gateway_process_/);
    }
  });

  test("a refused request (4xx) keeps the vendor's type, code and message, with organisation, project, request ids and keys stripped", async () => {
    answer = {
      status: 400,
      body: {
        error: {
          message: `This model's maximum context length is 8192 tokens (organization org-AbCdEf123456, project proj_Zy98Xw76Vu54, request req_0123456789abcdef, key sk-proj-AAAAbbbbCCCCdddd1234).`,
          type: "invalid_request_error",
          code: "context_length_exceeded",
          param: "messages",
        },
      },
    };
    const response = await chat();
    assert.equal(response.status, 400);
    const text = await response.text();
    const body = JSON.parse(text) as { error: { message: string; type: string; code: string } };
    assert.equal(body.error.type, "invalid_request_error");
    assert.equal(body.error.code, "context_length_exceeded");
    assert.match(body.error.message, /^This model's maximum context length is 8192 tokens/);
    for (const identifier of IDENTIFIERS) assert.equal(text.includes(identifier), false, `${identifier} reached the client: ${text}`);

    answer = {
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum (req_0123456789abcdef)" },
      },
    };
    const anthropic = await messages();
    assert.equal(anthropic.status, 400);
    const refusal = (await anthropic.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(refusal.type, "error");
    assert.equal(refusal.error.type, "invalid_request_error");
    assert.match(refusal.error.message, /^prompt is too long: 250000 tokens > 200000 maximum/);
    assert.equal(refusal.error.message.includes("req_0123456789abcdef"), false);
  });

  test("429 and 5xx from the upstream: the status is kept, the message is the gateway's own; the vendor's text goes to the log only", async () => {
    const vendorText = `Rate limit reached for gpt-x in organization org-AbCdEf123456 on requests per min (RPM): Limit 500, Used 500. Request id req_0123456789abcdef`;
    answer = { status: 429, body: { error: { message: vendorText, type: "requests", code: "rate_limit_exceeded" } } };
    const limited = await chat();
    assert.equal(limited.status, 429);
    const limitedText = await limited.text();
    assert.match(
      (JSON.parse(limitedText) as { error: { message: string } }).error.message,
      /^The upstream is rate limiting this gateway; try again later$/,
    );
    for (const identifier of IDENTIFIERS) assert.equal(limitedText.includes(identifier), false, `${identifier} reached the client`);

    answer = { status: 500, body: { error: { message: "Internal failure at shard 17 for org-AbCdEf123456", type: "server_error" } } };
    for (const call of [chat, messages]) {
      const failed = await call();
      assert.equal(failed.status, 502);
      const failedText = await failed.text();
      assert.match(failedText, /The upstream failed \(500\); try again later/);
      assert.equal(failedText.includes("org-AbCdEf123456"), false);
      assert.equal(failedText.includes("shard 17"), false);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(gateway.output().includes("Rate limit reached for gpt-x in organization org-AbCdEf123456"), "the original is in the log");
    assert.ok(gateway.output().includes("Internal failure at shard 17"), "the original is in the log");
  });
});

describe("/readyz on PostgreSQL gives away nothing", {
  skip: !(await postgresAvailable()) && "PostgreSQL is not reachable on 127.0.0.1",
}, () => {
  let ready: Gateway;
  before(async () => {
    ready = await startGateway({ database: "postgres" });
  });

  test("/readyz answers fixed words when the database is gone; the error text (with the database's name) goes to the log", async () => {
    assert.deepEqual(await (await fetch(`${ready.url}/readyz`)).json(), { status: "ready", checks: { database: "ok" } });
    const name = new URL(ready.databaseUrl).pathname.slice(1);
    const admin = new pg.Client(postgresConfig(POSTGRES_ADMIN_URL));
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    let answer: { status: number; text: string } = { status: 0, text: "" };
    // The pool notices on its next query; a dropped connection may take one attempt to surface.
    for (let attempt = 0; attempt < 5 && answer.status !== 503; attempt++) {
      const response = await fetch(`${ready.url}/readyz`);
      answer = { status: response.status, text: await response.text() };
    }
    assert.equal(answer.status, 503);
    assert.deepEqual(JSON.parse(answer.text), { status: "not ready", checks: { database: "unreachable" } });
    assert.equal(answer.text.includes(name), false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(ready.output(), /readiness: database unreachable/);
  });
});
