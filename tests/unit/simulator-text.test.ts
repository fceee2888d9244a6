import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countChatRequestInputTokens, countMessagesInputTokens } from "@/lib/money/tokens";
import { encodeSse } from "@/lib/platform/sse";
import {
  simulateText,
  simulatorChatChunks,
  simulatorChatCompletion,
  simulatorMessage,
  simulatorMessageEvents,
} from "@/lib/providers/simulator/text";

function sseClient<T>(make: (fetch: () => Promise<Response>) => T, body: string): T {
  return make(async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }));
}
const anthropic = (fetch: () => Promise<Response>) =>
  new Anthropic({ apiKey: "sk-test", baseURL: "http://gateway.test", maxRetries: 0, fetch });
const openai = (fetch: () => Promise<Response>) =>
  new OpenAI({ apiKey: "sk-test", baseURL: "http://gateway.test/v1", maxRetries: 0, fetch });

const question = "How should an API gateway reserve quota before calling the upstream?";

test("simulateText is deterministic, marked, and answers the prompt", () => {
  const first = simulateText({ model: "std-5.5", promptText: question, maxTokens: 1000 });
  const again = simulateText({ model: "std-5.5", promptText: question, maxTokens: 1000 });
  assert.deepEqual(first, again);
  assert.ok(first.text.startsWith("(simulated) "));
  assert.ok(first.text.includes(`"${question}"`), "echoes the question");
  assert.ok(first.text.includes("simulator"), "says it is simulated");
  assert.ok(/gateway|reserve|upstream/.test(first.text.slice(question.length + 40)), "picks the prompt's topics");
  assert.equal(first.truncated, false);
  assert.equal(first.outputTokens, countTokens(first.text));
  assert.ok(first.outputTokens > 40 && first.outputTokens < 250, `${first.outputTokens} tokens is a realistic length`);
  assert.equal(first.inputTokens, countTokens(question));

  const other = simulateText({ model: "std-5.5", promptText: "Tell me about penguins and their habitats.", maxTokens: 1000 });
  assert.notEqual(other.text, first.text);
  assert.notEqual(
    simulateText({ model: "msg-opus-4-6", promptText: question, maxTokens: 1000 }).text,
    first.text,
    "the model is part of the seed",
  );
});

test("simulateText stops at max tokens and at stop sequences", () => {
  const cut = simulateText({ model: "m", promptText: question, maxTokens: 7 });
  assert.equal(cut.outputTokens, 7);
  assert.equal(cut.truncated, true);
  assert.equal(countTokens(cut.text), 7);
  assert.ok(simulateText({ model: "m", promptText: question, maxTokens: 1000 }).text.startsWith(cut.text));

  const stopped = simulateText({ model: "m", promptText: question, maxTokens: 1000, stop: ["simulator", "You"] });
  assert.equal(stopped.text, "(simulated) ");
  assert.equal(stopped.stopSequence, "You");
  assert.equal(stopped.truncated, false);

  // Multibyte text cut inside a character leaves no replacement character behind.
  for (let maxTokens = 8; maxTokens < 30; maxTokens++) {
    assert.ok(
      !simulateText({ model: "m", promptText: "请解释令牌桶限流算法的原理，以及它和漏桶算法的区别", maxTokens }).text.includes("\uFFFD"),
    );
  }
});

const chatBody = {
  model: "std-5.5",
  messages: [
    { role: "system", content: "You are helpful." },
    { role: "user", content: "Earlier question" },
    { role: "assistant", content: "Earlier answer" },
    {
      role: "user",
      content: [
        { type: "text", text: question },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
  ],
  max_tokens: 60,
};

test("simulatorChatCompletion: an OpenAI chat.completion with the request's usage", async () => {
  const completion = simulatorChatCompletion(chatBody, "std-5.5");
  assert.match(completion.id, /^chatcmpl-sim/);
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.model, "std-5.5");
  assert.equal(completion.system_fingerprint, "simulator");
  const expected = simulateText({ model: "std-5.5", promptText: question, maxTokens: 60 });
  assert.equal(completion.choices[0]!.message.content, expected.text);
  assert.equal(completion.choices[0]!.finish_reason, "length");
  assert.equal(completion.usage.prompt_tokens, countChatRequestInputTokens(chatBody));
  assert.equal(completion.usage.completion_tokens, 60);
  assert.equal(completion.usage.total_tokens, completion.usage.prompt_tokens + 60);
  assert.equal(simulatorChatCompletion({ ...chatBody, max_tokens: 4000 }, "std-5.5").choices[0]!.finish_reason, "stop");

  const client = openai(async () => new Response(JSON.stringify(completion), { headers: { "content-type": "application/json" } }));
  const read = await client.chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: question }] });
  assert.equal(read.choices[0]!.message.content, expected.text);
});

