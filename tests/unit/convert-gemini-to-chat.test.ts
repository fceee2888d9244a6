// A Gemini upstream's whole answer given to a Chat client (lib/dialects/gemini/gemini-to-chat.ts), read back by the
// official openai SDK. The answers are the Gemini fake's own (tests/fakes/gemini-wire.ts, proven with @google/genai).
import { test } from "node:test";
import assert from "node:assert/strict";
import { geminiFinishReason, geminiResponseToChat } from "@/lib/dialects/gemini/gemini-to-chat";
import { chatRequestToGemini } from "@/lib/dialects/gemini/chat-to-gemini";
import { chatCompletionSchema, chatRequestSchema } from "@/lib/dialects/chat/wire";
import { checkGenerateRequest, generateResponse } from "../fakes/gemini-wire.ts";
import { jsonResponse, openaiClient, rejectsWith } from "../helpers/convert-fixtures";

const MODEL = "gemini-2.5-flash";

test("geminiResponseToChat: a text answer, its usage in the gateway's terms and the client's, read by the openai SDK", async () => {
  const { completion, usage } = geminiResponseToChat(
    generateResponse({ text: ["Blue, ", "by Rayleigh scattering."] }, MODEL, "resp-7Qx"),
    "gem-flash",
  );
  // 1237 prompt of which 418 cached, 389 answer and 211 thought tokens (DEFAULT_GEMINI_USAGE).
  assert.deepEqual(usage, { inputTokens: 819, cacheReadTokens: 418, outputTokens: 600 });
  assert.equal(completion.id, "chatcmpl-resp-7Qx");
  assert.equal(completion.model, "gem-flash");
  assert.deepEqual(completion.choices, [
    {
      index: 0,
      message: { role: "assistant", content: "Blue, by Rayleigh scattering.", refusal: null },
      logprobs: null,
      finish_reason: "stop",
    },
  ]);
  assert.deepEqual(completion.usage, {
    prompt_tokens: 1237,
    completion_tokens: 600,
    total_tokens: 1837,
    prompt_tokens_details: { cached_tokens: 418 },
    completion_tokens_details: { reasoning_tokens: 211 },
  });
  assert.ok(chatCompletionSchema.safeParse(completion).success);

  const client = openaiClient(() => jsonResponse(completion));
  const read = await client.chat.completions.create({ model: "gem-flash", messages: [{ role: "user", content: "Why blue?" }] });
  assert.equal(read.choices[0]!.message.content, "Blue, by Rayleigh scattering.");
  assert.equal(read.usage!.completion_tokens_details!.reasoning_tokens, 211);
});

test("geminiResponseToChat: function calls become tool_calls, and the tool round trip goes back to Gemini", async () => {
  const answer = generateResponse(
    {
      functionCalls: [
        { name: "get_weather", args: { city: "Paris", units: { temp: "C" } } },
        { name: "get_time", args: {} },
      ],
    },
    MODEL,
    "resp-tools",
  );
  const { completion } = geminiResponseToChat(answer, "gem-flash");
  const [choice] = completion.choices;
  assert.equal(choice!.finish_reason, "tool_calls");
  assert.equal(choice!.message.content, null);
  const calls = choice!.message.tool_calls!;
  assert.deepEqual(
    calls.map((call) => [call.type, call.function.name, JSON.parse(call.function.arguments)]),
    [
      ["function", "get_weather", { city: "Paris", units: { temp: "C" } }],
      ["function", "get_time", {}],
    ],
  );
  assert.match(calls[0]!.id, /^call_[A-Za-z0-9]+$/);
  assert.notEqual(calls[0]!.id, calls[1]!.id);
  assert.ok(chatCompletionSchema.safeParse(completion).success);

  const client = openaiClient(() => jsonResponse(completion));
  const read = await client.chat.completions.create({ model: "gem-flash", messages: [{ role: "user", content: "Paris?" }] });
  const readCall = read.choices[0]!.message.tool_calls![0]!;
  assert.ok(readCall.type === "function");
  assert.equal(readCall.id, calls[0]!.id);

  // The client sends the assistant message back with the tools' results: Gemini takes the next turn.
  const next = chatRequestToGemini(
    chatRequestSchema.parse({
      model: "gem-flash",
      messages: [
        { role: "user", content: "Paris?" },
        read.choices[0]!.message,
        { role: "tool", tool_call_id: calls[1]!.id, content: "14:05" },
        { role: "tool", tool_call_id: calls[0]!.id, content: '{"celsius":18}' },
      ],
    }),
    { outputCap: 512 },
  );
  assert.equal(checkGenerateRequest(next, true), null);
  assert.deepEqual(next.contents[2], {
    role: "user",
    parts: [
      { functionResponse: { name: "get_time", response: { output: "14:05" } } },
      { functionResponse: { name: "get_weather", response: { celsius: 18 } } },
    ],
  });
});

test("geminiResponseToChat: a function call's own id is kept, and text beside calls stays", () => {
  const { completion } = geminiResponseToChat(
    {
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ text: "Looking." }, { functionCall: { id: "fc-91", name: "lookup", args: { q: "x" } }, thoughtSignature: "c2ln" }],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 9, totalTokenCount: 49 },
    },
    "m",
  );
  const message = completion.choices[0]!.message;
  assert.equal(message.content, "Looking.");
  assert.deepEqual(message.tool_calls, [{ id: "fc-91", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }]);
});

