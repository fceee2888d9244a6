// Proves the Bedrock runtime fake (tests/fakes/bedrock.ts) against AWS's own client, @aws-sdk/client-bedrock-runtime,
// over HTTP/2 with TLS as the SDK talks by default: what the SDK parsed, and what the fake recorded.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from "@aws-sdk/client-bedrock-runtime";
import { defaultCredentials, type FakeBedrock, startFakeBedrock } from "./bedrock.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLETOKEN//session";

let fake: FakeBedrock;

function client(overrides: { secretAccessKey?: string; sessionToken?: string; region?: string; maxAttempts?: number } = {}) {
  return new BedrockRuntimeClient({
    region: overrides.region ?? fake.region,
    endpoint: fake.url,
    maxAttempts: overrides.maxAttempts ?? 1,
    credentials: {
      accessKeyId: defaultCredentials.accessKeyId,
      secretAccessKey: overrides.secretAccessKey ?? defaultCredentials.secretAccessKey,
      sessionToken: overrides.sessionToken ?? SESSION_TOKEN,
    },
    requestHandler: { nodeHttp2ConnectOptions: { ca: fake.ca }, disableConcurrentStreams: true },
  });
}

function invokeBody(extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 512,
    messages: [{ role: "user", content: "Hello, world" }],
    ...extra,
  });
}

/** The member a ConverseStream union event carries (`messageStart`, `contentBlockDelta`, …). */
function eventKind(event: object): string {
  return Object.entries(event).find(([, value]) => value !== undefined)?.[0] ?? "none";
}

function lastReceived() {
  const received = fake.received.at(-1);
  assert.ok(received, "the fake received a request");
  return received;
}

function assertSignedOverHttp2(operation: string) {
  const received = lastReceived();
  assert.equal(received.protocol, "h2");
  assert.equal(received.operation, operation);
  assert.equal(received.modelId, MODEL);
  assert.ok(received.path.startsWith("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/"), received.path);
  assert.deepEqual(received.auth.ok && received.auth.method, "sigv4");
  assert.equal(received.headers["x-amz-security-token"], SESSION_TOKEN);
}

before(async () => {
  fake = await startFakeBedrock({ sessionToken: SESSION_TOKEN });
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.answer = {};
  fake.queue = [];
  fake.received.length = 0;
});

