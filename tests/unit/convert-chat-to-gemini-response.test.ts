// Chat Completions to Gemini, for a Gemini client (lib/dialects/gemini/chat-to-gemini-response.ts): a Chat answer,
// whole or streamed, as Gemini's GenerateContentResponse, read back by Google's own @google/genai SDK. The Chat
// streams are the recorded-shape fixtures of the Chat ⇄ Messages tests (tests/helpers/convert-fixtures.ts), and a
// Messages stream converted to Chat first, as the relay does for an Anthropic channel.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GoogleGenAI, type GenerateContentResponse } from "@google/genai";
import { encodeSse } from "@/lib/platform/sse";
import { chatCompletionToGemini, ChatStreamToGemini, geminiFinishReasonOf } from "@/lib/dialects/gemini/chat-to-gemini-response";
import { MessagesStreamToChat } from "@/lib/dialects/convert/messages-stream-to-chat";
import type { GeminiResponse } from "@/lib/dialects/gemini/wire";
import {
  anthropicToolStream,
  chunkBase,
  jsonResponse,
  openaiTextStream,
  openaiToolStream,
  rejectsWith,
  sseResponse,
} from "../helpers/convert-fixtures";

/** Google's SDK, answered with what the converter wrote. */
function genai(respond: () => Response): GoogleGenAI {
  return new GoogleGenAI({ apiKey: "sk-test", httpOptions: { baseUrl: "http://gateway.test", fetch: async () => respond() } });
}

function streamed(chunks: unknown[]): GeminiResponse[] {
  const converter = new ChatStreamToGemini({ publicModel: "std-5.5" });
  return [...chunks.flatMap((chunk) => converter.push(chunk)), ...converter.finish()];
}

async function readBySdk(chunks: GeminiResponse[]): Promise<GenerateContentResponse[]> {
  const text = chunks.map((chunk) => encodeSse({ data: JSON.stringify(chunk) })).join("");
  const out: GenerateContentResponse[] = [];
  for await (const chunk of await genai(() => sseResponse(text)).models.generateContentStream({ model: "std-5.5", contents: "x" }))
    out.push(chunk);
  return out;
}

const completion = {
  id: "chatcmpl-abc123",
  object: "chat.completion",
  created: 1741570283,
  model: "gpt-4o-2024-08-06",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Paris is sunny.", reasoning_content: "The user wants weather.", refusal: null },
      logprobs: null,
      finish_reason: "stop",
    },
  ],
  usage: {
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 64 },
    completion_tokens_details: { reasoning_tokens: 15 },
  },
};

