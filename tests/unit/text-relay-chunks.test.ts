// How the text relay (lib/providers/text-relay.ts) reads an upstream's chunks through the dialects' lenient schemas
// (lib/dialects/chat/wire.ts, lib/dialects/messages/wire.ts): fields it does not know go to the client as they came,
// a chunk of the wrong shape ends the stream as the upstream's fault, and a usage count the upstream left out is not
// read as zero.
import { test } from "node:test";
import assert from "node:assert/strict";
import { relayText, type TextDialect } from "@/lib/providers/text-relay";
import type { DirectResponse } from "@/lib/platform/http/direct-body";
import type { TextCall, UsageReport } from "@/lib/providers/types";
import type { Channel } from "@/lib/channels";

function call(): TextCall {
  return {
    channel: { settings: {} } as unknown as Channel,
    publicModel: "public",
    upstreamModel: "up",
    longContext: false,
    body: {},
    stream: true,
    outputCap: 1000,
    bodyBytes: 2,
    includeUsage: true,
    headers: new Headers(),
    signal: new AbortController().signal,
    inputTokens: 42,
  };
}

function body(events: string[]): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(events.join(""));
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

async function relay(upstream: TextDialect, client: TextDialect, events: string[]): Promise<{ text: string; usage: UsageReport }> {
  const outcome = await relayText(call(), upstream, client, { stream: true, body: body(events), abort: new AbortController() });
  assert.ok(outcome.ok);
  let text = "";
  for (const part of (outcome.response as DirectResponse).parts) {
    if (typeof part === "string") text += part;
    else if (part instanceof Uint8Array) text += Buffer.from(part).toString();
    else for await (const piece of part) text += typeof piece === "string" ? piece : Buffer.from(piece).toString();
  }
  return { text, usage: await outcome.usage };
}

const chunk = (choices: unknown, extra: Record<string, unknown> = {}) => ({
  id: "c",
  object: "chat.completion.chunk",
  model: "up",
  choices,
  ...extra,
});

test("chat: unknown fields reach the client as they came; usage without prompt_tokens leaves the input to the gateway's count", async () => {
  const { text, usage } = await relay("chat", "chat", [
    sse(chunk([{ index: 0, delta: { content: "Hi", vendor_hint: { a: [1, 2] } }, finish_reason: null, logprobs: null }], { x_vendor: 7 })),
    sse(chunk([{ index: 0, delta: {}, finish_reason: "stop" }])),
    sse(chunk([], { usage: { completion_tokens: 3 } })),
    sse("[DONE]"),
  ]);
  const first = JSON.parse(text.split("\n\n")[0]!.slice("data: ".length));
  assert.deepEqual(first, {
    id: "c",
    object: "chat.completion.chunk",
    model: "public",
    choices: [{ index: 0, delta: { content: "Hi", vendor_hint: { a: [1, 2] } }, finish_reason: null, logprobs: null }],
    x_vendor: 7,
  });
  assert.equal(usage.complete, true);
  assert.equal(usage.outputTokens, 3);
  assert.equal(usage.inputTokens, 42, "no prompt_tokens reported: the reservation's count, not 0");
});

test("chat: a chunk whose choices are not a list ends the stream as the upstream's fault, in the client's dialect", async () => {
  const { text, usage } = await relay("chat", "chat", [
    sse(chunk([{ index: 0, delta: { content: "Hi" }, finish_reason: null }])),
    sse(chunk("nope")),
    sse("[DONE]"),
  ]);
  assert.equal(usage.complete, false);
  assert.match(usage.error ?? "", /malformed chat completion chunk/);
  assert.match(text, /"error":\{[^}]*malformed chat completion chunk/);
});

test("messages: an event type the schemas do not know goes on byte for byte; a known event of the wrong shape is refused", async () => {
  const start = { type: "message_start", message: { id: "m", model: "up", content: [], usage: { input_tokens: 5, output_tokens: 1 } } };
  const future = '{"type":"future_event","payload":{"z":1,"a":2}}';
  const whole = await relay("messages", "messages", [
    sse(start, "message_start"),
    sse(future, "future_event"),
    sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 4 } }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ]);
  assert.ok(whole.text.includes(`event: future_event\ndata: ${future}\n\n`));
  assert.equal(whole.usage.complete, true);
  assert.equal(whole.usage.inputTokens, 5);
  assert.equal(whole.usage.outputTokens, 4);

  const broken = await relay("messages", "messages", [
    sse(start, "message_start"),
    sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: "four" } }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ]);
  assert.equal(broken.usage.complete, false);
  assert.match(broken.usage.error ?? "", /malformed Messages event \(message_delta\)/);
});