test("geminiResponseToChat: thought parts are reasoning_content, thoughts count as output and reasoning tokens", () => {
  const { completion, usage } = geminiResponseToChat(
    {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { text: "**Weighing the options**\nThe user wants…", thought: true },
              { text: "Take the train.", thoughtSignature: "c2lnbmF0dXJl" },
            ],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 52, candidatesTokenCount: 4, thoughtsTokenCount: 377, totalTokenCount: 433 },
      modelVersion: MODEL,
    },
    "gem-pro",
  );
  assert.deepEqual(completion.choices[0]!.message, {
    role: "assistant",
    content: "Take the train.",
    refusal: null,
    reasoning_content: "**Weighing the options**\nThe user wants…",
  });
  assert.deepEqual(usage, { inputTokens: 52, cacheReadTokens: 0, outputTokens: 381 });
  assert.equal(completion.usage.completion_tokens_details!.reasoning_tokens, 377);
  assert.ok(completion.id.startsWith("chatcmpl-"));
});

test("geminiResponseToChat: SAFETY, MAX_TOKENS and RECITATION", () => {
  const blocked = geminiResponseToChat(generateResponse({ finishReason: "SAFETY" }, MODEL, "r1"), "m").completion;
  assert.equal(blocked.choices[0]!.finish_reason, "content_filter");
  assert.equal(blocked.choices[0]!.message.content, "");
  assert.ok(chatCompletionSchema.safeParse(blocked).success);
  assert.equal(
    geminiResponseToChat(generateResponse({ finishReason: "MAX_TOKENS" }, MODEL, "r2"), "m").completion.choices[0]!.finish_reason,
    "length",
  );
  assert.equal(
    geminiResponseToChat(generateResponse({ finishReason: "RECITATION" }, MODEL, "r3"), "m").completion.choices[0]!.finish_reason,
    "content_filter",
  );
  assert.equal(
    geminiResponseToChat(generateResponse({ finishReason: "OTHER" }, MODEL, "r4"), "m").completion.choices[0]!.finish_reason,
    "stop",
  );
});

test("geminiFinishReason maps every documented reason", () => {
  const table: [string | undefined, boolean, string][] = [
    ["STOP", false, "stop"],
    ["STOP", true, "tool_calls"],
    ["MAX_TOKENS", true, "length"],
    ["CONTINUATION", false, "length"],
    ["SAFETY", false, "content_filter"],
    ["RECITATION", false, "content_filter"],
    ["BLOCKLIST", false, "content_filter"],
    ["PROHIBITED_CONTENT", false, "content_filter"],
    ["SPII", false, "content_filter"],
    ["IMAGE_SAFETY", false, "content_filter"],
    ["MALFORMED_FUNCTION_CALL", false, "stop"],
    ["LANGUAGE", false, "stop"],
    ["OTHER", false, "stop"],
    ["FINISH_REASON_UNSPECIFIED", false, "stop"],
    ["A_REASON_FROM_NEXT_YEAR", false, "stop"],
    [undefined, false, "stop"],
  ];
  for (const [reason, calledTools, expected] of table) assert.equal(geminiFinishReason(reason, calledTools), expected, String(reason));
});

test("geminiResponseToChat: a blocked prompt is a complete, empty, filtered answer with its prompt tokens", () => {
  const { completion, usage } = geminiResponseToChat(generateResponse({ blockPrompt: "PROHIBITED_CONTENT" }, MODEL, "r5"), "m");
  assert.deepEqual(completion.choices, [
    { index: 0, message: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: "content_filter" },
  ]);
  assert.deepEqual(usage, { inputTokens: 1237, cacheReadTokens: 0, outputTokens: 0 });
  assert.equal(completion.usage.prompt_tokens, 1237);
  assert.ok(chatCompletionSchema.safeParse(completion).success);
});

test("geminiResponseToChat: usage — none reported, Vertex's, and tool-use prompt tokens", () => {
  const none = geminiResponseToChat(generateResponse({ usage: null }, MODEL, "r6"), "m");
  assert.deepEqual(none.usage, {});
  assert.equal(none.completion.usage.total_tokens, 0);

  const vertex = geminiResponseToChat(generateResponse({}, MODEL, "r7", "vertex"), "m");
  assert.deepEqual(vertex.usage, { inputTokens: 819, cacheReadTokens: 418, outputTokens: 600 });

  const withTools = geminiResponseToChat(
    {
      candidates: [{ content: { role: "model", parts: [{ text: "Found it." }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: {
        promptTokenCount: 1237,
        cachedContentTokenCount: 418,
        toolUsePromptTokenCount: 96,
        candidatesTokenCount: 389,
        totalTokenCount: 1722,
      },
    },
    "m",
  );
  assert.deepEqual(withTools.usage, { inputTokens: 915, cacheReadTokens: 418, outputTokens: 389 });
  assert.deepEqual(withTools.completion.usage, {
    prompt_tokens: 1333,
    completion_tokens: 389,
    total_tokens: 1722,
    prompt_tokens_details: { cached_tokens: 418 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
});

test("geminiResponseToChat: a malformed answer is an upstream error", () => {
  for (const body of [
    null,
    "text",
    [],
    {},
    { candidates: "none" },
    { candidates: [] },
    { candidates: [{ content: { parts: [{ text: 7 }] }, finishReason: "STOP" }] },
    { candidates: [{ content: { parts: [{ functionCall: { args: {} } }] }, finishReason: "STOP" }] },
    { candidates: [{ content: { parts: [] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: -3 } },
  ])
    rejectsWith(() => geminiResponseToChat(body, "m"), "upstream_error");
});
