// Converse to Chat Completions (lib/dialects/converse/converse-to-chat.ts): a Bedrock Converse answer, whole or
// streamed, given to a Chat client, read back by the official openai SDK. The Converse answers are the fake
// Bedrock's own (tests/fakes/bedrock-wire.ts), streams decoded from its event-stream frames as the relay will.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeSse } from "@/lib/platform/sse";
import { chatCompletionChunkSchema, chatCompletionSchema, type ChatCompletionChunk } from "@/lib/dialects/chat/wire";
import { ConverseStreamToChat, converseFinishReason, converseResponseToChat } from "@/lib/dialects/converse/converse-to-chat";
import { type BedrockUsage, converseBody, converseEvents, converseFrame, decodeFrames, exceptionFrame } from "../fakes/bedrock-wire.ts";
import { jsonResponse, openaiClient, rejectsWith, sseResponse } from "../helpers/convert-fixtures";

/** Non-round, with cache reads and writes, so a sum that leaves one out cannot pass. */
const cachedUsage: BedrockUsage = { input: 1237, output: 389, cacheRead: 2113, cacheWrite: 517 };
const toolCall = { id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { location: "Paris", unit: "celsius" } };

/** The fake's stream as the relay will see it: frames decoded, each payload (with its `p` padding) and `:event-type`. */
function framesOf(events: [string, unknown][]): { type: string; body: unknown }[] {
  const bytes = Buffer.concat(events.map(([type, body], index) => converseFrame(type, body, index)));
  return decodeFrames(bytes).map((frame) => ({ type: String(frame.headers[":event-type"]), body: frame.body }));
}

function run(converter: ConverseStreamToChat, events: [string, unknown][]): ChatCompletionChunk[] {
  return framesOf(events).flatMap((frame) => converter.push(frame.body, frame.type));
}

// ---------------------------------------------------------------------------------------------
// Whole answers

test("converseResponseToChat: text and a tool call, usage with cache reads and writes", async () => {
  const { completion, usage } = converseResponseToChat(
    converseBody({ text: "Let me check.", toolCall, usage: cachedUsage }),
    "bedrock-sonnet",
  );
  // Bedrock's inputTokens leaves the cache out: fresh input, reads and writes are three parts.
  assert.deepEqual(usage, { inputTokens: 1237, outputTokens: 389, cacheReadTokens: 2113, cacheWriteTokens: 517 });
  assert.match(completion.id, /^chatcmpl-/);
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.model, "bedrock-sonnet");
  assert.deepEqual(completion.choices, [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Let me check.",
        refusal: null,
        tool_calls: [
          { id: toolCall.id, type: "function", function: { name: "get_weather", arguments: '{"location":"Paris","unit":"celsius"}' } },
        ],
      },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ]);
  // The client's prompt_tokens counts every input token; the cache reads are its cached_tokens.
  assert.deepEqual(completion.usage, {
    prompt_tokens: 3867,
    completion_tokens: 389,
    total_tokens: 4256,
    prompt_tokens_details: { cached_tokens: 2113 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
  assert.ok(chatCompletionSchema.safeParse(completion).success);

  const read = await openaiClient(() => jsonResponse(completion)).chat.completions.create({
    model: "bedrock-sonnet",
    messages: [{ role: "user", content: "Weather in Paris?" }],
  });
  assert.equal(read.choices[0]!.message.content, "Let me check.");
  const call = read.choices[0]!.message.tool_calls![0]!;
  assert.ok(call.type === "function");
  assert.deepEqual(JSON.parse(call.function.arguments), toolCall.input);
  assert.equal(read.usage!.prompt_tokens, 3867);
  assert.equal(read.usage!.prompt_tokens_details!.cached_tokens, 2113);
});

test("converseResponseToChat: only tool calls give null content; no cache fields leave the cache parts unreported", () => {
  const body = converseBody({ text: "", toolCall, usage: { input: 1237, output: 389 } });
  const { completion, usage } = converseResponseToChat(body, "m");
  assert.equal(completion.choices[0]!.message.content, null);
  assert.deepEqual(usage, { inputTokens: 1237, outputTokens: 389 });
  assert.equal(completion.usage.prompt_tokens, 1237);
  assert.equal(completion.usage.prompt_tokens_details!.cached_tokens, 0);
});

test("converseResponseToChat: reasoning goes to reasoning_content, its signature does not", () => {
  const body = {
    output: {
      message: {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "The user wants 17 × 23. ", signature: "EqQBCkYIBxgCKkB…" } } },
          { reasoningContent: { reasoningText: { text: "That is 391." } } },
          { reasoningContent: { redactedContent: "c2VjcmV0" } },
          { text: "17 × 23 = 391." },
        ],
      },
    },
    stopReason: "end_turn",
    usage: { inputTokens: 57, outputTokens: 213, totalTokens: 270 },
    metrics: { latencyMs: 2211 },
  };
  const { completion } = converseResponseToChat(body, "m");
  const message = completion.choices[0]!.message as { content: string | null; reasoning_content?: string };
  assert.equal(message.content, "17 × 23 = 391.");
  assert.equal(message.reasoning_content, "The user wants 17 × 23. That is 391.");
  assert.ok(!JSON.stringify(completion).includes("EqQBCkYIBxgCKkB"));
  assert.ok(chatCompletionSchema.safeParse(completion).success);
});