test("chatCompletionToGemini: thought and text parts, finishReason, usageMetadata, read by the SDK", async () => {
  const out = chatCompletionToGemini(completion, "std-5.5");
  assert.deepEqual(out, {
    candidates: [
      {
        content: { role: "model", parts: [{ text: "The user wants weather.", thought: true }, { text: "Paris is sunny." }] },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 120,
      candidatesTokenCount: 25,
      totalTokenCount: 160,
      cachedContentTokenCount: 64,
      thoughtsTokenCount: 15,
    },
    modelVersion: "std-5.5",
    responseId: "abc123",
  });
  const response = await genai(() => jsonResponse(out)).models.generateContent({ model: "std-5.5", contents: "x" });
  assert.equal(response.text, "Paris is sunny.", "the SDK's text leaves thoughts out");
  assert.equal(response.usageMetadata?.thoughtsTokenCount, 15);
  assert.equal(response.responseId, "abc123");
});

test("chatCompletionToGemini: tool calls as functionCall parts with their ids; no usage, no usageMetadata", async () => {
  const out = chatCompletionToGemini(
    {
      id: "chatcmpl-t",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_time", arguments: "" } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    },
    "std-5.5",
  );
  assert.deepEqual(out.candidates[0], {
    content: {
      role: "model",
      parts: [
        { functionCall: { id: "call_1", name: "get_weather", args: { city: "Paris" } } },
        { functionCall: { id: "call_2", name: "get_time", args: {} } },
      ],
    },
    finishReason: "STOP",
    index: 0,
  });
  assert.equal(out.usageMetadata, undefined);
  const response = await genai(() => jsonResponse(out)).models.generateContent({ model: "std-5.5", contents: "x" });
  assert.deepEqual(response.functionCalls, [
    { id: "call_1", name: "get_weather", args: { city: "Paris" } },
    { id: "call_2", name: "get_time", args: {} },
  ]);
  // An empty answer still has a part, as Google's do; a malformed completion is the upstream's fault.
  const empty = chatCompletionToGemini({ id: "x", choices: [{ message: { content: "" }, finish_reason: "length" }] }, "m");
  assert.deepEqual(empty.candidates[0]!.content.parts, [{ text: "" }]);
  assert.equal(empty.candidates[0]!.finishReason, "MAX_TOKENS");
  rejectsWith(() => chatCompletionToGemini({ id: "x", choices: "none" }, "m"), "upstream_error");
  rejectsWith(() => chatCompletionToGemini({ id: "x", choices: [] }, "m"), "upstream_error");
});

test("geminiFinishReasonOf", () => {
  assert.equal(geminiFinishReasonOf("stop"), "STOP");
  assert.equal(geminiFinishReasonOf("tool_calls"), "STOP");
  assert.equal(geminiFinishReasonOf("length"), "MAX_TOKENS");
  assert.equal(geminiFinishReasonOf("content_filter"), "SAFETY");
  assert.equal(geminiFinishReasonOf(null), "STOP");
});

test("ChatStreamToGemini: text chunk by chunk, finishReason and usage on the last, read by the SDK", async () => {
  const chunks = streamed(openaiTextStream);
  assert.deepEqual(
    chunks.map((chunk) => chunk.candidates[0]),
    [
      { content: { role: "model", parts: [{ text: "Hello" }] }, index: 0 },
      { content: { role: "model", parts: [{ text: " there, friend." }] }, index: 0 },
      { content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 },
    ],
  );
  for (const chunk of chunks) {
    assert.equal(chunk.responseId, "B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
    assert.equal(chunk.modelVersion, "std-5.5");
  }
  assert.deepEqual(chunks.at(-1)!.usageMetadata, {
    promptTokenCount: 82,
    candidatesTokenCount: 5,
    totalTokenCount: 87,
    cachedContentTokenCount: 64,
  });
  assert.equal(
    chunks.slice(0, -1).some((chunk) => chunk.usageMetadata),
    false,
  );
  const read = await readBySdk(chunks);
  assert.equal(read.map((chunk) => chunk.text ?? "").join(""), "Hello there, friend.");
  assert.equal(read.at(-1)!.usageMetadata?.promptTokenCount, 82);
});

test("ChatStreamToGemini: tool calls streamed in pieces go out whole in the last chunk", async () => {
  const chunks = streamed(openaiToolStream);
  assert.deepEqual(chunks[0]!.candidates[0]!.content.parts, [{ text: "Checking both." }]);
  assert.deepEqual(chunks.at(-1)!.candidates[0], {
    content: {
      role: "model",
      parts: [
        { functionCall: { id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", args: { location: "Paris" } } },
        { functionCall: { id: "call_7sEp2Kzn", name: "get_time", args: { tz: "Europe/Paris" } } },
      ],
    },
    finishReason: "STOP",
    index: 0,
  });
  assert.deepEqual(chunks.at(-1)!.usageMetadata, { promptTokenCount: 120, candidatesTokenCount: 40, totalTokenCount: 160 });
  const read = await readBySdk(chunks);
  assert.deepEqual(
    read.at(-1)!.functionCalls?.map((call) => call.name),
    ["get_weather", "get_time"],
  );
});

test("ChatStreamToGemini: reasoning as thought parts, a length cut as MAX_TOKENS, a stream without usage", () => {
  const chunks = streamed([
    { ...chunkBase, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    { ...chunkBase, choices: [{ index: 0, delta: { reasoning_content: "Hmm." }, finish_reason: null }] },
    { ...chunkBase, choices: [{ index: 0, delta: { content: "Cut" }, finish_reason: "length" }] },
  ]);
  assert.deepEqual(
    chunks.map((chunk) => [chunk.candidates[0]!.content.parts, chunk.candidates[0]!.finishReason]),
    [
      [[{ text: "Hmm.", thought: true }], undefined],
      [[{ text: "Cut" }], undefined],
      [[{ text: "" }], "MAX_TOKENS"],
    ],
  );
  assert.equal(chunks.at(-1)!.usageMetadata, undefined, "no usage reported: none shown (the meter bills it)");
  rejectsWith(() => new ChatStreamToGemini({ publicModel: "m" }).push({ choices: "nope" }), "upstream_error");
});

test("ChatStreamToGemini after MessagesStreamToChat: an Anthropic channel's stream, as the relay converts it", async () => {
  const toChat = new MessagesStreamToChat({ publicModel: "msg-sonnet-4-6", includeUsage: true });
  const converter = new ChatStreamToGemini({ publicModel: "msg-sonnet-4-6" });
  const chunks = [
    ...anthropicToolStream.flatMap((event) => toChat.push(event).flatMap((chunk) => converter.push(chunk))),
    ...converter.finish(),
  ];
  assert.equal(
    chunks.map((chunk) => chunk.candidates[0]!.content.parts.map((part) => ("text" in part ? part.text : "")).join("")).join(""),
    "Okay, let's check the weather for San Francisco, CA:",
  );
  const last = chunks.at(-1)!;
  assert.deepEqual(last.candidates[0]!.content.parts, [
    {
      functionCall: {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        args: { location: "San Francisco, CA", unit: "fahrenheit" },
      },
    },
  ]);
  assert.equal(last.candidates[0]!.finishReason, "STOP");
  assert.deepEqual(last.usageMetadata, {
    promptTokenCount: 572,
    candidatesTokenCount: 89,
    totalTokenCount: 661,
    cachedContentTokenCount: 100,
  });
  const read = await readBySdk(chunks);
  assert.equal(read.at(-1)!.functionCalls?.[0]?.args?.unit, "fahrenheit");
});
