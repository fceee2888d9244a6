// Proves the Gemini API fake (tests/fakes/gemini.ts) faithful by driving it with Google's own SDK, @google/genai.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from "@google/genai";
import { type GeminiFake, startGeminiFake } from "./gemini.ts";
import { quotaExhausted } from "./gemini-wire.ts";

const KEY = "AIzaSyFake-gemini-key-0123456789abcdef";

describe("Gemini API fake, driven by @google/genai", () => {
  let fake: GeminiFake;
  let ai: GoogleGenAI;
  before(async () => {
    fake = await startGeminiFake({ apiKey: KEY });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.url } });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.received.length = 0;
    fake.answers.length = 0;
  });

  test("generateContent: text, usage with thoughts and cache, the key checked", async () => {
    fake.answers.push({ text: ["Hello from the fake."] });
    const answer = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "Say hello",
      config: { systemInstruction: "Be brief.", maxOutputTokens: 733 },
    });
    assert.equal(answer.text, "Hello from the fake.");
    assert.equal(answer.candidates?.[0].finishReason, "STOP");
    assert.deepEqual(
      {
        prompt: answer.usageMetadata?.promptTokenCount,
        candidates: answer.usageMetadata?.candidatesTokenCount,
        thoughts: answer.usageMetadata?.thoughtsTokenCount,
        cached: answer.usageMetadata?.cachedContentTokenCount,
        total: answer.usageMetadata?.totalTokenCount,
      },
      { prompt: 1237, candidates: 389, thoughts: 211, cached: 418, total: 1837 },
    );
    const [seen] = fake.received;
    assert.equal(seen.method, "POST");
    assert.equal(seen.path, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert.equal(seen.headers["x-goog-api-key"], KEY);
    assert.equal(seen.authorized, true);
    assert.deepEqual(seen.body.contents, [{ role: "user", parts: [{ text: "Say hello" }] }]);
    assert.deepEqual(seen.body.systemInstruction.parts, [{ text: "Be brief." }]);
    assert.equal(seen.body.generationConfig.maxOutputTokens, 733);
  });

  test("generateContentStream over SSE: pieces in order, the whole usage only on the last chunk", async () => {
    fake.answers.push({ text: ["One, ", "two, ", "three."], usage: { promptTokenCount: 523, candidatesTokenCount: 47 } });
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-pro", contents: "Count to three" }))
      chunks.push(chunk);
    assert.equal(chunks.map((chunk) => chunk.text).join(""), "One, two, three.");
    assert.deepEqual(
      chunks.map((chunk) => chunk.candidates?.[0].finishReason),
      [undefined, undefined, "STOP"],
    );
    assert.deepEqual(
      chunks.map((chunk) => chunk.usageMetadata?.candidatesTokenCount),
      [undefined, undefined, 47],
    );
    assert.equal(chunks[0].usageMetadata?.promptTokenCount, 523);
    assert.equal(chunks[2].usageMetadata?.totalTokenCount, 570);
    const [seen] = fake.received;
    assert.equal(seen.path, "/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    assert.equal(seen.query.alt, "sse");
  });

  test("a function call round trip: functionCall part out, functionResponse part back in a user turn", async () => {
    fake.answers.push({
      functionCalls: [{ name: "get_weather", args: { city: "Lisbon" } }],
      usage: { promptTokenCount: 317, candidatesTokenCount: 23 },
    });
    fake.answers.push({ text: ["It is 21 °C in Lisbon."] });
    const tools = [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "The weather in a city",
            parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
      },
    ];
    const config = { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
    const question = { role: "user", parts: [{ text: "Weather in Lisbon?" }] };
    const first = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: [question], config });
    assert.deepEqual(
      first.functionCalls?.map((call) => ({ name: call.name, args: call.args })),
      [{ name: "get_weather", args: { city: "Lisbon" } }],
    );
    assert.equal(first.usageMetadata?.candidatesTokenCount, 23);

    const second = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: [
        question,
        first.candidates![0].content!,
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { celsius: 21 } } }] },
      ],
      config,
    });
    assert.equal(second.text, "It is 21 °C in Lisbon.");
    assert.equal(fake.received[0].body.tools[0].functionDeclarations[0].name, "get_weather");
    assert.deepEqual(
      fake.received[1].body.contents.map((content: any) => [content.role, Object.keys(content.parts[0])[0]]),
      [
        ["user", "text"],
        ["model", "functionCall"],
        ["user", "functionResponse"],
      ],
    );
  });

  test("a function response without a function call turn is refused", async () => {
    const refusal = await ai.models
      .generateContent({
        model: "gemini-2.5-flash",
        contents: [{ role: "user", parts: [{ functionResponse: { name: "get_weather", response: { celsius: 21 } } }] }],
      })
      .catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 400);
    assert.match(refusal.message, /function response turn comes immediately after a function call turn/);
  });

  test("a role other than user or model is refused with Gemini's 400", async () => {
    const refusal = await ai.models
      .generateContent({ model: "gemini-2.5-flash", contents: [{ role: "assistant", parts: [{ text: "Hi" }] }] })
      .catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 400);
    assert.match(refusal.message, /Please use a valid role: user, model/);
    assert.match(refusal.message, /INVALID_ARGUMENT/);
  });

  test("a turn without a role is taken, as the Gemini API's Content.role is optional", async () => {
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: [{ parts: [{ text: "Hi" }] }] });
    assert.equal(answer.candidates?.[0].finishReason, "STOP");
    assert.equal(fake.received[0].body.contents[0].role, undefined);
  });

  test("countTokens", async () => {
    fake.countTokensTotal = 1409;
    const counted = await ai.models.countTokens({ model: "gemini-2.5-pro", contents: "How many tokens is this?" });
    assert.equal(counted.totalTokens, 1409);
    assert.equal(fake.received[0].path, "/v1beta/models/gemini-2.5-pro:countTokens");
    assert.deepEqual(fake.received[0].body.contents, [{ role: "user", parts: [{ text: "How many tokens is this?" }] }]);
  });

  test("embedContent goes to batchEmbedContents, one embedding per text", async () => {
    const embedded = await ai.models.embedContent({
      model: "gemini-embedding-001",
      contents: ["first text", "second text"],
      config: { outputDimensionality: 64 },
    });
    assert.equal(embedded.embeddings?.length, 2);
    assert.equal(embedded.embeddings?.[0].values?.length, 64);
    assert.notDeepEqual(embedded.embeddings?.[0].values, embedded.embeddings?.[1].values);
    const [seen] = fake.received;
    assert.equal(seen.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    assert.deepEqual(
      seen.body.requests.map((item: any) => item.model),
      ["models/gemini-embedding-001", "models/gemini-embedding-001"],
    );
    // A batch holds at most 100 requests, as Google's.
    const over = await ai.models
      .embedContent({ model: "gemini-embedding-001", contents: Array.from({ length: 101 }, (_, index) => `text ${index}`) })
      .catch((error) => error);
    assert.ok(over instanceof ApiError);
    assert.equal(over.status, 400);
    assert.match(over.message, /at most 100 requests can be in one batch/);
  });

  test("models.list pages through the catalog with pageToken", async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list({ config: { pageSize: 2 } })) names.push(model.name ?? "");
    assert.deepEqual(names, [
      "models/gemini-2.5-pro",
      "models/gemini-2.5-flash",
      "models/gemini-2.5-flash-lite",
      "models/gemini-embedding-001",
      "models/text-embedding-004",
    ]);
    assert.deepEqual(
      fake.received.map((request) => [request.method, request.path, request.query.pageSize, request.query.pageToken !== undefined]),
      [
        ["GET", "/v1beta/models", "2", false],
        ["GET", "/v1beta/models", "2", true],
        ["GET", "/v1beta/models", "2", true],
      ],
    );
  });

  test("a wrong key is refused with Google's 400 API_KEY_INVALID, a missing one with 403", async () => {
    const wrong = new GoogleGenAI({ apiKey: "AIzaSy-not-the-key", httpOptions: { baseUrl: fake.url } });
    const refusal = await wrong.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" }).catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 400);
    assert.match(refusal.message, /API key not valid/);
    assert.match(refusal.message, /API_KEY_INVALID/);
    assert.equal(fake.received[0].authorized, false);

    const bare = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:generateContent`, { method: "POST", body: "{}" });
    assert.equal(bare.status, 403);
    assert.equal(((await bare.json()) as any).error.status, "PERMISSION_DENIED");
    const byQuery = await fetch(`${fake.url}/v1beta/models?key=${KEY}`);
    assert.equal(byQuery.status, 200);
  });

  test("an unknown model is Google's 404 NOT_FOUND", async () => {
    const refusal = await ai.models.generateContent({ model: "gemini-0-imaginary", contents: "Hi" }).catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 404);
    assert.match(refusal.message, /models\/gemini-0-imaginary is not found/);
  });

  test("429 RESOURCE_EXHAUSTED reaches the SDK as an ApiError 429", async () => {
    fake.answers.push({ error: quotaExhausted() });
    const refusal = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" }).catch((error) => error);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 429);
    assert.match(refusal.message, /RESOURCE_EXHAUSTED/);
  });

  test("finishReason SAFETY: no content, the blocking rating says why", async () => {
    fake.answers.push({ finishReason: "SAFETY", usage: { promptTokenCount: 97, candidatesTokenCount: 0 } });
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Something dangerous" });
    assert.equal(answer.text, undefined);
    assert.equal(answer.candidates?.[0].finishReason, "SAFETY");
    assert.deepEqual(
      answer.candidates?.[0].safetyRatings?.filter((rating) => rating.blocked).map((rating) => rating.category),
      ["HARM_CATEGORY_DANGEROUS_CONTENT"],
    );
    assert.equal(answer.usageMetadata?.promptTokenCount, 97);
  });

  test("a blocked prompt: no candidates, promptFeedback.blockReason, prompt tokens only (plain and streamed)", async () => {
    fake.answers.push({ blockPrompt: "SAFETY", usage: { promptTokenCount: 83, candidatesTokenCount: 0 } }, { blockPrompt: "SAFETY" });
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Something dangerous" });
    assert.equal(answer.candidates, undefined);
    assert.equal(answer.text, undefined);
    assert.equal(answer.promptFeedback?.blockReason, "SAFETY");
    assert.deepEqual(
      [answer.usageMetadata?.promptTokenCount, answer.usageMetadata?.candidatesTokenCount, answer.usageMetadata?.totalTokenCount],
      [83, undefined, 83],
    );
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "Something dangerous" }))
      chunks.push(chunk);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].promptFeedback?.blockReason, "SAFETY");
  });

  test("a missing usage block and a stream cut mid-way", async () => {
    fake.answers.push({ text: ["No usage here."], usage: null });
    const bare = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Hi" });
    assert.equal(bare.text, "No usage here.");
    assert.equal(bare.usageMetadata, undefined);

    fake.answers.push({ text: ["Half ", "a ", "story"], cutAfterChunks: 1 });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "Tell a story" }))
        seen.push(chunk.text ?? "");
    });
    assert.deepEqual(seen, ["Half "]);
  });

  test("without alt=sse the stream is one JSON array of the same chunks", async () => {
    fake.answers.push({ text: ["A", "B"] });
    const response = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "AB" }] }] }),
    });
    assert.equal(response.status, 200);
    const chunks = (await response.json()) as any[];
    assert.deepEqual(
      chunks.map((chunk) => chunk.candidates[0].content.parts[0].text),
      ["A", "B"],
    );
    assert.equal(chunks[1].candidates[0].finishReason, "STOP");
    assert.equal(chunks[1].usageMetadata.candidatesTokenCount, 389);
  });
});
