// A Chat upstream's chunks given to a Messages client (lib/dialects/convert/chat-stream-to-messages.ts), read back
// by the official Anthropic SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicClient,
  anthropicSse,
  chunkBase,
  openaiTextStream,
  openaiToolStream,
  rejectsWith,
  sseResponse,
} from "../helpers/convert-fixtures";
import { ChatStreamToMessages } from "@/lib/dialects/convert/chat-stream-to-messages";
import { countTextTokens } from "@/lib/money/tokens";

// ---------------------------------------------------------------------------------------------
// ChatStreamToMessages

test("ChatStreamToMessages emits Anthropic's exact event order and waits for the usage chunk", () => {
  const converter = new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "std-5.5", inputTokens: 80, id: "msg_test" });
  const perChunk = openaiTextStream.map((chunk) => converter.push(chunk));
  // The finish chunk closes the block; message_delta waits for the usage-only chunk that follows.
  assert.deepEqual(
    perChunk[3]!.map((event) => event.type),
    ["content_block_stop"],
  );
  assert.deepEqual(perChunk.flat(), [
    {
      type: "message_start",
      message: {
        id: "msg_test",
        type: "message",
        role: "assistant",
        model: "std-5.5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 80, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " there, friend." } },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 5, input_tokens: 18, cache_read_input_tokens: 64 },
    },
    { type: "message_stop" },
  ]);
  assert.equal(converter.completed, true);
  assert.deepEqual(converter.usage(), { inputTokens: 82, outputTokens: 5 });
  assert.deepEqual(converter.finish(), []);
});

test("ChatStreamToMessages: text then parallel tool calls, through the Anthropic SDK's MessageStream", async () => {
  const converter = new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "std-5.5", inputTokens: 100 });
  const events = [...openaiToolStream.flatMap((chunk) => converter.push(chunk)), ...converter.finish()];
  assert.deepEqual(
    events.map((event) => ("index" in event ? `${event.type}:${event.index}` : event.type)),
    [
      "message_start",
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "content_block_start:2",
      "content_block_delta:2",
      "content_block_stop:2",
      "message_delta",
      "message_stop",
    ],
  );

  const client = anthropicClient(() => sseResponse(anthropicSse(events)));
  const stream = client.messages.stream({
    model: "std-5.5",
    max_tokens: 100,
    messages: [{ role: "user", content: "Weather and time in Paris?" }],
  });
  const final = await stream.finalMessage();
  assert.equal(final.stop_reason, "tool_use");
  assert.deepEqual(
    final.content.map((block) =>
      block.type === "text" ? block.text : block.type === "tool_use" ? [block.id, block.name, block.input] : block.type,
    ),
    [
      "Checking both.",
      ["call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", { location: "Paris" }],
      ["call_7sEp2Kzn", "get_time", { tz: "Europe/Paris" }],
    ],
  );
  assert.equal(final.usage.input_tokens, 120);
  assert.equal(final.usage.output_tokens, 40);
});

test("ChatStreamToMessages: an upstream that never sends usage is closed by finish() with counted output", async () => {
  const converter = new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "m", inputTokens: 12 });
  const events = openaiTextStream.slice(0, 4).flatMap((chunk) => converter.push(chunk));
  assert.equal(events.at(-1)!.type, "content_block_stop");
  assert.equal(converter.completed, false);
  const closing = converter.finish();
  assert.deepEqual(
    closing.map((event) => event.type),
    ["message_delta", "message_stop"],
  );
  assert.deepEqual(converter.usage(), { inputTokens: 12, outputTokens: 5 }); // "Hello there, friend." is 5 tokens

  const final = await anthropicClient(() => sseResponse(anthropicSse([...events, ...closing])))
    .messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })
    .finalMessage();
  assert.equal(final.content[0]!.type === "text" && final.content[0]!.text, "Hello there, friend.");
  assert.equal(final.usage.output_tokens, 5);
  assert.equal(final.stop_reason, "end_turn");
});

test("ChatStreamToMessages: usage in the finish chunk closes at once; upstream errors throw", () => {
  const converter = new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "m" });
  converter.push({ ...chunkBase, choices: [{ index: 0, delta: { role: "assistant", content: "Hi" }, finish_reason: null }] });
  const events = converter.push({
    ...chunkBase,
    choices: [{ index: 0, delta: {}, finish_reason: "length" }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
  assert.deepEqual(
    events.map((event) => event.type),
    ["content_block_stop", "message_delta", "message_stop"],
  );
  assert.deepEqual((events[1] as { delta: unknown }).delta, { stop_reason: "max_tokens", stop_sequence: null });
  assert.deepEqual(converter.push({ ...chunkBase, choices: [] }), [], "nothing after the message is closed");

  rejectsWith(
    () =>
      new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "m" }).push({
        error: { message: "rate limited", type: "rate_limit_error" },
      }),
    "upstream_error",
  );
  rejectsWith(
    () => new ChatStreamToMessages({ countTokens: countTextTokens, publicModel: "m" }).push({ choices: "nope" }),
    "upstream_error",
  );
});
