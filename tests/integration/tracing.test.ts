// OpenTelemetry traces (docs/architecture.md, "Traces"): with OTEL_EXPORTER_OTLP_ENDPOINT set, each /v1 request is a
// server span and each upstream attempt a client span under it, with the key's id, the model, the channel, the
// attempt's status and time to first byte, and the tokens and cost the ledger charged; sent to a local OTLP receiver
// (tests/helpers/otlp-receiver.ts) in JSON and in protobuf. No span carries a key, a prompt or an answer.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { SpanKind } from "@opentelemetry/api";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { chatChunks, chatCompletion, sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver";

const MODEL = "std-5.5";
const PROMPT = "prompt-marker-7f3a: what is the capital of France?";
const ANSWER = "answer-marker-91c2 Paris";
const UPSTREAM_KEY = "upstream-secret-5d81e0c4";
const PAUSE_MS = 300;

let receiver: OtlpReceiver;
let good: FakeUpstream;
let failing: FakeUpstream;
let json: Gateway;
let proto: Gateway;
let payer: Awaited<ReturnType<typeof createUserWithKey>>;
let protoPayer: Awaited<ReturnType<typeof createUserWithKey>>;

async function setUp(gateway: Gateway): Promise<Awaited<ReturnType<typeof createUserWithKey>>> {
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: ["msg-haiku-4-5-20251001"] });
  for (const [name, upstream, priority] of [
    ["failing", failing, 100],
    ["good", good, 50],
  ] as const)
    await gateway.admin("POST", "/api/admin/channels", {
      name,
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: UPSTREAM_KEY,
      models: [MODEL],
      priority,
    });
  return createUserWithKey(gateway, { balance: 100_000_000, quota: 100_000_000 });
}

