// A Messages request served by an OpenAI-style upstream (lib/providers/anthropic/convert/messages-to-chat.ts): the
// request, the completion and its chunks converted, read back by the official Anthropic SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatStreamToMessages, chatRequestFromMessages, chatResponseToMessage } from "@/lib/providers/anthropic/convert/messages-to-chat";
import { chatCompletionSchema } from "@/lib/wire/openai-chat";
import { messagesRequestSchema } from "@/lib/wire/anthropic-messages";
import {
  sseResponse,
  jsonResponse,
  anthropicClient,
  anthropicSse,
  rejectsWith,
  PNG_BASE64,
  chunkBase,
  openaiTextStream,
  openaiToolStream,
} from "../helpers/convert-fixtures";

test("chatRequestFromMessages maps a full Anthropic request", () => {
  const body = messagesRequestSchema.parse({
    model: "std-5.5",
    max_tokens: 1024,
    system: [
      { type: "text", text: "You are terse." },
      { type: "text", text: "Use metric units.", cache_control: { type: "ephemeral" } },
    ],
    messages: [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Need the tool.", signature: "abc" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { location: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: [
              { type: "text", text: "18C" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
            ],
          },
          { type: "text", text: "And this picture?" },
          { type: "image", source: { type: "url", url: "https://example.com/p.png" } },
        ],
      },
    ],
    temperature: 0.2,
    top_k: 5,
    stop_sequences: ["###"],
    stream: true,
    metadata: { user_id: "u-1" },
    tools: [
      { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
    ],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
  });

  assert.deepEqual(chatRequestFromMessages(body, "gpt-5.5"), {
    model: "gpt-5.5",
    messages: [
      { role: "system", content: "You are terse.\n\nUse metric units." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [{ id: "toolu_01", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "toolu_01", content: "18C" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          { type: "text", text: "And this picture?" },
          { type: "image_url", image_url: { url: "https://example.com/p.png" } },
        ],
      },
    ],
    max_completion_tokens: 1024,
    temperature: 0.2,
    stop: ["###"],
    stream: true,
    stream_options: { include_usage: true },
    user: "u-1",
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { location: { type: "string" } } },
        },
      },
    ],
    tool_choice: "required",
    parallel_tool_calls: false,
  });
});

test("chatRequestFromMessages: plain strings, max_tokens field option, refusals", () => {
  const body = messagesRequestSchema.parse({ model: "m", max_tokens: 50, messages: [{ role: "user", content: "Hi" }], system: "Be kind." });
  assert.deepEqual(chatRequestFromMessages(body, "gpt", { maxTokensField: "max_tokens" }), {
    model: "gpt",
    messages: [
      { role: "system", content: "Be kind." },
      { role: "user", content: "Hi" },
    ],
    max_tokens: 50,
  });
  const withSystemTurn = messagesRequestSchema.parse({
    model: "m",
    max_tokens: 5,
    messages: [
      { role: "user", content: "Hi" },
      { role: "system", content: [{ type: "text", text: "Now be formal." }] },
    ],
  });
  assert.deepEqual(chatRequestFromMessages(withSystemTurn, "gpt").messages, [
    { role: "user", content: "Hi" },
    { role: "system", content: "Now be formal." },
  ]);
  const convert = (extra: object) =>
    chatRequestFromMessages(
      messagesRequestSchema.parse({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "Hi" }], ...extra }),
      "gpt",
    );
  rejectsWith(() => convert({ tools: [{ type: "web_search_20250305", name: "web_search" }] }), "invalid_request", "tools[0].type");
  rejectsWith(
    () => convert({ messages: [{ role: "user", content: [{ type: "container_upload", file_id: "f" }] }] }),
    "invalid_request",
    "messages[0].content[0].type",
  );
  rejectsWith(
    () => convert({ messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "f" } }] }] }),
    "invalid_request",
    "messages[0].content[0]",
  );
});

// ---------------------------------------------------------------------------------------------
// chatResponseToMessage

const openaiCompletion = chatCompletionSchema.parse({
  id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  object: "chat.completion",
  created: 1741569952,
  model: "gpt-4.1-2025-04-14",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Let me check.",
        refusal: null,
        tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } }],
        annotations: [],
      },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 30, audio_tokens: 0 } },
  service_tier: "default",
});

test("chatResponseToMessage maps content, tool calls, stop reason and usage", async () => {
  const message = chatResponseToMessage(openaiCompletion, "std-5.5");
  assert.deepEqual(message, {
    id: "msg_B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    type: "message",
    role: "assistant",
    model: "std-5.5",
    content: [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "call_abc", name: "get_weather", input: { location: "Paris" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 70, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 30 },
  });
  const stop = (finish_reason: string) =>
    chatResponseToMessage({ ...openaiCompletion, choices: [{ ...openaiCompletion.choices[0]!, finish_reason }] }, "m").stop_reason;
  assert.equal(stop("stop"), "end_turn");
  assert.equal(stop("length"), "max_tokens");
  assert.equal(stop("content_filter"), "refusal");

  // The Anthropic SDK reads it like one of its own.
  const client = anthropicClient(() => jsonResponse(message));
  const read = await client.messages.create({ model: "std-5.5", max_tokens: 100, messages: [{ role: "user", content: "Weather?" }] });
  assert.equal(read.content[0]!.type === "text" && read.content[0]!.text, "Let me check.");
  assert.equal(read.stop_reason, "tool_use");
  assert.equal(read.usage.output_tokens, 20);
});

// ---------------------------------------------------------------------------------------------
// ChatStreamToMessages

test("ChatStreamToMessages emits Anthropic's exact event order and waits for the usage chunk", () => {
  const converter = new ChatStreamToMessages({ publicModel: "std-5.5", inputTokens: 80, id: "msg_test" });
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
  const converter = new ChatStreamToMessages({ publicModel: "std-5.5", inputTokens: 100 });
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
  const converter = new ChatStreamToMessages({ publicModel: "m", inputTokens: 12 });
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
  const converter = new ChatStreamToMessages({ publicModel: "m" });
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
    () => new ChatStreamToMessages({ publicModel: "m" }).push({ error: { message: "rate limited", type: "rate_limit_error" } }),
    "upstream_error",
  );
  rejectsWith(() => new ChatStreamToMessages({ publicModel: "m" }).push({ choices: "nope" }), "upstream_error");
});

// ---------------------------------------------------------------------------------------------
// Round trip
