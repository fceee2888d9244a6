// The money rules of the text relay (lib/providers/text-relay.ts, docs/billing.md "What a cut or unreported answer
// costs") over random upstream streams of mixed delta kinds, in both upstream dialects and both client dialects, cut at
// random points (the upstream ends cleanly mid-stream, its body breaks, or the client leaves): the output charged is
// never below what the meter counts in what the client received (up to the cap sent), never above the cap the
// reservation was made for, and exactly the upstream's report for a complete stream that reported usage.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { relayText, type TextDialect } from "@/lib/providers/text-relay";
import { OutputMeter } from "@/lib/money/meter";
import { readSseEvents } from "@/lib/platform/sse";
import type { DirectResponse } from "@/lib/platform/http/direct-body";
import type { TextCall, UsageReport } from "@/lib/providers/types";
import type { Channel } from "@/lib/channels";

type Delta = { kind: string; text: string };

const CHAT_KINDS = ["content", "tool", "reasoning_content", "refusal", "audio", "future"] as const;
const MESSAGES_KINDS = ["text", "tool_use", "thinking", "citation", "future"] as const;

// Pieces mix scripts, emoji and JSON punctuation; splitting by UTF-16 unit also makes lone surrogates, as a broken upstream may send.
const piece = fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom(...'abc xyz 的 😀 {}":,'.split("")) });

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** A chat upstream's events: a role chunk, the deltas, a finish chunk, usage when reported, [DONE]. */
function chatStream(deltas: Delta[], reported: number | null): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse(undefined, { id: "c", object: "chat.completion.chunk", model: "up", choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: "assistant", content: "" })];
  let toolStarted = false;
  for (const { kind, text } of deltas) {
    if (kind === "tool") {
      const call = toolStarted
        ? { index: 0, function: { arguments: text } }
        : { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: text } };
      toolStarted = true;
      events.push(chunk({ tool_calls: [call] }));
    } else if (kind === "audio") events.push(chunk({ audio: { id: "a", transcript: text } }));
    else if (kind === "future") events.push(chunk({ future_field: { value: text } }));
    else events.push(chunk({ [kind]: text }));
  }
  events.push(chunk({}, "stop"));
  if (reported !== null)
    events.push(
      sse(undefined, {
        id: "c",
        object: "chat.completion.chunk",
        model: "up",
        choices: [],
        usage: { prompt_tokens: 9, completion_tokens: reported },
      }),
    );
  events.push(sse(undefined, "[DONE]"));
  return events;
}

/** A Messages upstream's events: message_start, one block per run of a kind, message_delta with usage, message_stop. */
function messagesStream(deltas: Delta[], reported: number | null): string[] {
  const events = [
    sse("message_start", {
      type: "message_start",
      message: { id: "m", model: "up", content: [], usage: { input_tokens: 9, output_tokens: 1 } },
    }),
  ];
  let index = -1;
  let open: string | null = null;
  for (const { kind, text } of deltas) {
    if (kind !== open) {
      if (open !== null) events.push(sse("content_block_stop", { type: "content_block_stop", index }));
      index++;
      open = kind;
      const block =
        kind === "tool_use"
          ? { type: "tool_use", id: "t", name: "f", input: {} }
          : kind === "thinking"
            ? { type: "thinking", thinking: "" }
            : kind === "future"
              ? { type: "future_block" }
              : { type: "text", text: "" };
      events.push(sse("content_block_start", { type: "content_block_start", index, content_block: block }));
    }
    const delta =
      kind === "tool_use"
        ? { type: "input_json_delta", partial_json: text }
        : kind === "thinking"
          ? { type: "thinking_delta", thinking: text }
          : kind === "citation"
            ? { type: "citations_delta", citation: { type: "char_location", cited_text: text } }
            : kind === "future"
              ? { type: "future_delta", value: text }
              : { type: "text_delta", text };
    events.push(sse("content_block_delta", { type: "content_block_delta", index, delta }));
  }
  if (open !== null) events.push(sse("content_block_stop", { type: "content_block_stop", index }));
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: reported === null ? {} : { output_tokens: reported },
    }),
  );
  events.push(sse("message_stop", { type: "message_stop" }));
  return events;
}

type Ending =
  | { kind: "whole" }
  | { kind: "clean-cut"; at: number }
  | { kind: "broken"; at: number }
  | { kind: "client-leaves"; after: number };

function upstreamBody(text: string, ending: Ending): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  const at = ending.kind === "clean-cut" || ending.kind === "broken" ? Math.floor(ending.at * bytes.length) : bytes.length;
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (!sent) {
        sent = true;
        // In a few pieces, so events also arrive split.
        for (let start = 0; start < at; start += 97) controller.enqueue(bytes.subarray(start, Math.min(at, start + 97)));
        return;
      }
      if (ending.kind === "broken") controller.error(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      else controller.close();
    },
  });
}

