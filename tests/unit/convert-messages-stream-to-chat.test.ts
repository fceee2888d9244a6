// A Messages upstream's stream given to a Chat client (lib/dialects/convert/messages-stream-to-chat.ts), read back
// by the official openai SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeSse, readSseEvents } from "@/lib/platform/sse";
import { MessagesStreamToChat } from "@/lib/dialects/convert/messages-stream-to-chat";
import { sseResponse, openaiClient, textBody, rejectsWith, anthropicToolStream } from "../helpers/convert-fixtures";

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
