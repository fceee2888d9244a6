// A Chat Completions request served by an Anthropic upstream (lib/providers/anthropic/convert/chat-to-messages.ts):
// the request, the message and its stream converted, read back by the official openai SDK; and a round trip.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeSse, readSseEvents } from "@/lib/platform/sse";
import { chatRequestFromMessages } from "@/lib/providers/anthropic/convert/messages-to-chat";
import { MessagesStreamToChat, chatRequestToMessages, messagesResponseToChat } from "@/lib/providers/anthropic/convert/chat-to-messages";
import { chatRequestSchema } from "@/lib/wire/openai-chat";
import { messagesRequestSchema, messagesResponseSchema } from "@/lib/wire/anthropic-messages";
import {
  sseResponse,
  jsonResponse,
  openaiClient,
  textBody,
  rejectsWith,
  PNG_BASE64,
  anthropicToolStream,
} from "../helpers/convert-fixtures";

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
// MessagesStreamToChat

test("MessagesStreamToChat turns Anthropic tool-use events into OpenAI chunks", () => {
  const converter = new MessagesStreamToChat({ publicModel: "msg-sonnet-4-6", created: 1700000000 });
  const chunks = anthropicToolStream.flatMap((event) => converter.push(event));
  const base = { id: "chatcmpl-014p7gG3wDgGV9EUtLvnow3U", object: "chat.completion.chunk", created: 1700000000, model: "msg-sonnet-4-6" };
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  });
  assert.deepEqual(chunks, [
    chunk({ role: "assistant", content: "", refusal: null }),
    chunk({ content: "Okay" }),
    chunk({ content: ", let's check the weather for San Francisco, CA:" }),
    chunk({
      tool_calls: [{ index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: "" } }],
    }),
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
  assert.deepEqual(last.usage, {
    prompt_tokens: 572,
    completion_tokens: 89,
    total_tokens: 661,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
});

test("MessagesStreamToChat: upstream error events and malformed events throw upstream_error", () => {
  const converter = new MessagesStreamToChat({ publicModel: "m" });
  converter.push(anthropicToolStream[0]);
  rejectsWith(() => converter.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), "upstream_error");
  rejectsWith(() => converter.push({ type: "content_block_delta", delta: { type: "text_delta", text: "x" } }), "upstream_error");
  rejectsWith(
    () =>
      new MessagesStreamToChat({ publicModel: "m" }).push({
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "x" },
      }),
    "upstream_error",
  );
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
  const stream = client.chat.completions.stream({
    model: "msg-sonnet-4-6",
    messages: [{ role: "user", content: "Weather in SF?" }],
    stream_options: { include_usage: true },
  });
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