before(async () => {
  receiver = await startOtlpReceiver();
  good = await startFakeUpstream(async (request, response) => {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    if (request.body?.stream)
      await sendSse(response, chatChunks(ANSWER.split(" "), request.body.model, { prompt_tokens: 21, completion_tokens: 4 }), PAUSE_MS);
    else sendJson(response, 200, chatCompletion(ANSWER, request.body.model, { prompt_tokens: 11, completion_tokens: 7 }));
  });
  failing = await startFakeUpstream((_request, response) =>
    sendJson(response, 503, { error: { message: "overloaded", type: "server_error" } }),
  );
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "gateway-under-test" };
  [json, proto] = await Promise.all([startGateway({ env: { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" } }), startGateway({ env })]);
  [payer, protoPayer] = await Promise.all([setUp(json), setUp(proto)]);
});
after(async () => {
  await stopAllGateways();
  await Promise.all([good?.close(), failing?.close(), receiver?.close()]);
});

const byRequest = (requestId: string) => (span: ReceivedSpan) => span.attributes["gateway.request.id"] === requestId;
const childrenOf = (parent: ReceivedSpan) =>
  receiver.spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);

async function ledgerRow(gateway: Gateway, requestId: string): Promise<{ cost: number; channelName: string }> {
  for (let tries = 0; tries < 100; tries++) {
    const rows = (await gateway.admin("GET", "/api/admin/usage?limit=100")).data as {
      requestId: string;
      cost: number;
      channelName: string;
    }[];
    const row = rows.find((candidate) => candidate.requestId === requestId);
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ledger row for ${requestId}`);
}

test("the receiver reads what the OpenTelemetry SDK's own exporters send, in protobuf and in JSON", async () => {
  for (const [name, Exporter] of [
    ["proof-proto", ProtoExporter],
    ["proof-json", JsonExporter],
  ] as const) {
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new Exporter({ url: `${receiver.url}/v1/traces` }))],
    });
    const span = provider
      .getTracer("proof")
      .startSpan(name, { kind: SpanKind.CLIENT, attributes: { text: "x", whole: 3, flag: true, part: 1.5 } });
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    const received = await receiver.waitFor((candidate) => candidate.name === name);
    assert.deepEqual(received.attributes, { text: "x", whole: 3, flag: true, part: 1.5 });
    assert.equal(received.kind, 3);
    assert.match(received.traceId, /^[0-9a-f]{32}$/);
    assert.ok(received.endNs >= received.startNs);
  }
  assert.ok(receiver.bodies.some((body) => body.contentType === "application/x-protobuf"));
  assert.ok(receiver.bodies.some((body) => body.contentType === "application/json"));
});

test("a chat request after a failover: one server span, the failed and the serving attempt under it, tokens and cost as charged", async () => {
  const client = new OpenAI({ apiKey: payer.key, baseURL: `${json.url}/v1`, maxRetries: 0 });
  const { data, response } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: "user", content: PROMPT }] })
    .withResponse();
  assert.equal(data.choices[0]!.message.content, ANSWER);
  const requestId = response.headers.get("x-request-id")!;
  const server = await receiver.waitFor(byRequest(requestId));
  const row = await ledgerRow(json, requestId);

  assert.equal(server.name, "POST /v1/chat/completions");
  assert.equal(server.kind, 2);
  assert.equal(server.resource["service.name"], "gateway-under-test");
  assert.equal(server.statusCode, 0);
  assert.deepEqual(
    {
      route: server.attributes["http.route"],
      status: server.attributes["http.response.status_code"],
      key: server.attributes["gateway.key.id"],
      user: server.attributes["gateway.user.id"],
      model: server.attributes["gen_ai.request.model"],
      operation: server.attributes["gen_ai.operation.name"],
      input: server.attributes["gen_ai.usage.input_tokens"],
      output: server.attributes["gen_ai.usage.output_tokens"],
      channel: server.attributes["gateway.channel.name"],
      stream: server.attributes["gen_ai.request.stream"],
      settlement: server.attributes["gateway.settlement"],
    },
    {
      route: "/v1/chat/completions",
      status: 200,
      key: payer.keyId,
      user: payer.userId,
      model: MODEL,
      operation: "chat",
      input: 11,
      output: 7,
      channel: "good",
      stream: false,
      settlement: "success",
    },
  );
  assert.ok(row.cost > 0);
  assert.equal(server.attributes["gateway.cost_usd"], row.cost / 1_000_000, "the span's cost is the ledger's");
  assert.equal(typeof server.attributes["gateway.reserved_usd"], "number");

  const attempts = childrenOf(server).sort((a, b) => Number(a.startNs - b.startNs));
  assert.equal(attempts.length, 2, "two attempts, both children of the request's span");
  const [failed, served] = attempts as [ReceivedSpan, ReceivedSpan];
  for (const attempt of attempts) {
    assert.equal(attempt.kind, 3);
    assert.equal(attempt.name, `chat ${MODEL}`);
    assert.equal(attempt.attributes["gen_ai.provider.name"], "openai");
    assert.equal(attempt.attributes["gen_ai.request.model"], MODEL);
    assert.equal(attempt.attributes["server.address"], "127.0.0.1");
    assert.equal(typeof attempt.attributes["gateway.upstream.time_to_first_byte_ms"], "number");
  }
  assert.equal(failed.attributes["gateway.channel.name"], "failing");
  assert.equal(failed.attributes["http.response.status_code"], 503, "the upstream's own status");
  assert.equal(failed.attributes["error.type"], "upstream_503");
  assert.equal(failed.statusCode, 2);
  assert.equal(served.attributes["gateway.channel.name"], "good");
  assert.equal(served.statusCode, 1);
  assert.ok(
    Number(served.attributes["gateway.upstream.time_to_first_byte_ms"]) >= PAUSE_MS - 5,
    "the serving upstream's pause is its time to first byte",
  );
  assert.equal(served.attributes["gen_ai.usage.output_tokens"], 7);
  // Each span anchors its clock on Date.now() when it starts (whole milliseconds), so spans agree to within ~1 ms.
  const slack = 2_000_000n;
  assert.ok(
    server.startNs <= failed.startNs + slack && served.endNs <= server.endNs + slack,
    `the attempts lie within the request (${server.startNs} ${failed.startNs} ${served.endNs} ${server.endNs})`,
  );
});

test("a stream: the request's span ends when the stream has, with the usage the stream reported", async () => {
  const client = new OpenAI({ apiKey: payer.key, baseURL: `${json.url}/v1`, maxRetries: 0 });
  const { data: stream, response } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: "user", content: PROMPT }], stream: true, stream_options: { include_usage: true } })
    .withResponse();
  const requestId = response.headers.get("x-request-id")!;
  const headersAt = Date.now();
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  const endedAt = Date.now();
  assert.equal(text, ANSWER.split(" ").join(""));
  const server = await receiver.waitFor(byRequest(requestId));
  assert.equal(server.attributes["gen_ai.request.stream"], true);
  assert.equal(server.attributes["gen_ai.usage.input_tokens"], 21);
  assert.equal(server.attributes["gen_ai.usage.output_tokens"], 4);
  const spanMs = Number(server.endNs - server.startNs) / 1e6;
  assert.ok(spanMs >= endedAt - headersAt - 50, `the span (${spanMs} ms) covers the stream's body (${endedAt - headersAt} ms)`);
  const [served] = childrenOf(server).filter((span) => span.attributes["gateway.channel.name"] === "good");
  assert.ok(served, "the serving attempt is there");
  assert.ok(Number(served.endNs - served.startNs) / 1e6 >= endedAt - headersAt - 50, "the serving attempt lasts until the stream's end");
});

test("refusals and Gemini's API: the route's template names the span; a refused key has no key id", async () => {
  const refused = await fetch(`${json.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-nosuchkey0000000000000000", "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: PROMPT }] }),
  });
  assert.equal(refused.status, 401);
  const refusal = await receiver.waitFor(byRequest(refused.headers.get("x-request-id")!));
  assert.equal(refusal.attributes["http.response.status_code"], 401);
  assert.equal(refusal.attributes["error.type"], "invalid_api_key");
  assert.equal(refusal.attributes["gateway.key.id"], undefined);
  assert.equal(refusal.statusCode, 0, "a client's error is not the server's");

  // The key in the query string, as Google's API takes it: the span has the route, not the URL.
  const gemini = await fetch(`${json.url}/v1beta/models/${MODEL}:generateContent?key=${payer.key}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: PROMPT }] }] }),
  });
  assert.equal(gemini.status, 200, await gemini.clone().text());
  const span = await receiver.waitFor(byRequest(gemini.headers.get("x-request-id")!));
  assert.equal(span.name, "POST /v1beta/models/{model}:generateContent");
  assert.equal(span.attributes["gen_ai.operation.name"], "generate_content");
  assert.equal(span.attributes["gateway.key.id"], payer.keyId);
  assert.equal(span.attributes["gen_ai.usage.output_tokens"], 7);
});