test("converseResponseToChat: an answer without usage is given without it, and reports nothing", async () => {
  const { completion, usage } = converseResponseToChat(converseBody({ text: "Hi.", usage: null }), "m");
  assert.deepEqual(usage, {});
  assert.ok(!("usage" in completion));
  const read = await openaiClient(() => jsonResponse(completion)).chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(read.choices[0]!.message.content, "Hi.");
});

test("converseResponseToChat maps every stopReason", () => {
  const expected: Record<string, string> = {
    end_turn: "stop",
    stop_sequence: "stop",
    max_tokens: "length",
    model_context_window_exceeded: "length",
    tool_use: "tool_calls",
    guardrail_intervened: "content_filter",
    content_filtered: "content_filter",
    malformed_model_output: "stop",
    malformed_tool_use: "stop",
    a_reason_added_later: "stop",
  };
  for (const [stopReason, finishReason] of Object.entries(expected)) {
    assert.equal(converseFinishReason(stopReason), finishReason, stopReason);
    const body = { ...converseBody({ text: "x", usage: null }), stopReason };
    assert.equal(converseResponseToChat(body, "m").completion.choices[0]!.finish_reason, finishReason, stopReason);
  }
});

test("converseResponseToChat: a malformed answer is the upstream's fault", () => {
  for (const body of [
    null,
    "text",
    {},
    { output: {} },
    { output: { message: { content: "x" } } },
    { ...converseBody({ text: "x", usage: null }), usage: { inputTokens: -1 } },
  ]) {
    rejectsWith(() => converseResponseToChat(body, "m"), "upstream_error");
  }
});

// ---------------------------------------------------------------------------------------------
// Streams

test("ConverseStreamToChat turns the fake's text and tool-use stream into OpenAI chunks", () => {
  const converter = new ConverseStreamToChat({ publicModel: "bedrock-sonnet", created: 1700000000 });
  const chunks = run(converter, converseEvents({ text: "Let me check the weather.", toolCall, usage: cachedUsage }));
  const id = chunks[0]!.id;
  assert.match(id, /^chatcmpl-/);
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created: 1700000000,
    model: "bedrock-sonnet",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  });
  const json = JSON.stringify(toolCall.input);
  const half = Math.ceil(json.length / 2);
  assert.deepEqual(chunks, [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: "Let " }),
    chunk({ content: "me " }),
    chunk({ content: "check " }),
    chunk({ content: "the " }),
    chunk({ content: "weather." }),
    chunk({ tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: "get_weather", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(half) } }] }),
    chunk({}, "tool_calls"),
  ]);
  for (const sent of chunks) assert.ok(chatCompletionChunkSchema.safeParse(sent).success);
  assert.equal(converter.complete, true);
  assert.deepEqual(converter.usage, { inputTokens: 1237, outputTokens: 389, cacheReadTokens: 2113, cacheWriteTokens: 517 });
  assert.deepEqual(converter.finish(), [
    {
      ...chunk({}),
      choices: [],
      usage: {
        prompt_tokens: 3867,
        completion_tokens: 389,
        total_tokens: 4256,
        prompt_tokens_details: { cached_tokens: 2113 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    },
  ]);
});

