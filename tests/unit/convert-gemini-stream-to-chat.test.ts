// A Gemini upstream's stream given to a Chat client (GeminiStreamToChat in lib/dialects/gemini/gemini-to-chat.ts),
// read back by the official openai SDK. The chunks are the Gemini fake's own (tests/fakes/gemini-wire.ts, proven
// with @google/genai), for the Gemini API and for Vertex.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeSse, readSseEvents } from "@/lib/platform/sse";
import { GeminiStreamToChat } from "@/lib/dialects/gemini/gemini-to-chat";
import { chatCompletionChunkSchema } from "@/lib/dialects/chat/wire";
import { streamChunks } from "../fakes/gemini-wire.ts";
import { openaiClient, rejectsWith, sseResponse, textBody } from "../helpers/convert-fixtures";

const MODEL = "gemini-2.5-flash";

function run(chunks: unknown[]) {
  const converter = new GeminiStreamToChat({ publicModel: "gem-flash" });
  const out = chunks.flatMap((chunk) => converter.push(chunk));
  return { converter, out };
}

/** Each chunk's choice, without the envelope. */
const choices = (chunks: { choices: unknown[] }[]) => chunks.map((chunk) => chunk.choices[0]);

test("GeminiStreamToChat: text pieces, the finish chunk, then the usage chunk", () => {
  const { converter, out } = run(streamChunks({}, MODEL, "resp-s1"));
  assert.deepEqual(choices(out), [
    { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
    { index: 0, delta: { content: "The sky is blue " }, logprobs: null, finish_reason: null },
    { index: 0, delta: { content: "because of Rayleigh " }, logprobs: null, finish_reason: null },
    { index: 0, delta: { content: "scattering." }, logprobs: null, finish_reason: null },
    { index: 0, delta: {}, logprobs: null, finish_reason: "stop" },
  ]);
  for (const chunk of out) {
    assert.equal(chunk.id, "chatcmpl-resp-s1");
    assert.equal(chunk.object, "chat.completion.chunk");
    assert.equal(chunk.model, "gem-flash");
    assert.ok(chatCompletionChunkSchema.safeParse(chunk).success);
  }
  assert.equal(converter.complete, true);
  assert.deepEqual(converter.usage, { inputTokens: 819, cacheReadTokens: 418, outputTokens: 600 });
  const [usageChunk, ...rest] = converter.finish();
  assert.deepEqual(rest, []);
  assert.deepEqual(usageChunk, {
    id: "chatcmpl-resp-s1",
    object: "chat.completion.chunk",
    created: out[0]!.created,
    model: "gem-flash",
    choices: [],
    usage: {
      prompt_tokens: 1237,
      completion_tokens: 600,
      total_tokens: 1837,
      prompt_tokens_details: { cached_tokens: 418 },
      completion_tokens_details: { reasoning_tokens: 211 },
    },
  });
});

test("GeminiStreamToChat: Vertex's chunks carry no counts until the last; the usage is the same", () => {
  const chunks = streamChunks({}, MODEL, "resp-v", "vertex");
  const converter = new GeminiStreamToChat({ publicModel: "gem-flash" });
  converter.push(chunks[0]);
  assert.deepEqual(converter.usage, {});
  for (const chunk of chunks.slice(1)) converter.push(chunk);
  assert.deepEqual(converter.usage, { inputTokens: 819, cacheReadTokens: 418, outputTokens: 600 });
});

test("GeminiStreamToChat: function calls arrive whole, one tool_calls delta each, and finish as tool_calls", () => {
  const { converter, out } = run(
    streamChunks(
      {
        functionCalls: [
          { name: "get_weather", args: { city: "Paris" } },
          { name: "get_time", args: {} },
        ],
      },
      MODEL,
      "resp-t",
    ),
  );
  assert.equal(out.length, 4);
  const calls = out.slice(1, 3).map((chunk) => chunk.choices[0]!.delta.tool_calls![0]!);
  assert.deepEqual(
    calls.map(({ index, type, function: fn }) => [index, type, fn.name, fn.arguments]),
    [
      [0, "function", "get_weather", '{"city":"Paris"}'],
      [1, "function", "get_time", "{}"],
    ],
  );
  assert.ok(calls.every((call) => /^call_[A-Za-z0-9]+$/.test(call.id!)));
  assert.equal(out[3]!.choices[0]!.finish_reason, "tool_calls");
  assert.equal(converter.complete, true);
});

test("GeminiStreamToChat: a cut stream is not complete, and reports only what came (the prompt)", () => {
  const { converter, out } = run(streamChunks({}, MODEL, "resp-cut").slice(0, 2));
  assert.equal(converter.complete, false);
  assert.equal(out.at(-1)!.choices[0]!.finish_reason, null);
  // The Gemini API's early chunks count the prompt only: no cache count yet, no output count.
  assert.deepEqual(converter.usage, { inputTokens: 1237, cacheReadTokens: 0 });
  const vertex = run(streamChunks({}, MODEL, "resp-cut", "vertex").slice(0, 2)).converter;
  assert.equal(vertex.complete, false);
  assert.deepEqual(vertex.usage, {});
});

test("GeminiStreamToChat: a blocked prompt and a SAFETY stop end the stream as content_filter", () => {
  const blocked = run(streamChunks({ blockPrompt: "SAFETY" }, MODEL, "resp-b"));
  assert.deepEqual(choices(blocked.out), [
    { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
    { index: 0, delta: {}, logprobs: null, finish_reason: "content_filter" },
  ]);
  assert.equal(blocked.converter.complete, true);
  assert.deepEqual(blocked.converter.usage, { inputTokens: 1237, cacheReadTokens: 0, outputTokens: 0 });

  const safety = run(streamChunks({ finishReason: "SAFETY" }, MODEL, "resp-f"));
  assert.equal(safety.out.at(-1)!.choices[0]!.finish_reason, "content_filter");
  assert.equal(safety.converter.complete, true);
});

test("GeminiStreamToChat: thought parts stream as reasoning_content", () => {
  const { out } = run([
    { candidates: [{ content: { role: "model", parts: [{ text: "**Planning**\nFirst…", thought: true }] }, index: 0 }] },
    { candidates: [{ content: { role: "model", parts: [{ text: "", thoughtSignature: "c2ln" }, { text: "Done." }] }, index: 0 }] },
    {
      candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "MAX_TOKENS", index: 0 }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 2, thoughtsTokenCount: 30 },
    },
  ]);
  assert.deepEqual(
    out.map((chunk) => [chunk.choices[0]!.delta, chunk.choices[0]!.finish_reason]),
    [
      [{ role: "assistant", content: "" }, null],
      [{ reasoning_content: "**Planning**\nFirst…" }, null],
      [{ content: "Done." }, null],
      [{}, "length"],
    ],
  );
});