function call(cap: number, includeUsage: boolean): TextCall {
  return {
    channel: { settings: {} } as unknown as Channel,
    publicModel: "public",
    upstreamModel: "up",
    longContext: false,
    body: {},
    stream: true,
    outputCap: cap,
    bodyBytes: 2,
    includeUsage,
    headers: new Headers(),
    signal: new AbortController().signal,
    inputTokens: 9,
  };
}

/** What the client received, metered afresh from its SSE text. */
async function meterOf(client: TextDialect, text: string): Promise<number> {
  const meter = new OutputMeter();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(Buffer.from(text));
      controller.close();
    },
  });
  try {
    for await (const event of readSseEvents(body)) {
      if (event.data === "[DONE]") continue;
      const data = JSON.parse(event.data);
      if (client === "chat") meter.chatChunk(data);
      else meter.messagesEvent(data);
    }
  } catch {
    // A client that left mid-event got no more than the events before it.
  }
  return meter.tokens();
}

const dialects = fc.constantFrom<[TextDialect, TextDialect]>(
  ["chat", "chat"],
  ["chat", "messages"],
  ["messages", "messages"],
  ["messages", "chat"],
);
const ending = fc.oneof(
  fc.constant<Ending>({ kind: "whole" }),
  fc.double({ min: 0, max: 1, noNaN: true }).map<Ending>((at) => ({ kind: "clean-cut", at })),
  fc.double({ min: 0, max: 1, noNaN: true }).map<Ending>((at) => ({ kind: "broken", at })),
  fc.nat({ max: 60 }).map<Ending>((after) => ({ kind: "client-leaves", after })),
);

test("random streams cut at random points: charged at least the metered delivery (up to the cap), at most the cap, the report when complete", async () => {
  await fc.assert(
    fc.asyncProperty(
      dialects,
      fc.array(fc.tuple(fc.nat({ max: 5 }), piece), { minLength: 0, maxLength: 40 }),
      fc.option(fc.nat({ max: 3000 }), { nil: null }),
      fc.integer({ min: 1, max: 3000 }),
      fc.boolean(),
      ending,
      async ([upstream, client], raw, reportedRaw, cap, includeUsage, end) => {
        const kinds = upstream === "chat" ? CHAT_KINDS : MESSAGES_KINDS;
        const deltas = raw.map(([kind, text]) => ({ kind: kinds[kind % kinds.length]!, text }));
        // An honest upstream reports no more than the cap it was sent.
        const reported = reportedRaw === null ? null : Math.min(reportedRaw, cap);
        const events = upstream === "chat" ? chatStream(deltas, reported) : messagesStream(deltas, reported);
        const abort = new AbortController();
        const outcome = await relayText(call(cap, includeUsage), upstream, client, {
          stream: true,
          body: upstreamBody(events.join(""), end),
          abort,
        });
        assert.ok(outcome.ok);
        const parts = (outcome.response as DirectResponse).parts;
        let received = "";
        let read = 0;
        for (const part of parts) {
          if (typeof part === "string") received += part;
          else if (part instanceof Uint8Array) received += Buffer.from(part).toString();
          else {
            const iterator = part[Symbol.asyncIterator]();
            for (;;) {
              if (end.kind === "client-leaves" && read >= end.after) {
                await iterator.return?.();
                break;
              }
              const next = await iterator.next();
              if (next.done) break;
              received += typeof next.value === "string" ? next.value : Buffer.from(next.value).toString();
              read++;
            }
          }
        }
        const usage: UsageReport = await outcome.usage;
        const metered = await meterOf(client, received);
        assert.ok(usage.outputTokens <= cap, `never above the cap: ${usage.outputTokens} > ${cap}`);
        if (usage.complete && reported !== null) {
          assert.equal(usage.outputTokens, reported, "a complete stream that reported usage is charged its report");
          assert.equal(usage.rule, "usage");
        } else {
          assert.ok(
            usage.outputTokens >= Math.min(metered, cap),
            `never below the meter: charged ${usage.outputTokens}, metered ${metered} (cap ${cap}, ${end.kind})`,
          );
          // (A client that leaves may have had the end already: a converted stream closes on the usage, before [DONE].)
          if (!usage.complete && end.kind !== "client-leaves")
            assert.doesNotMatch(received, client === "chat" ? /^data: \[DONE\]$/m : /^event: message_stop$/m, "no end for a cut stream");
        }
        const text = events.join("");
        const cutShort =
          (end.kind === "clean-cut" || end.kind === "broken") && Math.floor(end.at * Buffer.byteLength(text)) < Buffer.byteLength(text);
        if (cutShort) assert.equal(usage.complete, false, "a stream cut before its last event is never complete");
      },
    ),
    { numRuns: 300 },
  );
});

// The same rules over the hub dialects (lib/dialects/hub.ts): Gemini's and Converse's streams, read through their
// converters, with every kind of output they emit (text, reasoning, tool-call arguments), to either client.

