// Proves the Vertex AI fake (tests/fakes/vertex.ts) faithful by driving it with @anthropic-ai/vertex-sdk (Claude by
// rawPredict / streamRawPredict) and @google/genai in Vertex mode (Gemini), both authenticated by a Bearer that the
// fake's own token endpoint issued for its service account (tests/fakes/google-token-client.ts).
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
// The Vertex SDK carries its own copy of @anthropic-ai/sdk: its error classes are the ones it throws.
import { AuthenticationError, BadRequestError, NotFoundError, RateLimitError } from "@anthropic-ai/vertex-sdk/core/error";
import { ApiError, GoogleGenAI } from "@google/genai";
import { ServiceAccountTokenSource, TokenSourceAuthClient } from "./google-token-client.ts";
import { startVertexFake, type VertexFake, vertexQuotaExhausted } from "./vertex.ts";
import { vertexTokenCount } from "./vertex-embeddings.ts";

const REGION = "us-east5";
const CLAUDE = "claude-sonnet-4-5@20250929";

describe("Vertex AI fake, driven by @anthropic-ai/vertex-sdk and @google/genai", () => {
  let fake: VertexFake;
  let source: ServiceAccountTokenSource;
  let claude: AnthropicVertex;
  let gemini: GoogleGenAI;
  before(async () => {
    fake = await startVertexFake();
    source = new ServiceAccountTokenSource(fake.serviceAccount);
    const authClient = new TokenSourceAuthClient(source);
    // A gateway sends the documented anthropic_version; the SDK copies this header into the body.
    claude = new AnthropicVertex({
      baseURL: `${fake.url}/v1`,
      region: REGION,
      projectId: fake.serviceAccount.project_id,
      authClient,
      maxRetries: 0,
      defaultHeaders: { "anthropic-version": "vertex-2023-10-16" },
    });
    gemini = new GoogleGenAI({
      vertexai: true,
      project: fake.serviceAccount.project_id,
      location: REGION,
      apiVersion: "v1",
      httpOptions: { baseUrl: fake.url },
      googleAuthOptions: { authClient },
    });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.received.length = 0;
    fake.claudeAnswers.length = 0;
    fake.geminiAnswers.length = 0;
  });

  /** What reached the prediction endpoint (the token endpoint's requests left out). */
  function modelCalls() {
    return fake.received.filter((request) => request.path !== "/token");
  }

  test("Claude by rawPredict: text, usage, the body without model and with anthropic_version, a Bearer the fake issued", async () => {
    fake.claudeAnswers.push({
      text: ["Hello from Claude on Vertex."],
      usage: { input_tokens: 1237, output_tokens: 389, cache_read_input_tokens: 512 },
    });
    const message = await claude.messages.create({ model: CLAUDE, max_tokens: 733, messages: [{ role: "user", content: "Hi" }] });
    assert.deepEqual(message.content, [{ type: "text", text: "Hello from Claude on Vertex." }]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.model, "claude-sonnet-4-5-20250929");
    assert.match(message.id, /^msg_vrtx_/);
    assert.deepEqual([message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_input_tokens], [1237, 389, 512]);
    const [seen] = modelCalls();
    assert.equal(
      seen.path,
      `/v1/projects/${fake.serviceAccount.project_id}/locations/${REGION}/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
    assert.equal(seen.authorized, true);
    assert.equal("model" in seen.body, false);
    assert.equal(seen.body.anthropic_version, "vertex-2023-10-16");
    assert.equal(seen.body.max_tokens, 733);
    assert.equal(seen.headers["anthropic-version"], undefined);
    const token = seen.headers.authorization?.replace("Bearer ", "");
    assert.ok(fake.tokens.issued.some((issued) => issued.token === token));
  });

  test("the SDK's own dated anthropic_version is refused: a gateway must send the documented one", async () => {
    const plain = new AnthropicVertex({
      baseURL: `${fake.url}/v1`,
      region: REGION,
      projectId: fake.serviceAccount.project_id,
      authClient: new TokenSourceAuthClient(source),
      maxRetries: 0,
    });
    const refusal = await plain.messages
      .create({ model: CLAUDE, max_tokens: 50, messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof NotFoundError);
    assert.equal(refusal.status, 404);
    assert.match(refusal.message, /vertex-2023-10-16/);
    assert.match(modelCalls().at(-1)!.body.anthropic_version, /^\d{4}-\d{2}-\d{2}$/);
  });

  test("Claude by streamRawPredict: events in order, input usage at message_start, output at message_delta", async () => {
    fake.claudeAnswers.push({ text: ["One, ", "two, ", "three."], usage: { input_tokens: 523, output_tokens: 47 } });
    const stream = claude.messages.stream({ model: CLAUDE, max_tokens: 200, messages: [{ role: "user", content: "Count" }] });
    const types: string[] = [];
    stream.on("streamEvent", (event) => types.push(event.type));
    const final = await stream.finalMessage();
    assert.deepEqual(
      final.content,
      [{ type: "text", text: "One, two, three.", citations: null }].map(({ type, text }) => ({ type, text })),
    );
    assert.deepEqual([final.usage.input_tokens, final.usage.output_tokens], [523, 47]);
    assert.equal(types[0], "message_start");
    assert.equal(types.at(-1), "message_stop");
    assert.equal(types.at(-2), "message_delta");
    const seen = fake.received.at(-1)!;
    assert.match(seen.path, /publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:streamRawPredict$/);
    assert.equal(seen.body.stream, true);
  });

  test("a Claude tool use round trip", async () => {
    fake.claudeAnswers.push({ toolUse: { id: "toolu_vrtx_01A9x", name: "get_weather", input: { city: "Lisbon" } } }, { text: ["21 °C."] });
    const tools = [{ name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    const messages: any[] = [{ role: "user", content: "Weather in Lisbon?" }];
    const first = await claude.messages.stream({ model: CLAUDE, max_tokens: 200, messages, tools }).finalMessage();
    assert.equal(first.stop_reason, "tool_use");
    const use = first.content[0] as any;
    assert.deepEqual([use.type, use.id, use.name, use.input], ["tool_use", "toolu_vrtx_01A9x", "get_weather", { city: "Lisbon" }]);
    const second = await claude.messages.create({
      model: CLAUDE,
      max_tokens: 200,
      tools,
      messages: [
        ...messages,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "21" }] },
      ],
    });
    assert.deepEqual(
      second.content.map((block: any) => block.text),
      ["21 °C."],
    );
    assert.equal(fake.received.at(-1)!.body.messages[2].content[0].type, "tool_result");
  });

  test("model in the body is refused as Vertex does; a 429 reaches the SDK as RateLimitError", async () => {
    const token = await source.token();
    const url = `${fake.url}/v1/projects/${fake.serviceAccount.project_id}/locations/${REGION}/publishers/anthropic/models/${CLAUDE}:rawPredict`;
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: CLAUDE,
        anthropic_version: "vertex-2023-10-16",
        max_tokens: 10,
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
    assert.equal(response.status, 400);
    const refused = (await response.json()) as any;
    assert.deepEqual(
      [refused.type, refused.error],
      ["error", { type: "invalid_request_error", message: "model: Extra inputs are not permitted" }],
    );
    assert.match(refused.request_id, /^req_vrtx_/);

    fake.claudeAnswers.push({ error: vertexQuotaExhausted("anthropic-claude-sonnet-4-5") });
    const refusal = await claude.messages
      .create({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof RateLimitError);
    assert.equal(refusal.status, 429);
    assert.match(refusal.message, /RESOURCE_EXHAUSTED/);

    const empty = await claude.messages.create({ model: CLAUDE, max_tokens: 10, messages: [] }).catch((error) => error);
    assert.ok(empty instanceof BadRequestError);
  });

  test("a Bearer the token endpoint did not issue, or one that expired, is refused with 401 UNAUTHENTICATED", async () => {
    const url = `${fake.url}/v1/projects/${fake.serviceAccount.project_id}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:generateContent`;
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
    const forged = await fetch(url, { method: "POST", headers: { authorization: "Bearer ya29.c.not-issued" }, body });
    assert.equal(forged.status, 401);
    const forgedError = ((await forged.json()) as any).error;
    assert.equal(forgedError.status, "UNAUTHENTICATED");
    assert.equal(forgedError.details[0].reason, "ACCESS_TOKEN_TYPE_UNSUPPORTED");
    const missing = await fetch(url, { method: "POST", body });
    assert.equal(((await missing.json()) as any).error.details[0].reason, "CREDENTIALS_MISSING");

    const stale = new ServiceAccountTokenSource(fake.serviceAccount);
    const staleClient = new AnthropicVertex({
      baseURL: `${fake.url}/v1`,
      region: REGION,
      projectId: fake.serviceAccount.project_id,
      authClient: new TokenSourceAuthClient(stale),
      maxRetries: 0,
    });
    await stale.token();
    fake.tokens.expireAll();
    try {
      const refusal = await staleClient.messages
        .create({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })
        .catch((error) => error);
      assert.ok(refusal instanceof AuthenticationError);
      assert.equal(refusal.status, 401);
      assert.match(refusal.message, /ACCESS_TOKEN_EXPIRED/);
    } finally {
      // Every token the fake issued is now expired, the shared source's too.
      source.invalidate();
    }
  });

  test("a Claude stream cut mid-way fails in the SDK; a project the token does not belong to is 403", async () => {
    fake.claudeAnswers.push({ text: ["Half ", "a ", "story"], cutAfterEvents: 4 });
    const seen: string[] = [];
    await assert.rejects(async () => {
      const stream = claude.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: "user", content: "Story" }] });
      stream.on("text", (text) => seen.push(text));
      await stream.finalMessage();
    });
    assert.deepEqual(seen, ["Half "]);

    const elsewhere = new AnthropicVertex({
      baseURL: `${fake.url}/v1`,
      region: REGION,
      projectId: "someone-elses-project",
      authClient: new TokenSourceAuthClient(source),
      maxRetries: 0,
      defaultHeaders: { "anthropic-version": "vertex-2023-10-16" },
    });
    const refusal = await elsewhere.messages
      .create({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.equal(refusal.status, 403);
    assert.match(refusal.message, /PERMISSION_DENIED/);
  });

  test("Gemini through @google/genai in Vertex mode: the project path, generateContent and the SSE stream", async () => {
    fake.geminiAnswers.push(
      { text: ["Hello from Gemini on Vertex."] },
      { text: ["A ", "B"], usage: { promptTokenCount: 311, candidatesTokenCount: 29 } },
    );
    const answer = await gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi", config: { maxOutputTokens: 617 } });
    assert.equal(answer.text, "Hello from Gemini on Vertex.");
    assert.deepEqual(
      [answer.usageMetadata?.promptTokenCount, answer.usageMetadata?.thoughtsTokenCount, answer.usageMetadata?.totalTokenCount],
      [1237, 211, 1837],
    );
    const [seen] = modelCalls();
    assert.equal(
      seen.path,
      `/v1/projects/${fake.serviceAccount.project_id}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:generateContent`,
    );
    assert.equal(seen.authorized, true);
    assert.ok(fake.tokens.issued.some((issued) => `Bearer ${issued.token}` === seen.headers.authorization));
    assert.deepEqual(seen.body.contents, [{ role: "user", parts: [{ text: "Hi" }] }]);
    assert.equal(seen.body.generationConfig.maxOutputTokens, 617);

    const chunks = [];
    for await (const chunk of await gemini.models.generateContentStream({ model: "gemini-2.5-flash", contents: "AB" })) chunks.push(chunk);
    assert.equal(chunks.map((chunk) => chunk.text).join(""), "A B");
    assert.equal(chunks.at(-1)?.usageMetadata?.candidatesTokenCount, 29);
    // Vertex's intermediate chunks carry no counts, only the traffic type.
    assert.equal(chunks[0].usageMetadata?.promptTokenCount, undefined);
    assert.equal(chunks[0].usageMetadata?.trafficType, "ON_DEMAND");
    assert.equal(chunks.at(-1)?.usageMetadata?.promptTokenCount, 311);
    assert.equal(modelCalls()[1].query.alt, "sse");
    assert.match(modelCalls()[1].path, /gemini-2\.5-flash:streamGenerateContent$/);
  });

  test("Vertex refuses a turn without a role, which the Gemini API would take", async () => {
    const refusal = await gemini.models
      .generateContent({ model: "gemini-2.5-pro", contents: [{ parts: [{ text: "Hi" }] }] })
      .catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 400);
    assert.match(refusal.message, /Unable to submit request because Please use a valid role: user, model/);
    assert.equal(modelCalls()[0].body.contents[0].role, undefined);
  });

  test("text embeddings through @google/genai in Vertex mode: :predict, instances, outputDimensionality, token counts", async () => {
    const embedded = await gemini.models.embedContent({
      model: "text-embedding-005",
      contents: ["What is your name?", "What is your favorite color?"],
      config: { outputDimensionality: 64 },
    });
    assert.equal(embedded.embeddings?.length, 2);
    assert.equal(embedded.embeddings?.[0].values?.length, 64);
    assert.notDeepEqual(embedded.embeddings?.[0].values, embedded.embeddings?.[1].values);
    // The SDK reads Vertex's snake_case statistics into its own names.
    assert.equal(embedded.embeddings?.[0].statistics?.tokenCount, vertexTokenCount("What is your name?"));
    assert.equal(embedded.embeddings?.[0].statistics?.truncated, false);
    const [seen] = modelCalls();
    assert.equal(
      seen.path,
      `/v1/projects/${fake.serviceAccount.project_id}/locations/${REGION}/publishers/google/models/text-embedding-005:predict`,
    );
    assert.equal(seen.authorized, true);
    assert.deepEqual(seen.body.instances, [{ content: "What is your name?" }, { content: "What is your favorite color?" }]);
    assert.deepEqual(seen.body.parameters, { outputDimensionality: 64 });

    // gemini-embedding-001 is served by :predict too, one instance per request.
    const one = await gemini.models.embedContent({
      model: "gemini-embedding-001",
      contents: "Hello",
      config: { outputDimensionality: 256 },
    });
    assert.equal(one.embeddings?.[0].values?.length, 256);
    assert.match(modelCalls()[1].path, /gemini-embedding-001:predict$/);
    const two = await gemini.models.embedContent({ model: "gemini-embedding-001", contents: ["a", "b"] }).catch((error) => error);
    assert.ok(two instanceof ApiError);
    assert.equal(two.status, 400);
    assert.match(two.message, /one instance per request/);
    const wide = await gemini.models
      .embedContent({ model: "text-embedding-005", contents: "Hi", config: { outputDimensionality: 1536 } })
      .catch((error) => error);
    assert.equal(wide.status, 400);
    assert.match(wide.message, /outputDimensionality 1536/);
  });

  test("a token is fetched once and reused across both SDKs' calls", async () => {
    source.invalidate();
    const before = fake.tokens.issued.length;
    await claude.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] });
    await gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" });
    await claude.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: "user", content: "Again" }] });
    assert.equal(fake.tokens.issued.length, before + 1);
    const bearers = new Set(modelCalls().map((request) => request.headers.authorization));
    assert.equal(bearers.size, 1);
  });
});
