// `simulator` channels: the built-in offline upstream (docs/architecture.md, decision 8). Text answers are deterministic
// from the prompt, carry realistic usage, stream in the vendors' own wire formats and are marked as simulated.
// settings.delayMs paces the stream (per event), settings.firstByteDelayMs delays the start.
import { jsonText } from "@/lib/platform/http/json";
import type { Outcome, TextAdapter, TextCall, UsageReport } from "@/lib/providers/types";
import { SSE_HEADERS } from "@/lib/providers/sse-relay";
import { encodeSse } from "@/lib/platform/sse";
import { streamStarted } from "@/lib/platform/metrics";
import { simulatorChatChunks, simulatorChatCompletion, simulatorMessage, simulatorMessageEvents } from "./text";
import { contextRefusal, withSchemaLimits } from "./agent";
import { catalogEntryOrGeneric } from "@/lib/catalog";
import { countChatRequestInputTokens, countMessagesInputTokens } from "@/lib/money/tokens";
import { DEFAULT_MAX_TOKENS } from "@/lib/providers/anthropic/convert/common";

/** The model's context window (lib/catalog/index.ts; the `[1m]` names have 1M) against the whole request, as vendors check. */
async function outsideWindow(call: TextCall, dialect: "chat" | "messages"): Promise<Outcome | null> {
  const body = call.body as { max_tokens?: number | null; max_completion_tokens?: number | null };
  const output = Number(body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS);
  const input = dialect === "chat" ? countChatRequestInputTokens(call.body as never) : countMessagesInputTokens(call.body as never);
  return contextRefusal(dialect, input, output, (await catalogEntryOrGeneric(call.publicModel)).contextWindow);
}

const encoder = new TextEncoder();

function setting(call: TextCall, name: string): number {
  const value = Number(call.channel.settings[name]);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (!ms) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Streams prepared SSE events one pull at a time; `usageAt(delivered)` says what the events sent so far
 * cost, so a client that leaves early is billed for what it received.
 */
export function simulatedStream(
  call: TextCall,
  events: string[],
  usageAt: (delivered: number) => UsageReport,
): { response: Response; usage: Promise<UsageReport> } {
  let resolve!: (report: UsageReport) => void;
  const usage = new Promise<UsageReport>((done) => (resolve = done));
  let delivered = 0;
  let finished = false;
  const ended = streamStarted();
  const finish = (report: UsageReport) => {
    if (finished) return;
    finished = true;
    ended();
    resolve(report);
  };
  const delayMs = setting(call, "delayMs");
  const body = new ReadableStream<Uint8Array>({
    async start() {
      await sleep(setting(call, "firstByteDelayMs"), call.signal);
    },
    async pull(controller) {
      if (delivered > 0) await sleep(delayMs, call.signal);
      if (call.signal.aborted) return;
      controller.enqueue(encoder.encode(events[delivered]!));
      delivered++;
      if (delivered === events.length) {
        controller.close();
        finish(usageAt(delivered));
      }
    },
    cancel() {
      finish({ ...usageAt(delivered), complete: false, error: "The client closed the connection", clientGone: true });
    },
  });
  call.signal.addEventListener(
    "abort",
    () => finish({ ...usageAt(delivered), complete: false, error: "The client closed the connection", clientGone: true }),
    { once: true },
  );
  return { response: new Response(body, { status: 200, headers: SSE_HEADERS }), usage };
}

/** Output tokens of the first `delivered` events, from the text deltas they carried. */
function outputSoFar(texts: string[], delivered: number, total: number): number {
  if (delivered >= texts.length) return total;
  const all = texts.join("");
  const sent = texts.slice(0, delivered).join("");
  return all.length ? Math.min(total, Math.ceil((total * sent.length) / all.length)) : 0;
}

// A schema past the simulator's limits (schema-value.ts, SCHEMA_LIMITS) is refused as the upstream's 400.
export const simulatorAdapter: TextAdapter = withSchemaLimits({
  async chat(call): Promise<Outcome> {
    const refused = await outsideWindow(call, "chat");
    if (refused) return refused;
    await sleep(call.stream ? 0 : setting(call, "firstByteDelayMs"), call.signal);
    if (!call.stream) {
      const completion = simulatorChatCompletion(call.body as never, call.publicModel);
      return {
        ok: true,
        response: jsonText(JSON.stringify(completion)),
        usage: Promise.resolve({
          inputTokens: completion.usage.prompt_tokens,
          outputTokens: completion.usage.completion_tokens,
          complete: true,
        }),
      };
    }
    // Usage is always computed; the chunk carrying it goes to the client only if it asked.
    const withUsage = simulatorChatChunks({ ...(call.body as object), stream_options: { include_usage: true } } as never, call.publicModel);
    const usageChunk = withUsage.find((chunk) => chunk.usage)!;
    const chunks = call.includeUsage ? withUsage : withUsage.filter((chunk) => !(chunk.usage && chunk.choices.length === 0));
    const events = [
      ...chunks.map((chunk) =>
        encodeSse({ data: JSON.stringify(chunk.usage && !call.includeUsage ? { ...chunk, usage: undefined } : chunk) }),
      ),
      encodeSse({ data: "[DONE]" }),
    ];
    const texts = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").concat("");
    const input = usageChunk.usage!.prompt_tokens;
    const output = usageChunk.usage!.completion_tokens;
    return {
      ok: true,
      ...simulatedStream(call, events, (delivered) => ({
        inputTokens: input,
        outputTokens: outputSoFar(texts, delivered, output),
        complete: delivered >= events.length,
      })),
    };
  },

  async messages(call): Promise<Outcome> {
    const refused = await outsideWindow(call, "messages");
    if (refused) return refused;
    await sleep(call.stream ? 0 : setting(call, "firstByteDelayMs"), call.signal);
    if (!call.stream) {
      const message = simulatorMessage(call.body as never, call.publicModel);
      return {
        ok: true,
        response: jsonText(JSON.stringify(message)),
        usage: Promise.resolve({ inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens, complete: true }),
      };
    }
    const prepared = simulatorMessageEvents(call.body as never, call.publicModel);
    const events = prepared.map((event) => encodeSse({ event: event.event, data: JSON.stringify(event.data) }));
    const start = prepared.find((event) => event.event === "message_start")!.data as { message: { usage: { input_tokens: number } } };
    const delta = prepared.find((event) => event.event === "message_delta")!.data as { usage: { output_tokens: number } };
    const texts = prepared.map((event) => {
      const data = event.data as { delta?: { text?: string } };
      return event.event === "content_block_delta" ? (data.delta?.text ?? "") : "";
    });
    return {
      ok: true,
      ...simulatedStream(call, events, (delivered) => ({
        inputTokens: start.message.usage.input_tokens,
        outputTokens: outputSoFar(texts, delivered, delta.usage.output_tokens),
        complete: delivered >= events.length,
      })),
    };
  },
});
