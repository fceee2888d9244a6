// Relays an upstream SSE body to the client event by event (docs/decisions/0006-streams-never-buffered.md): nothing is buffered
// beyond the event being handled, backpressure comes from the client's pull, a client that goes away aborts
// the upstream, and the caller learns at the end whether the stream completed.
import { encodeSse, readSseEvents, SseEventTooLargeError, TruncatedStreamError, type SseEvent, type SseSource } from "@/lib/platform/sse";
import { streamStarted } from "@/lib/platform/metrics";
import { errorBody, GatewayError } from "@/lib/platform/errors";
import { DirectResponse } from "@/lib/platform/http/direct-body";
import { isUpstreamIdle } from "./http";
import type { UpstreamSuccess, UsageReport } from "./types";

/** Reads an upstream body as events, one at a time, never buffering more than the event being read. */
export type EventDecoder = (body: SseSource, signal: AbortSignal) => AsyncGenerator<SseEvent, void, undefined>;

export type StreamEnd = { complete: boolean; error?: string; clientGone?: boolean };

type RelayOptions = Parameters<typeof relaySse>[0];

/**
 * A relayed stream as an adapter's outcome: the client's SSE response, and its usage once the stream ended or
 * was cut (`usage(end)` reads what the adapter counted on the way).
 */
export function relayedOutcome(
  options: Omit<RelayOptions, "onClose"> & { usage: (end: StreamEnd) => UsageReport; headers?: Record<string, string> },
): UpstreamSuccess {
  const { usage, headers, ...relay } = options;
  let resolve!: (report: UsageReport) => void;
  const report = new Promise<UsageReport>((done) => (resolve = done));
  const body = relaySse({ ...relay, onClose: (end) => resolve(usage(end)) });
  // A body part the production server writes event by event (lib/platform/http/node-adapter.ts), with no Web stream
  // in between; anyone else reading `body` gets a Web stream made from it (lib/platform/http/direct-body.ts).
  return { ok: true, response: new DirectResponse([body], { status: 200, headers: headers ?? SSE_HEADERS }), usage: report };
}

/**
 * The relay as an async iterator of SSE text, one piece per upstream event that has something to send. `return()`
 * (the client left, or the reader stopped early) settles at once as cut by the client and aborts the upstream,
 * even while a `next()` is still waiting for the upstream's next event.
 */
export function relaySse(options: {
  body: SseSource;
  /** How the body is read as events: SSE unless the upstream frames its stream otherwise (AWS event-stream). */
  decode?: EventDecoder;
  abort: AbortController;
  /** Returns the SSE text to send for one upstream event ("" or [] to drop it). */
  onEvent: (event: SseEvent) => string | string[];
  /** Extra SSE text to send when the upstream ended cleanly; throws when the end is not a proper one. */
  onEnd?: () => string | string[];
  /** True once the upstream's last event arrived: a failure of its connection after that is not a cut. */
  completed?: () => boolean;
  onClose: (end: StreamEnd) => void;
  /** The client's dialect: when the upstream fails mid-stream, an error event in it ends the body (see `sseError`). */
  dialect?: "openai" | "anthropic";
  /** The text that ends the body when the upstream fails mid-stream, for a client whose framing the writer keeps
   *  (Gemini's, lib/providers/gemini-client.ts); instead of `dialect`'s. */
  errorText?: (message: string, cause: unknown) => string;
}): AsyncIterableIterator<string> {
  return new SseRelay(options);
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

const textOf = (text: string | string[]) => (Array.isArray(text) ? text.join("") : text);

class SseRelay implements AsyncIterableIterator<string> {
  readonly #options: RelayOptions;
  readonly #events: AsyncGenerator<SseEvent, void, undefined>;
  readonly #ended = streamStarted();
  /** No more text comes: the upstream ended, failed, or the reader left. */
  #finished = false;
  #closed = false;

  constructor(options: RelayOptions) {
    this.#options = options;
    this.#events = (options.decode ?? readSseEvents)(options.body, options.abort.signal);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #close(end: StreamEnd): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ended();
    this.#options.onClose(end);
  }

  async next(): Promise<IteratorResult<string, undefined>> {
    if (this.#finished) return DONE;
    try {
      for (;;) {
        const next = await this.#events.next();
        // The reader left while this read was waiting: return() has settled it already.
        if (this.#finished) return DONE;
        if (next.done) return this.#end();
        const out = textOf(this.#options.onEvent(next.value));
        if (out.length) return { done: false, value: out };
      }
    } catch (error) {
      if (this.#finished) return DONE;
      if (this.#options.completed?.()) return this.#end();
      this.#finished = true;
      const message = streamFailure(error);
      this.#close({ complete: false, error: message });
      // Tell the client in-band where the protocol allows, then end the body cleanly: the SDKs raise the error
      // event as an API error, and the connection stays usable. Without a dialect, the writer cuts the connection.
      if (this.#options.errorText) return { done: false, value: this.#options.errorText(message, error) };
      if (!this.#options.dialect) throw error;
      return { done: false, value: sseError(this.#options.dialect, message, error) };
    }
  }

  /** The upstream's answer is over: what onEnd adds, then the end. onEnd may refuse the end (an upstream that
   *  stopped before its last event): that throws, and next() ends the body as a failure. */
  #end(): IteratorResult<string, undefined> {
    const tail = textOf(this.#options.onEnd?.() ?? "");
    this.#finished = true;
    this.#close({ complete: true });
    return tail.length ? { done: false, value: tail } : DONE;
  }

  async return(): Promise<IteratorResult<string, undefined>> {
    if (this.#finished) return DONE;
    this.#finished = true;
    this.#close({ complete: false, error: "The client closed the connection", clientGone: true });
    this.#options.abort.abort(new Error("client disconnected"));
    await this.#events.return(undefined).catch(() => undefined);
    return DONE;
  }
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

/**
 * An error as one SSE event in the client's dialect: OpenAI `data: {"error": …}`, Anthropic `event: error`. An Anthropic
 * client keeps the upstream's error type (`overloaded_error`): clients decide on it whether to retry.
 */
export function sseError(dialect: "openai" | "anthropic", message: string, cause?: unknown): string {
  const vendor = dialect === "anthropic" && cause instanceof GatewayError ? cause.vendor : undefined;
  const body = errorBody(new GatewayError("upstream_error", message, { vendor }), dialect);
  return dialect === "anthropic" ? encodeSse({ event: "error", data: JSON.stringify(body) }) : encodeSse({ data: JSON.stringify(body) });
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
