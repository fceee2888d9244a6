// Messages to Chat Completions (lib/dialects/convert/messages-to-chat.ts): a Messages request served by a Chat
// upstream, and a Messages upstream's message given to a Chat client, read back by the official openai SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestFromMessages, messagesResponseToChat } from "@/lib/dialects/convert/messages-to-chat";
import { messagesRequestSchema, messagesResponseSchema } from "@/lib/dialects/messages/wire";
import { jsonResponse, openaiClient, rejectsWith, PNG_BASE64 } from "../helpers/convert-fixtures";

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
// messagesResponseToChat

const anthropicMessage = messagesResponseSchema.parse({
  id: "msg_01Aq9w938a90dw8q",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-6",
  content: [
    { type: "thinking", thinking: "The user wants weather.", signature: "sig" },
    { type: "text", text: "I'll look that up." },
    {
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { location: "San Francisco, CA", unit: "celsius" },
    },
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
          tool_calls: [
            {
              id: "toolu_01A09q90qw90lq917835lq9",
              type: "function",
              function: { name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 3100,
      completion_tokens: 503,
      total_tokens: 3603,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
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
// Round trip
