// Proves the Bedrock runtime fake (tests/fakes/bedrock.ts) against Anthropic's Bedrock SDK (@anthropic-ai/bedrock-sdk),
// which calls Invoke with fetch, sends the model id's `:` raw, signs with SigV4 or sends a Bedrock API key, and reads
// the event stream's chunk frames back into Messages events.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import { Agent, fetch as undiciFetch } from "undici";
import { defaultCredentials, type FakeBedrock, startFakeBedrock } from "./bedrock.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const API_KEY = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlOmZha2U=";

type BedrockOptions = NonNullable<ConstructorParameters<typeof AnthropicBedrock>[0]>;

let fake: FakeBedrock;

// The SDK's 1.x line writes its own dated `anthropic-version` into the body; Bedrock documents `bedrock-2023-05-31`,
// which a caller sets through the header the SDK moves into the body.
const documentedVersion = { "anthropic-version": "bedrock-2023-05-31" };

function signingClient(overrides: { awsSecretKey?: string; baseURL?: string; headers?: Record<string, string> } = {}) {
  return new AnthropicBedrock({
    baseURL: overrides.baseURL ?? fake.httpUrl,
    awsRegion: fake.region,
    awsAccessKey: defaultCredentials.accessKeyId,
    awsSecretKey: overrides.awsSecretKey ?? defaultCredentials.secretAccessKey,
    maxRetries: 0,
    defaultHeaders: overrides.headers ?? documentedVersion,
  });
}

function lastReceived() {
  const received = fake.received.at(-1);
  assert.ok(received, "the fake received a request");
  return received;
}

before(async () => {
  fake = await startFakeBedrock({ apiKey: API_KEY });
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.answer = {};
  fake.queue = [];
  fake.received.length = 0;
});