test("simulatorChatChunks: role, content pieces, finish, and usage only when asked", async () => {
  const plain = simulatorChatChunks(chatBody, "std-5.5");
  assert.deepEqual(plain[0]!.choices[0]!.delta, { role: "assistant", content: "", refusal: null });
  const middle = plain.slice(1, -1);
  assert.ok(middle.length >= 3, "several content chunks");
  for (const chunk of middle) {
    const content = chunk.choices[0]!.delta.content!;
    assert.ok(content.trim().split(/\s+/).length <= 3, `a few words: ${JSON.stringify(content)}`);
    assert.equal(chunk.choices[0]!.finish_reason, null);
  }
  assert.equal(
    middle.map((chunk) => chunk.choices[0]!.delta.content).join(""),
    simulatorChatCompletion(chatBody, "std-5.5").choices[0]!.message.content,
  );
  assert.deepEqual(plain.at(-1)!.choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "length" });
  assert.ok(plain.every((chunk) => !("usage" in chunk) && chunk.id === plain[0]!.id && chunk.system_fingerprint === "simulator"));

  const withUsage = simulatorChatChunks({ ...chatBody, stream_options: { include_usage: true } }, "std-5.5");
  assert.equal(withUsage.length, plain.length + 1);
  assert.ok(withUsage.slice(0, -1).every((chunk) => chunk.usage === null));
  assert.deepEqual(withUsage.at(-1)!.choices, []);
  assert.equal(withUsage.at(-1)!.usage!.completion_tokens, 60);

  // The OpenAI SDK's stream helper assembles the same completion.
  const sse = withUsage.map((chunk) => encodeSse({ data: JSON.stringify(chunk) })).join("") + encodeSse({ data: "[DONE]" });
  const final = await sseClient(openai, sse)
    .chat.completions.stream({ model: "std-5.5", messages: [{ role: "user", content: question }], stream_options: { include_usage: true } })
    .finalChatCompletion();
  assert.equal(final.choices[0]!.message.content, simulateText({ model: "std-5.5", promptText: question, maxTokens: 60 }).text);
  assert.equal(final.choices[0]!.finish_reason, "length");
  assert.equal(final.usage!.prompt_tokens, countChatRequestInputTokens(chatBody));
});

const messagesBody = {
  model: "msg-sonnet-4-6",
  max_tokens: 1024,
  system: "Answer plainly.",
  messages: [{ role: "user", content: [{ type: "text", text: question }] }],
};

test("simulatorMessage: an Anthropic message with msg_sim_ id and the request's usage", async () => {
  const message = simulatorMessage(messagesBody, "msg-sonnet-4-6");
  assert.match(message.id, /^msg_sim_/);
  assert.equal(message.type, "message");
  assert.equal(message.role, "assistant");
  const expected = simulateText({ model: "msg-sonnet-4-6", promptText: question, maxTokens: 1024 });
  assert.deepEqual(message.content, [{ type: "text", text: expected.text }]);
  assert.equal(message.stop_reason, "end_turn");
  assert.equal(message.stop_sequence, null);
  assert.equal(message.usage.input_tokens, countMessagesInputTokens(messagesBody));
  assert.equal(message.usage.output_tokens, expected.outputTokens);

  assert.equal(simulatorMessage({ ...messagesBody, max_tokens: 5 }, "m").stop_reason, "max_tokens");
  const stopped = simulatorMessage({ ...messagesBody, stop_sequences: ["This answer"] }, "m");
  assert.equal(stopped.stop_reason, "stop_sequence");
  assert.equal(stopped.stop_sequence, "This answer");

  const client = anthropic(async () => new Response(JSON.stringify(message), { headers: { "content-type": "application/json" } }));
  const read = await client.messages.create({ model: "msg-sonnet-4-6", max_tokens: 1024, messages: [{ role: "user", content: question }] });
  assert.equal(read.content[0]!.type === "text" && read.content[0]!.text, expected.text);
});