describe("fake Bedrock runtime with @aws-sdk/client-bedrock-runtime", () => {
  test("InvokeModel: signed over HTTP/2, the Messages body comes back with usage", async () => {
    const output = await client().send(
      new InvokeModelCommand({ modelId: MODEL, contentType: "application/json", accept: "application/json", body: invokeBody() }),
    );
    const parsed = JSON.parse(Buffer.from(output.body).toString("utf8"));
    assert.equal(parsed.content[0].text, "Hello! I'm Claude, an AI assistant. How can I help you today?");
    assert.equal(parsed.stop_reason, "end_turn");
    assert.deepEqual(parsed.usage, { input_tokens: 1237, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 389 });
    assertSignedOverHttp2("invoke");
    assert.equal(lastReceived().body.anthropic_version, "bedrock-2023-05-31");
    assert.ok(
      lastReceived().auth.ok && (lastReceived().auth as { signedHeaders: string[] }).signedHeaders.includes("x-amz-security-token"),
    );
  });

  test("InvokeModel with `model` in the body is refused as Bedrock does", async () => {
    await assert.rejects(client().send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody({ model: MODEL }) })), (error: any) => {
      assert.equal(error.name, "ValidationException");
      assert.equal(error.$metadata.httpStatusCode, 400);
      assert.match(error.message, /extraneous key \[model\] is not permitted/);
      return true;
    });
  });

  test("InvokeModel with an undocumented anthropic_version is refused", async () => {
    await assert.rejects(client().send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody({ anthropic_version: "2023-06-01" }) })), {
      name: "ValidationException",
      message: /anthropic_version must be one of bedrock-2023-05-31/,
    });
  });

  test("InvokeModelWithResponseStream: chunk frames carry the Messages events, usage in message_delta and the metrics", async () => {
    fake.answer = { text: "Paris is the capital of France." };
    const output = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, body: invokeBody() }));
    const events: any[] = [];
    for await (const part of output.body!) {
      assert.ok(part.chunk?.bytes, "each event is a chunk");
      events.push(JSON.parse(Buffer.from(part.chunk.bytes).toString("utf8")));
    }
    assert.deepEqual(
      events.map((event) => event.type),
      [
        "message_start",
        "content_block_start",
        ...Array(6).fill("content_block_delta"),
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    const text = events.filter((event) => event.type === "content_block_delta").map((event) => event.delta.text);
    assert.equal(text.join(""), "Paris is the capital of France.");
    assert.equal(events[0].message.usage.input_tokens, 1237);
    assert.deepEqual(events.at(-2).usage, { output_tokens: 389 });
    assert.equal(events.at(-1)["amazon-bedrock-invocationMetrics"].outputTokenCount, 389);
    assertSignedOverHttp2("invoke-with-response-stream");
  });

  test("Converse: text, a tool call, stop reason and usage (inputTokens without cache tokens)", async () => {
    fake.answer = {
      text: "Let me check the weather.",
      toolCall: { id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { city: "Lyon", unit: "celsius" } },
      usage: { input: 1237, output: 389, cacheRead: 1613, cacheWrite: 211 },
    };
    const output = await client().send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: "user", content: [{ text: "Weather in Lyon?" }] }],
        inferenceConfig: { maxTokens: 300 },
      }),
    );
    const content = output.output?.message?.content ?? [];
    assert.equal(content[0].text, "Let me check the weather.");
    assert.deepEqual(content[1].toolUse, {
      toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
      name: "get_weather",
      input: { city: "Lyon", unit: "celsius" },
    });
    assert.equal(output.stopReason, "tool_use");
    assert.deepEqual(output.usage, {
      inputTokens: 1237,
      outputTokens: 389,
      totalTokens: 3450,
      cacheReadInputTokens: 1613,
      cacheWriteInputTokens: 211,
    });
    assertSignedOverHttp2("converse");
    assert.deepEqual(lastReceived().body.messages, [{ role: "user", content: [{ text: "Weather in Lyon?" }] }]);
  });

  test("ConverseStream: events in Bedrock's order, tool input in pieces, usage in the last (metadata) event", async () => {
    fake.answer = { text: "Checking now.", toolCall: { id: "tooluse_3x2", name: "get_weather", input: { city: "Lyon" } } };
    const output = await client().send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Weather in Lyon?" }] }] }),
    );
    const kinds: string[] = [];
    let text = "";
    let toolInput = "";
    let usage: unknown;
    let stopReason: string | undefined;
    for await (const event of output.stream!) {
      kinds.push(eventKind(event));
      if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
      if (event.contentBlockDelta?.delta?.toolUse) toolInput += event.contentBlockDelta.delta.toolUse.input;
      if (event.messageStop) stopReason = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    assert.deepEqual(kinds, [
      "messageStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "contentBlockStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata",
    ]);
    assert.equal(text, "Checking now.");
    assert.deepEqual(JSON.parse(toolInput), { city: "Lyon" });
    assert.equal(stopReason, "tool_use");
    assert.deepEqual(usage, { inputTokens: 1237, outputTokens: 389, totalTokens: 1626 });
    assertSignedOverHttp2("converse-stream");
  });

  test("ConverseStream without usage: the metadata event has metrics only", async () => {
    fake.answer = { text: "Hi.", usage: null };
    const output = await client().send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hi" }] }] }),
    );
    let metadata: any;
    for await (const event of output.stream!) if (event.metadata) metadata = event.metadata;
    assert.equal(metadata.usage, undefined);
    assert.equal(metadata.metrics.latencyMs, 1873);
  });

  test("CountTokens answers inputTokens", async () => {
    const output = await client().send(
      new CountTokensCommand({ modelId: MODEL, input: { converse: { messages: [{ role: "user", content: [{ text: "Hi" }] }] } } }),
    );
    assert.equal(output.inputTokens, 1237);
    assertSignedOverHttp2("count-tokens");
  });

  test("a throttled request fails with ThrottlingException 429; the SDK's retry then gets through", async () => {
    fake.throttleNext(1);
    await assert.rejects(
      client().send(new ConverseCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hi" }] }] })),
      (error: any) => {
        assert.equal(error.name, "ThrottlingException");
        assert.equal(error.$metadata.httpStatusCode, 429);
        assert.equal(error.message, "Too many requests, please wait before trying again.");
        return true;
      },
    );
    fake.throttleNext(1);
    const output = await client({ maxAttempts: 2 }).send(
      new ConverseCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hi" }] }] }),
    );
    assert.equal(output.usage?.outputTokens, 389);
    assert.equal(fake.received.length, 3);
  });

  test("a throttling exception frame mid-stream surfaces as ThrottlingException after the first events", async () => {
    fake.answer = { text: "one two three four", streamException: { type: "throttlingException", afterEvents: 2 } };
    const output = await client().send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hi" }] }] }),
    );
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of output.stream!) seen.push(eventKind(event));
      })(),
      { name: "ThrottlingException" },
    );
    assert.deepEqual(seen, ["messageStart", "contentBlockDelta"]);
  });

  test("a modelStreamErrorException frame on an Invoke stream surfaces as ModelStreamErrorException", async () => {
    fake.answer = { streamException: { type: "modelStreamErrorException", afterEvents: 3 } };
    const output = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, body: invokeBody() }));
    await assert.rejects(
      (async () => {
        for await (const _ of output.body!);
      })(),
      { name: "ModelStreamErrorException" },
    );
  });

  test("a stream cut mid-way fails the SDK's reader (no terminal event)", async () => {
    fake.answer = { cutAfterEvents: 2 };
    const output = await client().send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: "user", content: [{ text: "Hi" }] }] }),
    );
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of output.stream!) seen.push(eventKind(event));
      })(),
    );
    assert.deepEqual(seen, ["messageStart", "contentBlockDelta"]);
  });

  test("AccessDeniedException is a 403 with Bedrock's message", async () => {
    fake.answer = { error: { type: "AccessDeniedException" } };
    await assert.rejects(client().send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody() })), (error: any) => {
      assert.equal(error.name, "AccessDeniedException");
      assert.equal(error.$metadata.httpStatusCode, 403);
      return true;
    });
  });

  test("a wrong secret is refused: the signature does not match", async () => {
    await assert.rejects(
      client({ secretAccessKey: "not-the-secret" }).send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody() })),
      (error: any) => {
        assert.equal(error.$metadata.httpStatusCode, 403);
        assert.match(error.message, /The request signature we calculated does not match the signature you provided/);
        return true;
      },
    );
    const auth = lastReceived().auth;
    assert.equal(auth.ok, false);
    assert.equal(!auth.ok && auth.type, "InvalidSignatureException");
  });

  test("a wrong session token and a wrong region are refused", async () => {
    await assert.rejects(client({ sessionToken: "stolen" }).send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody() })), {
      message: "The security token included in the request is invalid.",
    });
    await assert.rejects(client({ region: "eu-west-3" }).send(new InvokeModelCommand({ modelId: MODEL, body: invokeBody() })), {
      message: "Credential should be scoped to a valid region, not 'eu-west-3'.",
    });
  });
});
