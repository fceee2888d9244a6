// `simulator` channels: the built-in offline upstream (docs/decisions/0008-offline-simulator.md). Text answers are deterministic
// from the prompt, carry realistic usage, stream in the vendors' own wire formats and are marked as simulated.
// settings.delayMs paces the stream (per event), settings.firstByteDelayMs delays the start.
import type { Outcome, TextAdapter, TextCall } from "@/lib/providers/types";
import { relayText, type UpstreamAnswer } from "@/lib/providers/text-relay";
import { encodeSse } from "@/lib/platform/sse";
import { simulatorChatChunks, simulatorChatCompletion, simulatorMessage, simulatorMessageEvents } from "./text";
import { contextRefusal, withSchemaLimits } from "./agent";
import { catalogEntryOrGeneric } from "@/lib/catalog";
import { DEFAULT_MAX_TOKENS } from "@/lib/dialects/convert/common";

/**
 * The model's context window (lib/catalog/index.ts; the `[1m]` names have 1M) against the whole request, as vendors
 * check. The input is the gateway's own count of the request (TextCall.inputTokens), the one a vendor's would be: the
 * simulator runs in the gateway's process, and counting a large body again here would hold the event loop (a body
 * with 200,000 parts: 40 ms, twice), where the gateway counts such a body on a worker.
 */
async function outsideWindow(call: TextCall, dialect: "chat" | "messages"): Promise<Outcome | null> {
  const body = call.body as { max_tokens?: number | null; max_completion_tokens?: number | null };
  const output = Number(body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS);
  return contextRefusal(dialect, call.inputTokens, output, (await catalogEntryOrGeneric(call.publicModel)).contextWindow);
}

const encoder = new TextEncoder();

function setting(call: TextCall, name: string): number {
  const value = Number(call.channel.settings[name]);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (!ms || signal.aborted) return Promise.resolve();
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
 * The simulator's answer as an upstream's, for the text relay (lib/providers/text-relay.ts), which meters, converts and
 * settles it as any other: the whole answer, or its SSE events one pull at a time, paced by the channel's settings.
 */
function simulatedAnswer(call: TextCall, answer: Record<string, unknown> | string[]): UpstreamAnswer {
  if (!Array.isArray(answer)) return { stream: false, read: async () => ({ ok: true, value: answer }) };
  const abort = new AbortController();
  if (call.signal.aborted) abort.abort(call.signal.reason);
  else call.signal.addEventListener("abort", () => abort.abort(call.signal.reason), { once: true });
  const delayMs = setting(call, "delayMs");
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start: () => sleep(setting(call, "firstByteDelayMs"), abort.signal),
    async pull(controller) {
      if (sent > 0) await sleep(delayMs, abort.signal);
      if (abort.signal.aborted) return;
      controller.enqueue(encoder.encode(answer[sent++]!));
      if (sent === answer.length) controller.close();
    },
  });
  return { stream: true, body, abort };
}

// A schema past the simulator's limits (schema-value.ts, SCHEMA_LIMITS) is refused as the upstream's 400.
export const simulatorAdapter: TextAdapter = withSchemaLimits({
  async chat(call): Promise<Outcome> {
    const refused = await outsideWindow(call, "chat");
    if (refused) return refused;
    if (!call.stream) {
      await sleep(setting(call, "firstByteDelayMs"), call.signal);
      return relayText(
        call,
        "chat",
        "chat",
        simulatedAnswer(call, simulatorChatCompletion(call.body as never, call.publicModel, call.inputTokens)),
      );
    }
    // As a vendor does when asked (the relay always asks): the usage in a last chunk; the relay drops it for a
    // client that did not ask.
    const chunks = simulatorChatChunks(
      { ...(call.body as object), stream_options: { include_usage: true } } as never,
      call.publicModel,
      call.inputTokens,
    );
    const events = [...chunks.map((chunk) => encodeSse({ data: JSON.stringify(chunk) })), encodeSse({ data: "[DONE]" })];
    return relayText(call, "chat", "chat", simulatedAnswer(call, events));
  },

  async messages(call): Promise<Outcome> {
    const refused = await outsideWindow(call, "messages");
    if (refused) return refused;
    if (!call.stream) {
      await sleep(setting(call, "firstByteDelayMs"), call.signal);
      return relayText(
        call,
        "messages",
        "messages",
        simulatedAnswer(call, simulatorMessage(call.body as never, call.publicModel, call.inputTokens)),
      );
    }
    const events = simulatorMessageEvents(call.body as never, call.publicModel, call.inputTokens).map((event) =>
      encodeSse({ event: event.event, data: JSON.stringify(event.data) }),
    );
    return relayText(call, "messages", "messages", simulatedAnswer(call, events));
  },
});
