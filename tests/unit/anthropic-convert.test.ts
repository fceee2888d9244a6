import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { GatewayError } from "@/lib/platform/errors";
import { encodeSse, readSseEvents } from "@/lib/platform/sse";
import { ChatStreamToMessages, chatRequestFromMessages, chatResponseToMessage } from "@/lib/providers/anthropic/convert/messages-to-chat";
import { MessagesStreamToChat, chatRequestToMessages, messagesResponseToChat } from "@/lib/providers/anthropic/convert/chat-to-messages";
import { chatCompletionSchema, chatRequestSchema } from "@/lib/wire/openai-chat";
import { messagesRequestSchema, messagesResponseSchema, type MessagesStreamEvent } from "@/lib/wire/anthropic-messages";

// ---------------------------------------------------------------------------------------------
// Helpers: real SDK clients whose fetch answers with what the converters produced.

function sseResponse(text: string): Response {
  return new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
}
function jsonResponse(value: unknown): Response {
  return new Response(JSON.stringify(value), { status: 200, headers: { "content-type": "application/json" } });
}
function anthropicClient(respond: () => Response): Anthropic {
  return new Anthropic({ apiKey: "sk-test", baseURL: "http://gateway.test", maxRetries: 0, fetch: async () => respond() });
}
function openaiClient(respond: () => Response): OpenAI {
  return new OpenAI({ apiKey: "sk-test", baseURL: "http://gateway.test/v1", maxRetries: 0, fetch: async () => respond() });
}
function anthropicSse(events: MessagesStreamEvent[]): string {
  return events.map((event) => encodeSse({ event: event.type, data: JSON.stringify(event) })).join("");
}
function textBody(text: string): ReadableStream<Uint8Array> {
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
function rejectsWith(run: () => unknown, code: string, param?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GatewayError, String(error));
    assert.equal(error.code, code);
    if (param !== undefined) assert.equal(error.param, param);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Fixtures, shaped like the vendors' documented examples.

const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Anthropic's streamed tool-use example (https://docs.anthropic.com/en/docs/build-with-claude/streaming). */
const anthropicToolStream = [
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
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"location":' } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: ' "San Francisco, CA"' } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: ', "unit": "fahrenheit"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: "message_stop" },
];

const chunkBase = { id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", object: "chat.completion.chunk", created: 1741570283, model: "gpt-4o-2024-08-06", system_fingerprint: "fp_eb9dce56a8", service_tier: "default" };

/** OpenAI streaming text with stream_options.include_usage (https://platform.openai.com/docs/api-reference/chat-streaming). */
const openaiTextStream = [
  { ...chunkBase, choices: [{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: { content: "Hello" }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: { content: " there, friend." }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }], usage: null },
  {
    ...chunkBase,
    choices: [],
    usage: { prompt_tokens: 82, completion_tokens: 5, total_tokens: 87, prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
  },
];

/** OpenAI streaming two parallel tool calls after some text. */
const openaiToolStream = [
  { ...chunkBase, choices: [{ index: 0, delta: { role: "assistant", content: "Checking both.", refusal: null }, logprobs: null, finish_reason: null }], usage: null },
  {
    ...chunkBase,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", type: "function", function: { name: "get_weather", arguments: "" } }] }, logprobs: null, finish_reason: null }],
    usage: null,
  },
  { ...chunkBase, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"lo' } }] }, logprobs: null, finish_reason: null }], usage: null },
  { ...chunkBase, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'cation": "Paris"}' } }] }, logprobs: null, finish_reason: null }], usage: null },
  {
    ...chunkBase,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "call_7sEp2Kzn", type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Paris"}' } }] }, logprobs: null, finish_reason: null }],
    usage: null,
  },
  { ...chunkBase, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }], usage: null },
  { ...chunkBase, choices: [], usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 } },
];

// ---------------------------------------------------------------------------------------------
// chatRequestToMessages