const GEMINI_KINDS = ["text", "thought", "call"] as const;
const CONVERSE_KINDS = ["text", "reasoning", "tool"] as const;

function geminiStream(deltas: Delta[], reported: number | null): string[] {
  const chunk = (parts: unknown[], final = false) =>
    sse(undefined, {
      candidates: [{ content: { role: "model", parts }, index: 0, ...(final ? { finishReason: "STOP" } : {}) }],
      ...(final && reported !== null
        ? { usageMetadata: { promptTokenCount: 9, candidatesTokenCount: reported, thoughtsTokenCount: 0 } }
        : {}),
      modelVersion: "up",
    });
  const events = deltas.map(({ kind, text }) =>
    chunk([kind === "call" ? { functionCall: { name: "f", args: { text } } } : kind === "thought" ? { text, thought: true } : { text }]),
  );
  events.push(chunk([], true));
  return events;
}

function converseStream(deltas: Delta[], reported: number | null): string[] {
  const events = [sse("messageStart", { role: "assistant" })];
  let index = -1;
  let open: string | null = null;
  for (const { kind, text } of deltas) {
    if (kind !== open || kind === "tool") {
      if (open !== null) events.push(sse("contentBlockStop", { contentBlockIndex: index }));
      index++;
      open = kind;
      if (kind === "tool")
        events.push(sse("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: `t${index}`, name: "f" } } }));
    }
    const delta = kind === "tool" ? { toolUse: { input: text } } : kind === "reasoning" ? { reasoningContent: { text } } : { text };
    events.push(sse("contentBlockDelta", { contentBlockIndex: index, delta }));
  }
  if (open !== null) events.push(sse("contentBlockStop", { contentBlockIndex: index }));
  events.push(sse("messageStop", { stopReason: "end_turn" }));
  events.push(
    sse("metadata", { ...(reported === null ? {} : { usage: { inputTokens: 9, outputTokens: reported, totalTokens: 9 + reported } }) }),
  );
  return events;
}

test("the hub dialects (Gemini, Converse), every output kind, cut at random points: the same money rules", async () => {
  const { GEMINI_DIALECT } = await import("@/lib/providers/gemini-family");
  const { converseResponseToChat, ConverseStreamToChat } = await import("@/lib/dialects/converse/converse-to-chat");
  const CONVERSE = {
    lastEvent: "messageStop and metadata",
    answer: (body: Record<string, unknown>, model: string) => converseResponseToChat(body, model),
    stream: (model: string) => new ConverseStreamToChat({ publicModel: model }),
  };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom("gemini", "converse"),
      fc.constantFrom<TextDialect>("chat", "messages"),
      fc.array(fc.tuple(fc.nat({ max: 5 }), piece), { minLength: 0, maxLength: 30 }),
      fc.option(fc.nat({ max: 3000 }), { nil: null }),
      fc.integer({ min: 1, max: 3000 }),
      fc.constantFrom("whole", "clean-cut", "broken"),
      fc.double({ min: 0, max: 1, noNaN: true }),
      async (dialect, client, raw, reportedRaw, cap, shape, at) => {
        const end: Ending = shape === "whole" ? { kind: "whole" } : { kind: shape, at };
        const kinds = dialect === "gemini" ? GEMINI_KINDS : CONVERSE_KINDS;
        const deltas = raw.map(([kind, text]) => ({ kind: kinds[kind % kinds.length]!, text }));
        const reported = reportedRaw === null ? null : Math.min(reportedRaw, cap);
        const events = dialect === "gemini" ? geminiStream(deltas, reported) : converseStream(deltas, reported);
        const outcome = await relayText(call(cap, true), dialect === "gemini" ? GEMINI_DIALECT : CONVERSE, client, {
          stream: true,
          body: upstreamBody(events.join(""), end),
          abort: new AbortController(),
        });
        assert.ok(outcome.ok);
        let received = "";
        for (const part of (outcome.response as DirectResponse).parts) {
          if (typeof part === "string") received += part;
          else if (part instanceof Uint8Array) received += Buffer.from(part).toString();
          else for await (const piece of part) received += typeof piece === "string" ? piece : Buffer.from(piece).toString();
        }
        const usage: UsageReport = await outcome.usage;
        const metered = await meterOf(client, received);
        assert.ok(usage.outputTokens <= cap, `never above the cap: ${usage.outputTokens} > ${cap}`);
        if (usage.complete && reported !== null) assert.equal(usage.outputTokens, reported);
        else
          assert.ok(
            usage.outputTokens >= Math.min(metered, cap),
            `${dialect} to ${client}: charged ${usage.outputTokens}, metered ${metered} (cap ${cap}, ${end.kind})`,
          );
        const bytes = Buffer.byteLength(events.join(""));
        if ((end.kind === "clean-cut" || end.kind === "broken") && Math.floor(end.at * bytes) < bytes) assert.equal(usage.complete, false);
      },
    ),
    { numRuns: 300 },
  );
});
