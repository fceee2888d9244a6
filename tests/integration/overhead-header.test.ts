// x-gateway-overhead-ms (docs/api.md, "The gateway's own time"): every answer of a /v1 endpoint says how long the
// gateway itself took, leaving out the time spent waiting on upstreams, so a client can tell the gateway's latency
// from its model's. Checked with an upstream that answers after a known pause, with a failover, and with answers that
// never reach an upstream.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";

const PAUSE_MS = 1_500;
const MODEL = "std-5.5";
let gateway: Gateway;
let slow: FakeUpstream;
let failing: FakeUpstream;
let payer: Awaited<ReturnType<typeof createUserWithKey>>;

before(async () => {
  gateway = await startGateway();
  slow = await startFakeUpstream(async (request, response) => {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    sendJson(response, 200, chatCompletion("late", request.body.model));
  });
  failing = await startFakeUpstream(async (_request, response) => {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    sendJson(response, 503, { error: { message: "overloaded", type: "server_error" } });
  });
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: ["msg-haiku-4-5-20251001"] });
  for (const [upstream, priority] of [
    [failing, 100],
    [slow, 50],
  ] as const)
    await gateway.admin("POST", "/api/admin/channels", {
      name: `overhead ${priority}`,
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-key",
      models: [MODEL],
      priority,
    });
  payer = await createUserWithKey(gateway, { balance: 100_000_000, quota: 100_000_000 });
});
after(async () => {
  await Promise.all([slow?.close(), failing?.close()]);
  await stopAllGateways();
});

function overheadOf(headers: Headers): number {
  const value = headers.get("x-gateway-overhead-ms");
  assert.ok(value !== null, "the header is there");
  assert.match(value, /^\d+\.\d{2}$/);
  return Number(value);
}

test("a chat answer after a failover: the header leaves out both upstreams' time, and browsers may read it", async () => {
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${payer.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "hello" }] }),
  });
  const total = performance.now() - started;
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(failing.received.length, 1, "the first channel was tried");
  assert.equal(slow.received.length, 1, "the second served");
  assert.ok(total >= 2 * PAUSE_MS, `the client waited for both upstreams (${total} ms)`);
  const overhead = overheadOf(response.headers);
  // The two upstreams took 3 s between them; what is left is the gateway's own work, far less than one pause.
  assert.ok(overhead < PAUSE_MS, `overhead ${overhead} ms leaves the upstreams out`);
  assert.ok(overhead <= total - 2 * PAUSE_MS + 1, `overhead ${overhead} ms is within what the client saw beyond the upstreams`);
  assert.match(response.headers.get("access-control-expose-headers") ?? "", /x-gateway-overhead-ms/);
  await response.text();
});

test("the SDK sees it too, and answers that never reach an upstream carry it (a refusal, the model list)", async () => {
  const client = new OpenAI({ apiKey: payer.key, baseURL: `${gateway.url}/v1` });
  const { response } = await client.models.list().withResponse();
  overheadOf(response.headers);
  const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-not-a-key", "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(refused.status, 401);
  overheadOf(refused.headers);
  await refused.text();
});