test("chatRequestToMessages maps a full OpenAI request", () => {
  const body = chatRequestSchema.parse({
    model: "msg-sonnet-4-6",
    messages: [
      { role: "system", content: "You are a weather assistant." },
      { role: "developer", content: [{ type: "text", text: "Answer in Fahrenheit." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "What's the weather here?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: "high" } },
          { type: "image_url", image_url: { url: "https://example.com/sky.jpg" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
          { id: "call:2", type: "function", function: { name: "get_time", arguments: "" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18C, sunny" },
      { role: "tool", tool_call_id: "call:2", content: [{ type: "text", text: "14:05" }] },
      { role: "user", content: "Thanks! And tomorrow?" },
    ],
    max_completion_tokens: 300,
    max_tokens: 999,
    temperature: 1.5,
    top_p: 0.9,
    stop: "\n\nHuman:",
    stream: true,
    stream_options: { include_usage: true },
    user: "user-42",
    seed: 7,
    tools: [
      { type: "function", function: { name: "get_weather", description: "Weather for a place", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } } },
      { type: "function", function: { name: "get_time" } },
    ],
    tool_choice: "required",
    parallel_tool_calls: false,
  });

  assert.deepEqual(chatRequestToMessages(body, "claude-sonnet-4-6"), {
    model: "claude-sonnet-4-6",
    max_tokens: 300,
    system: "You are a weather assistant.\n\nAnswer in Fahrenheit.",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "What's the weather here?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
          { type: "image", source: { type: "url", url: "https://example.com/sky.jpg" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "call_1", name: "get_weather", input: { location: "Paris" } },
          { type: "tool_use", id: "call_2", name: "get_time", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "18C, sunny" },
          { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "14:05" }] },
          { type: "text", text: "Thanks! And tomorrow?" },
        ],
      },
    ],
    temperature: 1,
    stop_sequences: ["\n\nHuman:"],
    stream: true,
    metadata: { user_id: "user-42" },
    tools: [
      { name: "get_weather", description: "Weather for a place", input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } },
      { name: "get_time", input_schema: { type: "object", properties: {} } },
    ],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
  });
});

test("chatRequestToMessages defaults: 4096 max tokens, plain strings, top_p without temperature", () => {
  const body = chatRequestSchema.parse({
    model: "m",
    messages: [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "" },
      { role: "user", content: "Still there?" },
    ],
    top_p: 0.5,
    stop: ["END", "  "],
    tools: [{ type: "function", function: { name: "noop" } }],
    tool_choice: { type: "function", function: { name: "noop" } },
    response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" } } },
  });
  const request = chatRequestToMessages(body, "claude-haiku-4-5");
  assert.equal(request.max_tokens, 4096);
  // The empty assistant turn is dropped, and the two user turns merge.
  assert.deepEqual(request.messages, [{ role: "user", content: [{ type: "text", text: "Hi" }, { type: "text", text: "Still there?" }] }]);
  assert.equal(request.top_p, 0.5);
  assert.equal(request.temperature, undefined);
  assert.deepEqual(request.stop_sequences, ["END"]);
  assert.deepEqual(request.tool_choice, { type: "tool", name: "noop" });
  assert.deepEqual(request.output_config, { format: { type: "json_schema", schema: { type: "object" } } });
  assert.equal(request.stream, undefined);
  assert.equal(request.system, undefined);
});

test("chatRequestToMessages refuses what Anthropic cannot take, naming the field", () => {
  const base = { model: "m", messages: [{ role: "user", content: "Hi" }] };
  const convert = (body: unknown) => chatRequestToMessages(chatRequestSchema.parse(body), "claude");
  rejectsWith(() => convert({ ...base, n: 2 }), "invalid_request", "n");
  rejectsWith(
    () => convert({ ...base, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }] }),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () => convert({ ...base, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }] }),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () => convert({ ...base, messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }] }),
    "invalid_request",
    "messages[0].content[0].type",
  );
  rejectsWith(
    () => convert({ ...base, messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] }] }),
    "invalid_request",
    "messages[0].tool_calls[0].function.arguments",
  );
  rejectsWith(() => convert({ ...base, messages: [{ role: "tool", content: "x" }] }), "invalid_request", "messages[0].tool_call_id");
  rejectsWith(() => convert({ ...base, messages: [{ role: "user", content: "" }] }), "invalid_request", "messages");
  rejectsWith(() => convert({ ...base, tools: [{ type: "custom", custom: { name: "x" } }] }), "invalid_request", "tools[0].type");
});

