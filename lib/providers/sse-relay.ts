// Relays an upstream SSE body to the client event by event (docs/architecture.md, decision 6): nothing is buffered
// beyond the event being handled, backpressure comes from the client's pull, a client that goes away aborts
// the upstream, and the caller learns at the end whether the stream completed.
import { encodeSse, readSseEvents, SseEventTooLargeError, TruncatedStreamError, type SseEvent, type SseSource } from "@/lib/platform/sse";
import { streamStarted } from "@/lib/platform/metrics";
import { errorBody, GatewayError } from "@/lib/platform/errors";
import { isUpstreamIdle } from "./http";
import type { UpstreamSuccess, UsageReport } from "./types";

const encoder = new TextEncoder();

export type StreamEnd = { complete: boolean; error?: string; clientGone?: boolean };

type RelayOptions = Parameters<typeof relaySse>[0];

/**
 * A relayed stream as an adapter's outcome: the client's SSE response, and its usage once the stream ended or
 * was cut (`usage(end)` reads what the adapter counted on the way).
 */
export function relayedOutcome(options: Omit<RelayOptions, "onClose"> & { usage: (end: StreamEnd) => UsageReport }): UpstreamSuccess {
  const { usage, ...relay } = options;
  let resolve!: (report: UsageReport) => void;
  const report = new Promise<UsageReport>((done) => (resolve = done));
  const body = relaySse({ ...relay, onClose: (end) => resolve(usage(end)) });
  return { ok: true, response: new Response(body, { status: 200, headers: SSE_HEADERS }), usage: report };
}

export function relaySse(options: {
  body: SseSource;
  abort: AbortController;
  /** Returns the SSE text to send for one upstream event ("" or [] to drop it). */
  onEvent: (event: SseEvent) => string | string[];
  /** Extra SSE text to send when the upstream ended cleanly. */
  onEnd?: () => string | string[];
  onClose: (end: StreamEnd) => void;
  /** The client's dialect: when the upstream fails mid-stream, an error event in it ends the body (see `sseError`). */
  dialect?: "openai" | "anthropic";
}): ReadableStream<Uint8Array> {
  const events = readSseEvents(options.body, options.abort.signal);
  const ended = streamStarted();
  let closed = false;
  const close = (end: StreamEnd) => {
    if (closed) return;
    closed = true;
    ended();
    options.onClose(end);
  };
  const toBytes = (text: string | string[]) => encoder.encode(Array.isArray(text) ? text.join("") : text);

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const next = await events.next();
          if (next.done) {
            const tail = options.onEnd?.() ?? "";
            if (tail.length) controller.enqueue(toBytes(tail));
            controller.close();
            close({ complete: true });
            return;
          }
          const out = options.onEvent(next.value);
          if (out.length) {
            controller.enqueue(toBytes(out));
            return;
          }
        }
      } catch (error) {
        const message = streamFailure(error);
        close({ complete: false, error: message });
        // Tell the client in-band where the protocol allows, then end the body cleanly: the SDKs raise the error
        // event as an API error, and the connection stays usable. Without a dialect, cut the connection.
        try {
          if (!options.dialect) throw error;
          controller.enqueue(encoder.encode(sseError(options.dialect, message)));
          controller.close();
        } catch {
          try {
            controller.error(error);
          } catch {
            // the client has gone already
          }
        }
      }
    },
    async cancel() {
      close({ complete: false, error: "The client closed the connection", clientGone: true });
      options.abort.abort(new Error("client disconnected"));
      await events.return(undefined).catch(() => undefined);
    },
  });
}

/** Why an upstream stream ended early, in words for the client and the ledger (never a stack or raw internals). */
export function streamFailure(error: unknown): string {
  if (error instanceof TruncatedStreamError) return "The upstream stream was cut in the middle of an event";
  if (error instanceof SseEventTooLargeError) return `An upstream event is larger than ${Math.round(error.limit / 1024 / 1024)} MB`;
  if (error instanceof SyntaxError) return "The upstream sent an event that is not valid JSON";
  if (error instanceof GatewayError || isUpstreamIdle(error)) return (error as Error).message;
  const code = (error as { code?: string } | null)?.code;
  return `The upstream connection broke mid-stream${code ? ` (${code})` : ""}`;
}

/** An error as one SSE event in the client's dialect: OpenAI `data: {"error": …}`, Anthropic `event: error`. */
export function sseError(dialect: "openai" | "anthropic", message: string): string {
  const body = errorBody(new GatewayError("upstream_error", message), dialect);
  return dialect === "anthropic" ? encodeSse({ event: "error", data: JSON.stringify(body) }) : encodeSse({ data: JSON.stringify(body) });
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