describe("fake Bedrock runtime with @anthropic-ai/bedrock-sdk", () => {
  test("messages.create: SigV4 over HTTP/1.1, the model id's `:` raw in the path, the Messages answer parsed", async () => {
    const message = await signingClient().messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: "user", content: "Hello" }],
    });
    assert.equal(
      message.content[0].type === "text" && message.content[0].text,
      "Hello! I'm Claude, an AI assistant. How can I help you today?",
    );
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.input_tokens, 1237);
    assert.equal(message.usage.output_tokens, 389);
    const received = lastReceived();
    assert.equal(received.protocol, "http/1.1");
    assert.equal(received.path, `/model/${MODEL}/invoke`);
    assert.equal(received.modelId, MODEL);
    assert.equal(received.auth.ok && received.auth.method, "sigv4");
    assert.equal(received.body.anthropic_version, "bedrock-2023-05-31");
    assert.equal("model" in received.body, false);
    assert.equal("stream" in received.body, false);
  });

  test("messages.create with the SDK's own dated anthropic_version is refused as a 400", async () => {
    await assert.rejects(
      signingClient({ headers: {} }).messages.create({ model: MODEL, max_tokens: 256, messages: [{ role: "user", content: "Hello" }] }),
      (error: any) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /anthropic_version must be one of bedrock-2023-05-31/);
        return true;
      },
    );
    assert.notEqual(lastReceived().body.anthropic_version, "bedrock-2023-05-31");
  });

  test("messages.create over TLS (HTTP/1.1 fallback of the HTTP/2 port)", async () => {
    const client = new AnthropicBedrock({
      baseURL: fake.url,
      awsRegion: fake.region,
      awsAccessKey: defaultCredentials.accessKeyId,
      awsSecretKey: defaultCredentials.secretAccessKey,
      maxRetries: 0,
      defaultHeaders: documentedVersion,
      fetch: undiciFetch as unknown as typeof fetch,
      fetchOptions: { dispatcher: new Agent({ connect: { ca: fake.ca } }) } as unknown as BedrockOptions["fetchOptions"],
    });
    const message = await client.messages.create({ model: MODEL, max_tokens: 256, messages: [{ role: "user", content: "Hello" }] });
    assert.equal(message.usage.output_tokens, 389);
    assert.equal(lastReceived().protocol, "http/1.1");
    assert.equal(lastReceived().auth.ok, true);
  });

  test("messages.stream: text and a tool call from chunk frames, usage from message_start and message_delta", async () => {
    fake.answer = {
      text: "Let me look that up.",
      toolCall: { id: "toolu_bdrk_01A09q90qw90lq917835lq9", name: "get_weather", input: { city: "Lyon" } },
      usage: { input: 1237, output: 389, cacheRead: 1613 },
    };
    const stream = signingClient().messages.stream({ model: MODEL, max_tokens: 256, messages: [{ role: "user", content: "Weather?" }] });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const message = await stream.finalMessage();
    assert.equal(text, "Let me look that up.");
    const toolUse = message.content.find((block) => block.type === "tool_use");
    assert.deepEqual(toolUse && { id: toolUse.id, name: toolUse.name, input: toolUse.input }, {
      id: "toolu_bdrk_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { city: "Lyon" },
    });
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.usage.input_tokens, 1237);
    assert.equal(message.usage.cache_read_input_tokens, 1613);
    assert.equal(message.usage.output_tokens, 389);
    assert.equal(lastReceived().operation, "invoke-with-response-stream");
    assert.equal(lastReceived().path, `/model/${MODEL}/invoke-with-response-stream`);
  });

  test("a throttling exception frame mid-stream reaches the SDK as an error event", async () => {
    fake.answer = { text: "one two three", streamException: { type: "throttlingException", afterEvents: 3 } };
    const stream = signingClient().messages.stream({ model: MODEL, max_tokens: 256, messages: [{ role: "user", content: "Hi" }] });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    await assert.rejects(stream.finalMessage(), (error: any) => {
      assert.match(String(error.message), /throttlingException/);
      assert.match(String(error.message), /Too many requests, please wait before trying again\./);
      return true;
    });
    assert.equal(text, "one ");
  });

  test("a throttled Invoke is a 429 RateLimitError", async () => {
    fake.throttleNext(1);
    await assert.rejects(
      signingClient().messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] }),
      (error: any) => {
        assert.equal(error.status, 429);
        assert.equal(error.constructor.name, "RateLimitError");
        assert.equal(error.headers.get("x-amzn-errortype").split(":")[0], "ThrottlingException");
        return true;
      },
    );
  });

  test("a Bedrock API key goes as Authorization: Bearer and is checked", async () => {
    const client = new AnthropicBedrock({ baseURL: fake.httpUrl, apiKey: API_KEY, maxRetries: 0, defaultHeaders: documentedVersion });
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    assert.equal(message.usage.input_tokens, 1237);
    const auth = lastReceived().auth;
    assert.equal(auth.ok && auth.method, "bearer");
    assert.equal(lastReceived().headers.authorization, `Bearer ${API_KEY}`);

    const wrong = new AnthropicBedrock({ baseURL: fake.httpUrl, apiKey: "ABSKwrong", maxRetries: 0, defaultHeaders: documentedVersion });
    await assert.rejects(wrong.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] }), {
      status: 403,
      message: /Authentication failed: Please make sure your API Key is valid\./,
    });
    const refused = lastReceived().auth;
    assert.equal(!refused.ok && refused.type, "UnrecognizedClientException");
  });

  test("a wrong secret is refused with Bedrock's signature mismatch", async () => {
    await assert.rejects(
      signingClient({ awsSecretKey: "not-the-secret" }).messages.create({
        model: MODEL,
        max_tokens: 64,
        messages: [{ role: "user", content: "Hi" }],
      }),
      (error: any) => {
        assert.equal(error.status, 403);
        assert.match(error.message, /The request signature we calculated does not match/);
        return true;
      },
    );
  });
});