test("GeminiStreamToChat: no usage reported, no usage chunk", () => {
  const { converter } = run(streamChunks({ usage: null }, MODEL, "resp-n"));
  assert.equal(converter.complete, true);
  assert.deepEqual(converter.usage, {});
  assert.deepEqual(converter.finish(), []);
});

test("GeminiStreamToChat: an error mid-stream and a malformed chunk are upstream errors, without Google's words", () => {
  const converter = new GeminiStreamToChat({ publicModel: "m" });
  converter.push(streamChunks({}, MODEL, "resp-e")[0]);
  assert.throws(
    () => converter.push({ error: { code: 503, message: "The model is overloaded for project 4412.", status: "UNAVAILABLE" } }),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal((error as { code?: string }).code, "upstream_error");
      assert.match(error.message, /UNAVAILABLE/);
      assert.doesNotMatch(error.message, /4412|overloaded/);
      return true;
    },
  );
  for (const chunk of [null, 7, [], { candidates: {} }, { candidates: [{ content: { parts: [{ functionCall: { name: 3 } }] } }] }])
    rejectsWith(() => new GeminiStreamToChat({ publicModel: "m" }).push(chunk), "upstream_error");
});

/** Gemini's SSE (`alt=sse`) through the converter, as the relay would send it on to a Chat client. */
async function relayed(chunks: unknown[]): Promise<string> {
  const upstream = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("");
  const converter = new GeminiStreamToChat({ publicModel: "gem-flash" });
  let downstream = "";
  for await (const event of readSseEvents(textBody(upstream))) {
    for (const chunk of converter.push(JSON.parse(event.data))) downstream += encodeSse({ data: JSON.stringify(chunk) });
  }
  assert.equal(converter.complete, true);
  for (const chunk of converter.finish()) downstream += encodeSse({ data: JSON.stringify(chunk) });
  return downstream + encodeSse({ data: "[DONE]" });
}

test("Gemini SSE → readSseEvents → GeminiStreamToChat → the OpenAI SDK's ChatCompletionStream", async () => {
  const downstream = await relayed(streamChunks({ text: ["Bonjour, ", "le monde."] }, MODEL, "resp-sdk"));
  const client = openaiClient(() => sseResponse(downstream));
  const stream = client.chat.completions.stream({
    model: "gem-flash",
    messages: [{ role: "user", content: "Say hello in French" }],
    stream_options: { include_usage: true },
  });
  const streamed: string[] = [];
  stream.on("content", (delta) => streamed.push(delta));
  const final = await stream.finalChatCompletion();
  assert.equal(streamed.join(""), "Bonjour, le monde.");
  assert.equal(final.choices[0]!.message.content, "Bonjour, le monde.");
  assert.equal(final.choices[0]!.finish_reason, "stop");
  assert.equal(final.usage!.prompt_tokens, 1237);
  assert.equal(final.usage!.completion_tokens, 600);
  assert.equal(final.usage!.prompt_tokens_details!.cached_tokens, 418);
});

test("Gemini SSE with function calls → the OpenAI SDK assembles the tool calls", async () => {
  const downstream = await relayed(
    streamChunks(
      {
        functionCalls: [
          { name: "get_weather", args: { city: "Paris" } },
          { name: "get_time", args: { tz: "CET" } },
        ],
      },
      MODEL,
      "r",
    ),
  );
  const client = openaiClient(() => sseResponse(downstream));
  const final = await client.chat.completions
    .stream({ model: "gem-flash", messages: [{ role: "user", content: "Paris?" }] })
    .finalChatCompletion();
  assert.equal(final.choices[0]!.finish_reason, "tool_calls");
  const calls = final.choices[0]!.message.tool_calls!;
  assert.deepEqual(
    calls.map((call) => (call.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : null)),
    [
      ["get_weather", { city: "Paris" }],
      ["get_time", { tz: "CET" }],
    ],
  );
});