test("chatRequestToMessages sends inline PDFs as documents", () => {
  const body = chatRequestSchema.parse({
    model: "m",
    messages: [{ role: "user", content: [{ type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0x" } }, { type: "text", text: "Summarize" }] }],
  });
  assert.deepEqual(chatRequestToMessages(body, "claude").messages[0]!.content, [
    { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" } },
    { type: "text", text: "Summarize" },
  ]);
});

// ---------------------------------------------------------------------------------------------
// messagesResponseToChat

const anthropicMessage = messagesResponseSchema.parse({
  id: "msg_01Aq9w938a90dw8q",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-6",
  content: [
    { type: "thinking", thinking: "The user wants weather.", signature: "sig" },
    { type: "text", text: "I'll look that up." },
    { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA", unit: "celsius" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 2095, cache_creation_input_tokens: 5, cache_read_input_tokens: 1000, output_tokens: 503 },
});

test("messagesResponseToChat maps content, tool calls, finish reason and usage", async () => {
  const completion = messagesResponseToChat(anthropicMessage, "msg-sonnet-4-6", { created: 1700000000 });
  assert.deepEqual(completion, {
    id: "chatcmpl-01Aq9w938a90dw8q",
    object: "chat.completion",
    created: 1700000000,
    model: "msg-sonnet-4-6",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "I'll look that up.",
          refusal: null,
          tool_calls: [{ id: "toolu_01A09q90qw90lq917835lq9", type: "function", function: { name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' } }],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 3100, completion_tokens: 503, total_tokens: 3603, prompt_tokens_details: { cached_tokens: 1000 }, completion_tokens_details: { reasoning_tokens: 0 } },
  });

  // The finish reasons a client switches on.
  const finish = (stop_reason: string) => messagesResponseToChat({ ...anthropicMessage, stop_reason }, "m").choices[0]!.finish_reason;
  assert.equal(finish("end_turn"), "stop");
  assert.equal(finish("stop_sequence"), "stop");
  assert.equal(finish("max_tokens"), "length");
  assert.equal(finish("refusal"), "content_filter");

  // The OpenAI SDK reads it like one of its own.
  const client = openaiClient(() => jsonResponse(completion));
  const read = await client.chat.completions.create({ model: "msg-sonnet-4-6", messages: [{ role: "user", content: "Weather?" }] });
  assert.equal(read.choices[0]!.message.content, "I'll look that up.");
  const call = read.choices[0]!.message.tool_calls![0]!;
  assert.ok(call.type === "function");
  assert.deepEqual(JSON.parse(call.function.arguments), { location: "San Francisco, CA", unit: "celsius" });
  assert.equal(read.usage!.total_tokens, 3603);
});

test("messagesResponseToChat: a reply of tool calls only has null content", () => {
  const completion = messagesResponseToChat({ ...anthropicMessage, content: anthropicMessage.content.slice(2) }, "m");
  assert.equal(completion.choices[0]!.message.content, null);
});

// ---------------------------------------------------------------------------------------------
// MessagesStreamToChat

test("MessagesStreamToChat turns Anthropic tool-use events into OpenAI chunks", () => {
  const converter = new MessagesStreamToChat({ publicModel: "msg-sonnet-4-6", created: 1700000000 });
  const chunks = anthropicToolStream.flatMap((event) => converter.push(event));
  const base = { id: "chatcmpl-014p7gG3wDgGV9EUtLvnow3U", object: "chat.completion.chunk", created: 1700000000, model: "msg-sonnet-4-6" };
  const chunk = (delta: object, finish_reason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
  assert.deepEqual(chunks, [
    chunk({ role: "assistant", content: "", refusal: null }),
    chunk({ content: "Okay" }),
    chunk({ content: ", let's check the weather for San Francisco, CA:" }),
    chunk({ tool_calls: [{ index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ' "San Francisco, CA"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ', "unit": "fahrenheit"}' } }] }),
    chunk({}, "tool_calls"),
  ]);
  assert.equal(converter.completed, true);
  // Input counts cache reads and writes too; output is message_delta's cumulative count.
  assert.deepEqual(converter.usage(), { inputTokens: 572, outputTokens: 89 });
});

test("MessagesStreamToChat adds usage: null and a final usage chunk when asked", () => {
  const converter = new MessagesStreamToChat({ publicModel: "m", includeUsage: true });
  const chunks = anthropicToolStream.flatMap((event) => converter.push(event));
  assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices.length === 1));
  const last = chunks.at(-1)!;
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, { prompt_tokens: 572, completion_tokens: 89, total_tokens: 661, prompt_tokens_details: { cached_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 0 } });
});

test("MessagesStreamToChat: upstream error events and malformed events throw upstream_error", () => {
  const converter = new MessagesStreamToChat({ publicModel: "m" });
  converter.push(anthropicToolStream[0]);
  rejectsWith(() => converter.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), "upstream_error");
  rejectsWith(() => converter.push({ type: "content_block_delta", delta: { type: "text_delta", text: "x" } }), "upstream_error");
  rejectsWith(() => new MessagesStreamToChat({ publicModel: "m" }).push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } }), "upstream_error");
  // Event types added later are ignored rather than fatal.
  assert.deepEqual(converter.push({ type: "content_block_citation_added", index: 0 }), []);
});

test("Anthropic SSE → readSseEvents → MessagesStreamToChat → the OpenAI SDK's ChatCompletionStream", async () => {
  const upstream = anthropicToolStream.map((event) => encodeSse({ event: event.type, data: JSON.stringify(event) })).join("");
  const converter = new MessagesStreamToChat({ publicModel: "msg-sonnet-4-6", includeUsage: true });
  let downstream = "";
  for await (const event of readSseEvents(textBody(upstream))) {
    for (const chunk of converter.push(JSON.parse(event.data))) downstream += encodeSse({ data: JSON.stringify(chunk) });
  }
  downstream += encodeSse({ data: "[DONE]" });

  const client = openaiClient(() => sseResponse(downstream));
  const stream = client.chat.completions.stream({ model: "msg-sonnet-4-6", messages: [{ role: "user", content: "Weather in SF?" }], stream_options: { include_usage: true } });
  const streamedText: string[] = [];
  stream.on("content", (delta) => streamedText.push(delta));
  const final = await stream.finalChatCompletion();
  assert.equal(streamedText.join(""), "Okay, let's check the weather for San Francisco, CA:");
  const message = final.choices[0]!.message;
  assert.equal(message.content, "Okay, let's check the weather for San Francisco, CA:");
  assert.equal(final.choices[0]!.finish_reason, "tool_calls");
  const call = message.tool_calls![0]!;
  assert.ok(call.type === "function");
  assert.equal(call.id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  assert.deepEqual(JSON.parse(call.function.arguments), { location: "San Francisco, CA", unit: "fahrenheit" });
  assert.equal(final.usage!.prompt_tokens, 572);
  assert.equal(final.usage!.completion_tokens, 89);
});

// ---------------------------------------------------------------------------------------------
// chatRequestFromMessages

test("chatRequestFromMessages maps a full Anthropic request", () => {
  const body = messagesRequestSchema.parse({
    model: "std-5.5",
    max_tokens: 1024,
    system: [{ type: "text", text: "You are terse." }, { type: "text", text: "Use metric units.", cache_control: { type: "ephemeral" } }],
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
          { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "18C" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } }] },
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
    tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { location: { type: "string" } } } }],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
  });

  assert.deepEqual(chatRequestFromMessages(body, "gpt-5.5"), {
    model: "gpt-5.5",
    messages: [
      { role: "system", content: "You are terse.\n\nUse metric units." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "Checking.", tool_calls: [{ id: "toolu_01", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } }] },
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
    tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { location: { type: "string" } } } } }],
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
  const withSystemTurn = messagesRequestSchema.parse({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "Hi" }, { role: "system", content: [{ type: "text", text: "Now be formal." }] }] });
  assert.deepEqual(chatRequestFromMessages(withSystemTurn, "gpt").messages, [
    { role: "user", content: "Hi" },
    { role: "system", content: "Now be formal." },
  ]);
  const convert = (extra: object) => chatRequestFromMessages(messagesRequestSchema.parse({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "Hi" }], ...extra }), "gpt");
  rejectsWith(() => convert({ tools: [{ type: "web_search_20250305", name: "web_search" }] }), "invalid_request", "tools[0].type");
  rejectsWith(() => convert({ messages: [{ role: "user", content: [{ type: "container_upload", file_id: "f" }] }] }), "invalid_request", "messages[0].content[0].type");
  rejectsWith(() => convert({ messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "f" } }] }] }), "invalid_request", "messages[0].content[0]");
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
  const stop = (finish_reason: string) => chatResponseToMessage({ ...openaiCompletion, choices: [{ ...openaiCompletion.choices[0]!, finish_reason }] }, "m").stop_reason;
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
  assert.deepEqual(perChunk[3]!.map((event) => event.type), ["content_block_stop"]);
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
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5, input_tokens: 18, cache_read_input_tokens: 64 } },
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
  const stream = client.messages.stream({ model: "std-5.5", max_tokens: 100, messages: [{ role: "user", content: "Weather and time in Paris?" }] });
  const final = await stream.finalMessage();
  assert.equal(final.stop_reason, "tool_use");
  assert.deepEqual(
    final.content.map((block) => (block.type === "text" ? block.text : block.type === "tool_use" ? [block.id, block.name, block.input] : block.type)),
    ["Checking both.", ["call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", { location: "Paris" }], ["call_7sEp2Kzn", "get_time", { tz: "Europe/Paris" }]],
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
  assert.deepEqual(closing.map((event) => event.type), ["message_delta", "message_stop"]);
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
  const events = converter.push({ ...chunkBase, choices: [{ index: 0, delta: {}, finish_reason: "length" }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
  assert.deepEqual(events.map((event) => event.type), ["content_block_stop", "message_delta", "message_stop"]);
  assert.deepEqual((events[1] as { delta: unknown }).delta, { stop_reason: "max_tokens", stop_sequence: null });
  assert.deepEqual(converter.push({ ...chunkBase, choices: [] }), [], "nothing after the message is closed");

  rejectsWith(() => new ChatStreamToMessages({ publicModel: "m" }).push({ error: { message: "rate limited", type: "rate_limit_error" } }), "upstream_error");
  rejectsWith(() => new ChatStreamToMessages({ publicModel: "m" }).push({ choices: "nope" }), "upstream_error");
});

// ---------------------------------------------------------------------------------------------
// Round trip

test("an OpenAI request survives a trip through Anthropic's format and back", () => {
  const original = chatRequestSchema.parse({
    model: "x",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: '{"q":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "18C" },
    ],
    max_completion_tokens: 77,
    stream: true,
  });
  const back = chatRequestFromMessages(messagesRequestSchema.parse(chatRequestToMessages(original, "claude")), "gpt");
  assert.deepEqual(back, {
    model: "gpt",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: '{"q":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "18C" },
    ],
    max_completion_tokens: 77,
    stream: true,
    stream_options: { include_usage: true },
  });
});