test("simulatorMessageEvents: Anthropic's streaming order, read back by the Anthropic SDK", async () => {
  const body = { ...messagesBody, max_tokens: 40 };
  const events = simulatorMessageEvents(body, "msg-sonnet-4-6");
  const names = events.map((event) => event.event);
  const deltas = names.filter((name) => name === "content_block_delta").length;
  assert.ok(deltas >= 3);
  assert.deepEqual(names, [
    "message_start",
    "content_block_start",
    "ping",
    ...Array(deltas).fill("content_block_delta"),
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.ok(events.every((event) => event.data.type === event.event));
  const start = events[0]!.data;
  assert.ok(start.type === "message_start");
  assert.match(start.message.id, /^msg_sim_/);
  assert.equal(start.message.usage.input_tokens, countMessagesInputTokens(body));
  const delta = events.at(-2)!.data;
  assert.ok(delta.type === "message_delta");
  assert.deepEqual(delta.delta, { stop_reason: "max_tokens", stop_sequence: null });
  assert.equal(delta.usage.output_tokens, 40);

  const sse = events.map((event) => encodeSse({ event: event.event, data: JSON.stringify(event.data) })).join("");
  const stream = sseClient(anthropic, sse).messages.stream({
    model: "msg-sonnet-4-6",
    max_tokens: 40,
    messages: [{ role: "user", content: question }],
  });
  const texts: string[] = [];
  stream.on("text", (text) => texts.push(text));
  const final = await stream.finalMessage();
  const expected = simulateText({ model: "msg-sonnet-4-6", promptText: question, maxTokens: 40 }).text;
  assert.equal(texts.join(""), expected);
  assert.equal(final.content[0]!.type === "text" && final.content[0]!.text, expected);
  assert.equal(final.stop_reason, "max_tokens");
  assert.equal(final.usage.output_tokens, 40);
  assert.equal(final.usage.input_tokens, countMessagesInputTokens(body));
});

test("a tool call stops at the output cap as a vendor's does: never more output than max_tokens, finish reason length", () => {
  const parameters = {
    type: "object",
    properties: Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`field_${index}`, { type: "string" }])),
  };
  const chat = {
    messages: [{ role: "user", content: "fill the form" }],
    max_completion_tokens: 40,
    tools: [{ type: "function", function: { name: "fill", parameters } }],
    tool_choice: "required",
  };
  const completion = simulatorChatCompletion(chat as never, "std-5.5");
  assert.ok(completion.usage.completion_tokens <= 40, `${completion.usage.completion_tokens} tokens`);
  assert.equal(completion.choices[0]!.finish_reason, "length");
  const written = completion.choices[0]!.message.tool_calls![0]!.function.arguments;
  assert.ok(written.startsWith('{"field_0"') && !written.endsWith("}"), "the arguments end where the cap stopped them");
  const chunks = simulatorChatChunks({ ...chat, stream_options: { include_usage: true } } as never, "std-5.5");
  assert.ok(chunks.at(-1)!.usage!.completion_tokens <= 40);
  assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, "length");

  const messages = {
    max_tokens: 40,
    messages: [{ role: "user", content: "fill the form" }],
    tools: [{ name: "fill", input_schema: parameters }],
    tool_choice: { type: "any" },
  };
  const message = simulatorMessage(messages as never, "msg-sonnet-4-6");
  assert.ok(message.usage.output_tokens <= 40);
  assert.equal(message.stop_reason, "max_tokens");
  const events = simulatorMessageEvents(messages as never, "msg-sonnet-4-6");
  const delta = events.find((event) => event.event === "message_delta")!.data as {
    usage: { output_tokens: number };
    delta: { stop_reason: string };
  };
  assert.ok(delta.usage.output_tokens <= 40);
  assert.equal(delta.delta.stop_reason, "max_tokens");

  // Within the cap, the whole call as before.
  const roomy = simulatorChatCompletion({ ...chat, max_completion_tokens: 4000 } as never, "std-5.5");
  assert.equal(roomy.choices[0]!.finish_reason, "tool_calls");
  assert.equal(Object.keys(JSON.parse(roomy.choices[0]!.message.tool_calls![0]!.function.arguments)).length, 60);
});
