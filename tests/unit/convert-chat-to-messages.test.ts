// Chat Completions to Messages (lib/dialects/convert/chat-to-messages.ts): a Chat request served by a Messages
// upstream, and a Chat upstream's completion given to a Messages client, read back by the official Anthropic SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestFromMessages } from "@/lib/dialects/convert/messages-to-chat";
import { chatRequestToMessages, chatResponseToMessage } from "@/lib/dialects/convert/chat-to-messages";
import { chatRequestSchema, chatCompletionSchema } from "@/lib/dialects/chat/wire";
import { messagesRequestSchema } from "@/lib/dialects/messages/wire";
import { jsonResponse, rejectsWith, PNG_BASE64, anthropicClient } from "../helpers/convert-fixtures";

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
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a place",
          parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
        },
      },
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
      {
        name: "get_weather",
        description: "Weather for a place",
        input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
      },
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
  assert.deepEqual(request.messages, [
    {
      role: "user",
      content: [
        { type: "text", text: "Hi" },
        { type: "text", text: "Still there?" },
      ],
    },
  ]);
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
    () =>
      convert({
        ...base,
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }],
      }),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () => convert({ ...base, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }] }),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () =>
      convert({ ...base, messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }] }),
    "invalid_request",
    "messages[0].content[0].type",
  );
  rejectsWith(
    () =>
      convert({
        ...base,
        messages: [
          { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] },
        ],
      }),
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
    messages: [
      {
        role: "user",
        content: [
          { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0x" } },
          { type: "text", text: "Summarize" },
        ],
      },
    ],
  });
  assert.deepEqual(chatRequestToMessages(body, "claude").messages[0]!.content, [
    { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" } },
    { type: "text", text: "Summarize" },
  ]);
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
// chatRequestFromMessages

test("an OpenAI request survives a trip through Anthropic's format and back", () => {
  const original = chatRequestSchema.parse({
    model: "x",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: '{"q":"Paris"}' } }],
      },
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
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "w", arguments: '{"q":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "18C" },
    ],
    max_completion_tokens: 77,
    stream: true,
    stream_options: { include_usage: true },
  });
});