test("protobuf, the protocol's default: the same spans", async () => {
  const response = await fetch(`${proto.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${protoPayer.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: PROMPT }] }),
  });
  assert.equal(response.status, 200);
  const requestId = response.headers.get("x-request-id")!;
  const server = await receiver.waitFor(byRequest(requestId));
  const row = await ledgerRow(proto, requestId);
  assert.equal(server.attributes["gateway.key.id"], protoPayer.keyId);
  assert.equal(server.attributes["gen_ai.usage.input_tokens"], 11);
  assert.equal(server.attributes["gateway.cost_usd"], row.cost / 1_000_000);
  assert.equal(childrenOf(server).length, 2);
  const body = receiver.bodies.find((candidate) => candidate.raw.includes(Buffer.from(requestId)));
  assert.equal(body?.contentType, "application/x-protobuf");
});

test("no span carries a key, a prompt or an answer", async () => {
  assert.ok(receiver.bodies.length > 0);
  const secrets = {
    "the client's key": payer.key,
    "the other client's key": protoPayer.key,
    "the channel's key": UPSTREAM_KEY,
    "the master key": json.masterKey,
    "the prompt": "prompt-marker-7f3a",
    "the answer": "answer-marker-91c2",
  };
  for (const body of receiver.bodies)
    for (const [what, secret] of Object.entries(secrets))
      assert.ok(!body.raw.includes(Buffer.from(secret)), `${what} is not in a span (${body.contentType})`);
});