test("ConverseStreamToChat gives each tool its own index, and reasoning as reasoning_content", () => {
  const converter = new ConverseStreamToChat({ publicModel: "m" });
  const chunks = run(converter, [
    ["messageStart", { role: "assistant" }],
    ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "Two cities, " } } }],
    ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "two calls." } } }],
    ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: "EqQBCkYIBxgCKkB" } } }],
    ["contentBlockStop", { contentBlockIndex: 0 }],
    ["contentBlockStart", { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tooluse_a", name: "get_weather" } } }],
    ["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: '{"location":"Paris"}' } } }],
    ["contentBlockStop", { contentBlockIndex: 1 }],
    ["contentBlockStart", { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_b", name: "get_weather" } } }],
    ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: "" } } }],
    ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '{"location":"Oslo"}' } } }],
    ["contentBlockStop", { contentBlockIndex: 2 }],
    ["messageStop", { stopReason: "tool_use" }],
    ["metadata", { usage: { inputTokens: 431, outputTokens: 157, totalTokens: 588 }, metrics: { latencyMs: 1873 } }],
  ]);
  assert.deepEqual(
    chunks.map((sent) => sent.choices[0]!.delta),
    [
      { role: "assistant", content: "" },
      { reasoning_content: "Two cities, " },
      { reasoning_content: "two calls." },
      { tool_calls: [{ index: 0, id: "tooluse_a", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"location":"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: "tooluse_b", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"location":"Oslo"}' } }] },
      {},
    ],
  );
  assert.ok(!JSON.stringify(chunks).includes("EqQBCkYIBxgCKkB"));
  assert.equal(converter.complete, true);
  assert.deepEqual(converter.usage, { inputTokens: 431, outputTokens: 157 });
});

test("ConverseStreamToChat: a guardrail that stopped the answer is content_filter", () => {
  const converter = new ConverseStreamToChat({ publicModel: "m" });
  const events = converseEvents({ text: "Sorry", usage: { input: 12, output: 3 } }).map(([type, body]): [string, unknown] =>
    type === "messageStop" ? [type, { stopReason: "guardrail_intervened" }] : [type, body],
  );
  assert.equal(run(converter, events).at(-1)!.choices[0]!.finish_reason, "content_filter");
  assert.equal(converter.complete, true);
});

test("ConverseStreamToChat: complete only once metadata arrived after messageStop", () => {
  const events = converseEvents({ text: "Hello there, friend.", usage: cachedUsage });
  const stopAt = events.findIndex(([type]) => type === "messageStop");

  // Cut before messageStop: not complete, nothing reported.
  const early = new ConverseStreamToChat({ publicModel: "m" });
  run(early, events.slice(0, stopAt));
  assert.equal(early.complete, false);
  assert.deepEqual(early.usage, {});

  // Cut after messageStop, before metadata: the finish chunk went, but the answer is not complete.
  const late = new ConverseStreamToChat({ publicModel: "m" });
  const chunks = run(late, events.slice(0, stopAt + 1));
  assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, "stop");
  assert.equal(late.complete, false);
  assert.deepEqual(late.usage, {});

  // metadata without usage: complete, and no usage chunk.
  const unreported = new ConverseStreamToChat({ publicModel: "m" });
  run(unreported, converseEvents({ text: "Hi.", usage: null }));
  assert.equal(unreported.complete, true);
  assert.deepEqual(unreported.usage, {});
  assert.deepEqual(unreported.finish(), []);
});

