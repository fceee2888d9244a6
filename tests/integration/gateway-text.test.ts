// Gateway core: Chat Completions and Messages through the official SDKs, against the simulator and against fake
// upstreams that record what they received; routing, mapping, failover, cross-protocol conversion.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { countChatRequestInputTokens, newCountStats, REQUEST_EXACT_CHARS } from "@/lib/money/tokens";
import {
  anthropicEvents,
  anthropicMessage,
  chatChunks,
  chatCompletion,
  sendJson,
  sendSse,
  startFakeUpstream,
  type FakeUpstream,
} from "../helpers/fake-upstream";

let gateway: Gateway;
let key: string;
let userId: string;
const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway();
  ({ key, userId } = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 }));
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

async function channel(body: Record<string, unknown>): Promise<string> {
  return (await gateway.admin("POST", "/api/admin/channels", body)).id;
}

async function ledgerFor(requestId: string) {
  const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

/** A sample of the gateway's /metrics (0 when the series is not there yet), e.g. metric("gateway_failovers_total", { channel: "x" }). */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([label, value]) => found[label] === value)) return Number(match[3]);
  }
  return 0;
}

function openai(apiKey = key) {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

function anthropic(apiKey = key) {
  return new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
}

describe("against the built-in simulator", () => {
  test("Chat Completions, non-streaming, through the openai SDK", async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Say hello to the gateway" }], max_tokens: 50 })
      .withResponse();
    assert.equal(data.object, "chat.completion");
    assert.equal(data.model, "std-5.5");
    assert.match(data.choices[0]!.message.content ?? "", /^\(simulated\) /);
    assert.equal(data.system_fingerprint, "simulator");
    assert.ok(data.usage!.prompt_tokens > 0 && data.usage!.completion_tokens > 0);
    const requestId = response.headers.get("x-request-id")!;
    assert.match(requestId, /^req_/);
    const row = await ledgerFor(requestId);
    assert.equal(row.model, "std-5.5");
    assert.equal(row.channelName, "Built-in simulator (offline)");
    assert.equal(row.textInputTokens, data.usage!.prompt_tokens);
    assert.equal(row.textOutputTokens, data.usage!.completion_tokens);
    // std-5.5 is priced at $1.25 / $10 per 1M tokens: one token costs 1.25 and 10 micro-USD.
    assert.equal(row.cost, Math.ceil(data.usage!.prompt_tokens * 1.25 + data.usage!.completion_tokens * 10 - 1e-9));
    assert.equal(row.keyPrefix, key.slice(0, 10));
    assert.equal(JSON.stringify(row).includes(key), false, "the ledger holds only the key's prefix");
    assert.equal(row.status, "success");
  });

  test("Chat Completions, streaming, with and without the usage chunk", async () => {
    const stream = await openai().chat.completions.create({
      model: "std-5.5",
      messages: [{ role: "user", content: "Count to five" }],
      stream: true,
      max_tokens: 40,
    });
    let text = "";
    let usageChunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usageChunks++;
    }
    assert.match(text, /^\(simulated\) /);
    assert.equal(usageChunks, 0, "no usage chunk unless asked");

    const withUsage = await openai().chat.completions.create({
      model: "std-5.5",
      messages: [{ role: "user", content: "Count to five" }],
      stream: true,
      max_tokens: 40,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    assert.ok(usage && usage.completion_tokens > 0);
  });

  test("Messages, non-streaming and streaming, through the Anthropic SDK", async () => {
    const message = await anthropic().messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 64,
      messages: [{ role: "user", content: "Hello there" }],
    });
    assert.equal(message.type, "message");
    assert.equal(message.model, "msg-sonnet-4-6");
    assert.equal(message.content[0]!.type, "text");
    assert.match((message.content[0] as Anthropic.TextBlock).text, /^\(simulated\) /);
    assert.match(message.id, /^msg_sim_/);

    const stream = anthropic().messages.stream({
      model: "msg-haiku-4-5-20251001",
      max_tokens: 64,
      messages: [{ role: "user", content: "Stream please" }],
    });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    assert.match(text, /^\(simulated\) /);
    assert.equal((final.content[0] as Anthropic.TextBlock).text, text);
    assert.ok(final.usage.output_tokens > 0);
  });

  test("the [1m] models are authorised and priced on their own name", async () => {
    const { data, response } = await anthropic()
      .messages.create({ model: "msg-opus-4-6[1m]", max_tokens: 32, messages: [{ role: "user", content: "long context" }] })
      .withResponse();
    const row = await ledgerFor(response.headers.get("x-request-id")!);
    assert.equal(row.model, "msg-opus-4-6[1m]");
    // msg-opus-4-6[1m]: the base $5 / $25 per 1M tokens up to 200,000 input tokens (the long-context tier above it
    // is tested in tests/integration/money-invariant.test.ts).
    assert.equal(row.cost, Math.ceil(data.usage.input_tokens * 5 + data.usage.output_tokens * 25 - 1e-9));
  });
});

