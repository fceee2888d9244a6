// Fixtures for the Chat Completions <-> Messages converter tests (tests/unit/convert-*.test.ts): recorded-shape
// streams of both vendors, response and client helpers that feed the official SDKs from a string.
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { GatewayError } from "@/lib/platform/errors";
import { encodeSse } from "@/lib/platform/sse";
import type { MessagesStreamEvent } from "@/lib/dialects/messages/wire";
// ---------------------------------------------------------------------------------------------
// Helpers: real SDK clients whose fetch answers with what the converters produced.

export function sseResponse(text: string): Response {
  return new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
}
export function jsonResponse(value: unknown): Response {
  return new Response(JSON.stringify(value), { status: 200, headers: { "content-type": "application/json" } });
}
export function anthropicClient(respond: () => Response): Anthropic {
  return new Anthropic({ apiKey: "sk-test", baseURL: "http://gateway.test", maxRetries: 0, fetch: async () => respond() });
}
export function openaiClient(respond: () => Response): OpenAI {
  return new OpenAI({ apiKey: "sk-test", baseURL: "http://gateway.test/v1", maxRetries: 0, fetch: async () => respond() });
}
export function anthropicSse(events: MessagesStreamEvent[]): string {
  return events.map((event) => encodeSse({ event: event.type, data: JSON.stringify(event) })).join("");
}
export function textBody(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  // Cut into 7-byte pieces so events straddle reads, as they do over a network.
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 7));
      offset += 7;
    },
  });
}
export function rejectsWith(run: () => unknown, code: string, param?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GatewayError, String(error));
    assert.equal(error.code, code);
    if (param !== undefined) assert.equal(error.param, param);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Fixtures, shaped like the vendors' documented examples.

export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Anthropic's streamed tool-use example (https://docs.anthropic.com/en/docs/build-with-claude/streaming). */
export const anthropicToolStream = [
  {
    type: "message_start",
    message: {
      id: "msg_014p7gG3wDgGV9EUtLvnow3U",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 472, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 2 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Okay" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ", let's check the weather for San Francisco, CA:" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} },
  },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"location":' } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: ' "San Francisco, CA"' } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: ', "unit": "fahrenheit"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: "message_stop" },
];

export const chunkBase = {
  id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  object: "chat.completion.chunk",
  created: 1741570283,
  model: "gpt-4o-2024-08-06",
  system_fingerprint: "fp_eb9dce56a8",
  service_tier: "default",
};

/** OpenAI streaming text with stream_options.include_usage (https://platform.openai.com/docs/api-reference/chat-streaming). */
export const openaiTextStream = [
  {
    ...chunkBase,
    choices: [{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }],
    usage: null,
  },
  { ...chunkBase, choices: [{ index: 0, delta: { content: "Hello" }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: { content: " there, friend." }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }], usage: null },
  {
    ...chunkBase,
    choices: [],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 5,
      total_tokens: 87,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  },
];

/** OpenAI streaming two parallel tool calls after some text. */
export const openaiToolStream = [
  {
    ...chunkBase,
    choices: [{ index: 0, delta: { role: "assistant", content: "Checking both.", refusal: null }, logprobs: null, finish_reason: null }],
    usage: null,
  },
  {
    ...chunkBase,
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", type: "function", function: { name: "get_weather", arguments: "" } },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  },
  {
    ...chunkBase,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"lo' } }] }, logprobs: null, finish_reason: null }],
    usage: null,
  },
  {
    ...chunkBase,
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: 'cation": "Paris"}' } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  },
  {
    ...chunkBase,
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 1, id: "call_7sEp2Kzn", type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Paris"}' } },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  },
  { ...chunkBase, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }], usage: null },
  { ...chunkBase, choices: [], usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 } },
];

// ---------------------------------------------------------------------------------------------
// chatRequestToMessages