test("ConverseStreamToChat: exception events throw upstream_error naming only their type", () => {
  for (const type of ["throttlingException", "modelStreamErrorException", "validationException", "internalServerException"]) {
    const converter = new ConverseStreamToChat({ publicModel: "m" });
    run(converter, converseEvents({ text: "Hello there", usage: null }).slice(0, 2));
    const [frame] = decodeFrames(exceptionFrame(type, { message: "Account 123456789012 is over its quota in us-east-1." }));
    assert.throws(
      () => converter.push(frame!.body, String(frame!.headers[":exception-type"])),
      (error: Error & { code?: string }) =>
        error.code === "upstream_error" && error.message.includes(type) && !error.message.includes("123456789012"),
    );
  }
});

test("ConverseStreamToChat: malformed events are the upstream's fault; unknown event types are ignored", () => {
  const started = () => {
    const converter = new ConverseStreamToChat({ publicModel: "m" });
    converter.push({ role: "assistant" }, "messageStart");
    return converter;
  };
  rejectsWith(() => started().push({ contentBlockIndex: 0, delta: { text: "x" } }), "upstream_error");
  rejectsWith(() => started().push({ contentBlockIndex: 0 }, "contentBlockDelta"), "upstream_error");
  rejectsWith(() => started().push({ delta: { text: "x" } }, "contentBlockDelta"), "upstream_error");
  rejectsWith(() => started().push({}, "messageStop"), "upstream_error");
  rejectsWith(() => started().push({ usage: { inputTokens: "many" } }, "metadata"), "upstream_error");
  rejectsWith(() => started().push({ contentBlockIndex: 3, delta: { toolUse: { input: "{}" } } }, "contentBlockDelta"), "upstream_error");
  rejectsWith(
    () => new ConverseStreamToChat({ publicModel: "m" }).push({ contentBlockIndex: 0, delta: { text: "x" } }, "contentBlockDelta"),
    "upstream_error",
  );
  assert.deepEqual(started().push({ contentBlockIndex: 0, start: { image: { format: "png" } } }, "contentBlockStart"), []);
  assert.deepEqual(started().push({ anything: true }, "someEventAddedLater"), []);
});

test("Converse frames → ConverseStreamToChat → the OpenAI SDK's ChatCompletionStream", async () => {
  const converter = new ConverseStreamToChat({ publicModel: "bedrock-sonnet" });
  let downstream = "";
  for (const sent of run(converter, converseEvents({ text: "Let me check the weather.", toolCall, usage: cachedUsage })))
    downstream += encodeSse({ data: JSON.stringify(sent) });
  assert.equal(converter.complete, true);
  for (const sent of converter.finish()) downstream += encodeSse({ data: JSON.stringify(sent) });
  downstream += encodeSse({ data: "[DONE]" });

  const stream = openaiClient(() => sseResponse(downstream)).chat.completions.stream({
    model: "bedrock-sonnet",
    messages: [{ role: "user", content: "Weather in Paris?" }],
    stream_options: { include_usage: true },
  });
  const streamedText: string[] = [];
  stream.on("content", (delta) => streamedText.push(delta));
  const final = await stream.finalChatCompletion();
  assert.equal(streamedText.join(""), "Let me check the weather.");
  assert.equal(final.choices[0]!.finish_reason, "tool_calls");
  const call = final.choices[0]!.message.tool_calls![0]!;
  assert.ok(call.type === "function");
  assert.equal(call.id, toolCall.id);
  assert.deepEqual(JSON.parse(call.function.arguments), toolCall.input);
  assert.equal(final.usage!.prompt_tokens, 3867);
  assert.equal(final.usage!.completion_tokens, 389);
  assert.equal(final.usage!.prompt_tokens_details!.cached_tokens, 2113);
});