describe("against recording fake upstreams", () => {
  test("openai channel: mapped model, the channel's key, the client's body; streaming asks for usage", async () => {
    const upstream = await fake(async (request, response) => {
      if (request.body.stream) await sendSse(response, chatChunks(["Hel", "lo"], "real-model-v2"));
      else sendJson(response, 200, chatCompletion("Hello from upstream", "real-model-v2"));
    });
    const channelId = await channel({
      name: "fake openai",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-secret-1",
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "real-model-v2" },
      priority: 50,
    });
    try {
      const { data, response } = await openai()
        .chat.completions.create({
          model: "std-5.5",
          messages: [
            { role: "system", content: "Be brief" },
            { role: "user", content: "Hi" },
          ],
          temperature: 0.2,
          max_tokens: 30,
        })
        .withResponse();
      assert.equal(data.choices[0]!.message.content, "Hello from upstream");
      assert.equal(data.model, "std-5.5", "the client sees the public model name");
      const received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/chat/completions");
      assert.equal(received.headers.authorization, "Bearer upstream-secret-1");
      assert.equal(JSON.stringify(received.headers).includes(key), false, "the caller's key never goes upstream");
      assert.equal(received.body.model, "real-model-v2");
      assert.deepEqual(received.body.messages, [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Hi" },
      ]);
      assert.equal(received.body.temperature, 0.2);
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.channelName, "fake openai");
      assert.equal(row.textInputTokens, 11);
      assert.equal(row.textOutputTokens, 7);
      assert.equal(row.cost, Math.ceil(11 * 1.25 + 7 * 10));

      const stream = await openai().chat.completions.create({
        model: "std-5.5",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      });
      let text = "";
      let sawUsage = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.usage) sawUsage = true;
        assert.equal(chunk.model, "std-5.5");
      }
      assert.equal(text, "Hello");
      assert.equal(sawUsage, false, "the usage chunk the gateway asked for is stripped");
      assert.deepEqual(upstream.received.at(-1)!.body.stream_options, { include_usage: true });
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("anthropic channel: mapped model, x-api-key, the version header passed on, [1m] beta header", async () => {
    const upstream = await fake(async (request, response) => {
      if (request.body.stream) await sendSse(response, anthropicEvents(["Hi ", "there"], "real-sonnet"));
      else sendJson(response, 200, anthropicMessage("Hi from upstream", "real-sonnet"));
    });
    const channelId = await channel({
      name: "fake anthropic",
      type: "anthropic",
      baseUrl: upstream.url,
      apiKey: "upstream-secret-2",
      priority: 50,
      models: ["msg-sonnet-4-6", "msg-sonnet-4-6[1m]"],
      modelMapping: { "msg-sonnet-4-6": "real-sonnet" },
    });
    try {
      const message = await anthropic().messages.create({
        model: "msg-sonnet-4-6",
        max_tokens: 100,
        messages: [{ role: "user", content: "Hello" }],
      });
      assert.equal((message.content[0] as Anthropic.TextBlock).text, "Hi from upstream");
      assert.equal(message.model, "msg-sonnet-4-6");
      let received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/messages");
      assert.equal(received.headers["x-api-key"], "upstream-secret-2");
      assert.equal(received.headers.authorization, undefined);
      assert.equal(received.headers["anthropic-version"], "2023-06-01");
      assert.equal(received.headers["anthropic-beta"], undefined);
      assert.equal(received.body.model, "real-sonnet");
      assert.equal(received.body.max_tokens, 100);

      const long = await anthropic().messages.create({
        model: "msg-sonnet-4-6[1m]",
        max_tokens: 10,
        messages: [{ role: "user", content: "Long" }],
      });
      assert.equal(long.model, "msg-sonnet-4-6[1m]");
      received = upstream.received.at(-1)!;
      assert.equal(received.body.model, "real-sonnet", "the [1m] suffix is stripped, then mapped");
      assert.equal(received.headers["anthropic-beta"], "context-1m-2025-08-07");

      // Raw fetch with the product's msg-version alias.
      const raw = await fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "msg-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "msg-sonnet-4-6", max_tokens: 5, messages: [{ role: "user", content: "alias" }] }),
      });
      assert.equal(raw.status, 200);
      assert.equal(upstream.received.at(-1)!.headers["anthropic-version"], "2023-06-01");

      const stream = anthropic().messages.stream({
        model: "msg-sonnet-4-6",
        max_tokens: 50,
        messages: [{ role: "user", content: "Stream" }],
      });
      const final = await stream.finalMessage();
      assert.equal((final.content[0] as Anthropic.TextBlock).text, "Hi there");
      assert.equal(final.model, "msg-sonnet-4-6");
      assert.equal(final.usage.output_tokens, 9);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("cross-protocol: Messages served by an openai channel, Chat Completions served by an anthropic channel", async () => {
    const openaiUpstream = await fake(async (request, response) => {
      if (request.body.stream) await sendSse(response, chatChunks(["conv", "erted"], "gpt-backend"));
      else sendJson(response, 200, chatCompletion("converted answer", "gpt-backend"));
    });
    const anthropicUpstream = await fake(async (request, response) => {
      if (request.body.stream) await sendSse(response, anthropicEvents(["from ", "claude"], "claude-backend"));
      else sendJson(response, 200, anthropicMessage("from claude", "claude-backend"));
    });
    const first = await channel({
      name: "openai for msg",
      type: "openai",
      baseUrl: `${openaiUpstream.url}/v1`,
      apiKey: "k1",
      models: ["msg-haiku-4-5-20251001"],
      modelMapping: { "msg-haiku-4-5-20251001": "gpt-backend" },
      priority: 50,
    });
    const second = await channel({
      name: "anthropic for chat",
      type: "anthropic",
      baseUrl: anthropicUpstream.url,
      apiKey: "k2",
      models: ["msg-opus-4-6"],
      modelMapping: { "msg-opus-4-6": "claude-backend" },
      priority: 50,
    });
    try {
      const message = await anthropic().messages.create({
        model: "msg-haiku-4-5-20251001",
        max_tokens: 77,
        system: "Be kind",
        messages: [{ role: "user", content: "Convert me" }],
      });
      assert.equal((message.content[0] as Anthropic.TextBlock).text, "converted answer");
      assert.equal(message.usage.input_tokens, 11);
      const sent = openaiUpstream.received.at(-1)!;
      assert.equal(sent.path, "/v1/chat/completions");
      assert.equal(sent.body.model, "gpt-backend");
      assert.equal(sent.body.messages[0].role, "system");
      assert.equal(sent.body.messages.at(-1).role, "user");
      const streamed = await anthropic()
        .messages.stream({ model: "msg-haiku-4-5-20251001", max_tokens: 20, messages: [{ role: "user", content: "Stream it" }] })
        .finalMessage();
      assert.equal((streamed.content[0] as Anthropic.TextBlock).text, "converted");

      const completion = await openai().chat.completions.create({
        model: "msg-opus-4-6",
        messages: [
          { role: "system", content: "Sys" },
          { role: "user", content: "Hi" },
        ],
        max_tokens: 33,
      });
      assert.equal(completion.choices[0]!.message.content, "from claude");
      assert.equal(completion.choices[0]!.finish_reason, "stop");
      assert.equal(completion.usage!.prompt_tokens, 13);
      const converted = anthropicUpstream.received.at(-1)!;
      assert.equal(converted.path, "/v1/messages");
      assert.equal(converted.body.model, "claude-backend");
      assert.equal(converted.body.max_tokens, 33);
      assert.ok(JSON.stringify(converted.body.system).includes("Sys"));
      const chunks = await openai().chat.completions.create({
        model: "msg-opus-4-6",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of chunks) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, "from claude");
      assert.equal(usage?.completion_tokens, 9);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${first}`);
      await gateway.admin("DELETE", `/api/admin/channels/${second}`);
    }
  });

  test("bodies that arrive in pieces are read whole: the client's request and the upstream's answer", async () => {
    // The gateway takes a body that is all there when it looks (the usual case) in one read, and waits for the rest
    // otherwise (lib/platform/http/node-adapter.ts, lib/providers/http.ts): both ways must give the whole body.
    const answer = Buffer.from(JSON.stringify(chatCompletion(`Hello ${"x".repeat(3000)} from pieces`, "real-model-pieces")));
    let declareLength = true;
    const upstream = await fake(async (_request, response) => {
      // With a Content-Length, then chunked (no length: the end of the answer is its last chunk).
      response.writeHead(200, {
        "content-type": "application/json",
        ...(declareLength ? { "content-length": String(answer.length) } : {}),
      });
      response.write(answer.subarray(0, 100));
      await sleep(40);
      response.write(answer.subarray(100, 2000));
      await sleep(40);
      response.end(answer.subarray(2000));
    });
    const channelId = await channel({
      name: "fake openai in pieces",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-secret-pieces",
      models: ["std-5.5"],
      priority: 60,
    });
    try {
      const content = `Tell me about ${"pieces ".repeat(400)}`;
      const body = Buffer.from(JSON.stringify({ model: "std-5.5", messages: [{ role: "user", content }], max_tokens: 40 }));
      for (const length of [true, false]) {
        declareLength = length;
        const sent = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          const request = http.request(
            `${gateway.url}/v1/chat/completions`,
            {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length) },
            },
            (response) => {
              let text = "";
              response.setEncoding("utf8");
              response.on("data", (chunk: string) => (text += chunk));
              response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
            },
          );
          request.on("error", reject);
          // The headers go with the first piece: part of the body is there when the gateway starts reading it.
          void (async () => {
            request.write(body.subarray(0, 1000));
            await sleep(40);
            request.write(body.subarray(1000, 2000));
            await sleep(40);
            request.end(body.subarray(2000));
          })();
        });
        assert.equal(sent.status, 200, sent.text.slice(0, 300));
        const completion = JSON.parse(sent.text);
        assert.equal(completion.choices[0].message.content, `Hello ${"x".repeat(3000)} from pieces`);
        assert.equal(completion.model, "std-5.5");
        assert.equal(upstream.received.at(-1)!.body.messages[0].content, content, "the upstream got the whole request");
      }
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("failover: the first channel answers 503, the second 200; the ledger names the second", async () => {
    const failing = await fake((_request, response) => sendJson(response, 503, { error: { message: "overloaded" } }));
    const working = await fake((_request, response) => sendJson(response, 200, chatCompletion("second channel", "m")));
    const a = await channel({
      name: "first (503)",
      type: "openai",
      baseUrl: `${failing.url}/v1`,
      apiKey: "a",
      models: ["std-5.5"],
      priority: 90,
    });
    const b = await channel({
      name: "second (200)",
      type: "openai",
      baseUrl: `${working.url}/v1`,
      apiKey: "b",
      models: ["std-5.5"],
      priority: 80,
    });
    try {
      const { data, response } = await openai()
        .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "failover" }], max_tokens: 10 })
        .withResponse();
      assert.equal(response.status, 200);
      assert.equal(data.choices[0]!.message.content, "second channel");
      assert.equal(failing.received.length, 1);
      assert.equal(working.received.length, 1);
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.channelName, "second (200)");
      assert.equal(row.status, "success");
      // /metrics counts the move away from the first channel, and each channel's attempt with its outcome.
      assert.equal(await metric("gateway_failovers_total", { model: "std-5.5", channel: "first (503)" }), 1);
      assert.equal(await metric("gateway_failovers_total", { model: "std-5.5", channel: "second (200)" }), 0);
      assert.equal(await metric("gateway_upstream_attempts_total", { model: "std-5.5", channel: "first (503)", outcome: "error" }), 1);
      assert.equal(await metric("gateway_upstream_attempts_total", { model: "std-5.5", channel: "second (200)", outcome: "ok" }), 1);
      assert.equal(await metric("gateway_upstream_duration_seconds_count", { model: "std-5.5", channel: "second (200)" }), 1);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${a}`);
      await gateway.admin("DELETE", `/api/admin/channels/${b}`);
    }
  });

  test("a model name the gateway does not serve never becomes a label of /metrics", async () => {
    const name = `made-up-model-${Date.now()}`;
    await assert.rejects(
      openai().chat.completions.create({ model: name, messages: [{ role: "user", content: "x" }], max_tokens: 5 }),
      (error: { status?: number }) => error.status === 404,
    );
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
    assert.ok(text.includes('gateway_requests_total{endpoint="/v1/chat/completions",status="404"}'), "the refusal is counted");
    assert.equal(text.includes(name), false, "the client's model name is in no series");
  });

  test("an upstream 401 switches its channel off with the reason, and the request fails over", async () => {
    const refusing = await fake((_request, response) => sendJson(response, 401, { error: { message: "bad key" } }));
    const working = await fake((_request, response) => sendJson(response, 200, chatCompletion("ok", "m")));
    const a = await channel({
      name: "refused key",
      type: "openai",
      baseUrl: `${refusing.url}/v1`,
      apiKey: "wrong",
      models: ["std-5.5"],
      priority: 90,
    });
    const b = await channel({
      name: "good key",
      type: "openai",
      baseUrl: `${working.url}/v1`,
      apiKey: "right",
      models: ["std-5.5"],
      priority: 80,
    });
    try {
      const completion = await openai().chat.completions.create({
        model: "std-5.5",
        messages: [{ role: "user", content: "x" }],
        max_tokens: 5,
      });
      assert.equal(completion.choices[0]!.message.content, "ok");
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; status: string; disabledReason: string }[];
      const disabled = channels.find((row) => row.id === a)!;
      assert.equal(disabled.status, "disabled");
      assert.match(disabled.disabledReason, /401/);
      assert.equal(await metric("gateway_channels_disabled_total", { channel: "refused key" }), 1);
      assert.equal(await metric("gateway_channels_disabled_total", { channel: "good key" }), 0);
      assert.equal(await metric("gateway_failovers_total", { model: "std-5.5", channel: "refused key" }), 1);
      await openai().chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "again" }], max_tokens: 5 });
      assert.equal(refusing.received.length, 1, "a disabled channel is skipped");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${a}`);
      await gateway.admin("DELETE", `/api/admin/channels/${b}`);
    }
  });

  test("an upstream 400 is passed to the client in its dialect and costs nothing", async () => {
    const refusing = await fake((_request, response) => sendJson(response, 400, { error: { message: "temperature is out of range" } }));
    const a = await channel({
      name: "refusing request",
      type: "openai",
      baseUrl: `${refusing.url}/v1`,
      apiKey: "a",
      models: ["std-5.5"],
      priority: 90,
    });
    try {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", messages: [{ role: "user", content: "x" }], temperature: 9 }),
      });
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.match(body.error.message, /temperature is out of range/);
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.cost, 0);
      assert.equal(row.status, "error");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${a}`);
    }
  });

  test("a client that disconnects mid-stream aborts the upstream and is charged for what it received", async () => {
    const upstream = await fake(async (_request, response) => {
      await sendSse(
        response,
        chatChunks(
          Array.from({ length: 200 }, (_, index) => `word${index} `),
          "slow",
        ),
        20,
      );
    });
    const a = await channel({
      name: "slow stream",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "a",
      models: ["std-5.5"],
      priority: 90,
    });
    try {
      const controller = new AbortController();
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", messages: [{ role: "user", content: "long" }], stream: true, max_tokens: 1000 }),
        signal: controller.signal,
      });
      const requestId = response.headers.get("x-request-id")!;
      const reader = response.body!.getReader();
      let received = "";
      while (!received.includes("word4 ")) received += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(upstream.aborted, 1, "the upstream request was aborted");
      const row = await ledgerFor(requestId);
      assert.equal(row.status, "cancelled");
      assert.ok(row.textOutputTokens > 0 && row.textOutputTokens < 200, `charged for the words delivered (${row.textOutputTokens})`);
      assert.ok(row.cost < row.reserved);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${a}`);
    }
  });
});

describe("money", () => {
  test("a long request whose upstream reports no usage is charged by every text counted, not by the reservation's estimate", async () => {
    // 60 messages of ~1,500 characters: past the request's exact budget (REQUEST_EXACT_CHARS), so the reservation's
    // count estimates the later ones; the charge must not.
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"];
    const messages = Array.from({ length: 60 }, (_, index) => ({
      role: index % 2 ? "assistant" : "user",
      content: Array.from({ length: 250 }, (_, word) => words[(index * 7 + word * 3) % words.length]).join(" "),
    }));
    const body = { model: "std-5.5", messages, max_tokens: 50 };
    assert.ok(JSON.stringify(messages).length > 2 * REQUEST_EXACT_CHARS);
    const stats = newCountStats();
    assert.notEqual(countChatRequestInputTokens(body, stats), countChatRequestInputTokens(body), "the reservation's count estimates here");
    const upstream = await fake(async (_request, response) => {
      const { usage: _usage, ...withoutUsage } = chatCompletion("fine", "std-5.5");
      sendJson(response, 200, withoutUsage);
    });
    const id = await channel({
      name: "no usage",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "a",
      models: ["std-5.5"],
      priority: 95,
    });
    try {
      const { response } = await openai()
        .chat.completions.create(body as never)
        .withResponse();
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      const sent = upstream.received.at(-1)!.body as Parameters<typeof countChatRequestInputTokens>[0];
      assert.equal(row.textInputTokens, countChatRequestInputTokens(sent));
      assert.equal(row.textInputTokens, countChatRequestInputTokens(body));
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });

  test("the reservation is refunded down to the real cost; balance and key quota move together", async () => {
    const user = await createUserWithKey(gateway, { balance: 1_000_000, quota: 500_000 });
    const { data, response } = await openai(user.key)
      .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "refund me" }], max_tokens: 1000 })
      .withResponse();
    const row = await ledgerFor(response.headers.get("x-request-id")!);
    assert.ok(row.reserved >= Math.ceil(1000 * 10), "the output cap is reserved");
    assert.equal(row.cost, Math.ceil(data.usage!.prompt_tokens * 1.25 + data.usage!.completion_tokens * 10 - 1e-9));
    const users = (await gateway.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[];
    assert.equal(users.find((entry) => entry.id === user.userId)!.balance, 1_000_000 - row.cost);
    const keys = (await gateway.admin("GET", `/api/admin/keys?userId=${user.userId}`)).data;
    assert.equal(keys[0].quotaRemaining, 500_000 - row.cost);
  });
});

export { userId };

describe("@anthropic-ai/sdk 1.x, which sends the key as a Bearer token", () => {
  test("is refused with a 401 that says where the key goes, and works with the documented x-api-key header", async () => {
    const { default: AnthropicV1 } = await import("anthropic-sdk-v1");
    const plain = new AnthropicV1({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    await assert.rejects(
      plain.messages.create({ model: "msg-sonnet-4-6", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      (error: { status?: number; message?: string }) => {
        assert.equal(error.status, 401);
        assert.match(error.message ?? "", /x-api-key/);
        return true;
      },
    );
    const configured = new AnthropicV1({ apiKey: null, defaultHeaders: { "x-api-key": key }, baseURL: gateway.url, maxRetries: 0 });
    const message = await configured.messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 8,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(message.model, "msg-sonnet-4-6");
    assert.equal(message.content[0]!.type, "text");
  });
});
