// Relays an upstream SSE body to the client event by event (architecture decision 6): nothing is buffered
// beyond the event being handled, backpressure comes from the client's pull, a client that goes away aborts
// the upstream, and the caller learns at the end whether the stream completed.
import { readSseEvents, TruncatedStreamError, type SseEvent } from "../sse/parse";
import { streamStarted } from "../runtime/metrics";

const encoder = new TextEncoder();

export type StreamEnd = { complete: boolean; error?: string; clientGone?: boolean };

export function relaySse(options: {
  body: ReadableStream<Uint8Array>;
  abort: AbortController;
  /** Returns the SSE text to send for one upstream event ("" or [] to drop it). */
  onEvent: (event: SseEvent) => string | string[];
  /** Extra SSE text to send when the upstream ended cleanly. */
  onEnd?: () => string | string[];
  onClose: (end: StreamEnd) => void;
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
        const message = error instanceof TruncatedStreamError ? "The upstream stream was cut in the middle of an event" : `The upstream stream failed: ${(error as Error).message}`;
        close({ complete: false, error: message });
        // Tell the client in-band where the protocol allows, then end the body.
        controller.error(error);
      }
    },
    async cancel() {
      close({ complete: false, error: "The client closed the connection", clientGone: true });
      options.abort.abort(new Error("client disconnected"));
      await events.return(undefined).catch(() => undefined);
    },
  });
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
