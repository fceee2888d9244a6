// Server-sent events in and out (docs/decisions/0006-streams-never-buffered.md: streams are never buffered whole).
// Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
// Parsing is done by `eventsource-parser` (https://github.com/rexxars/eventsource-parser), which has
// no line-length limit unless `maxBufferSize` is set: one `data:` line may be a multi-megabyte image.
import { createParser } from "eventsource-parser";

export interface SseEvent {
  /** The `event:` field; absent when the server sent none (browsers would call it "message"). */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

/**
 * Thrown by `readSseEvents` when the body ends in the middle of an event (a `data:` line without
 * the blank line that dispatches it, or without even its line break). The cut event is never
 * yielded, because half a JSON payload is worse than none; callers catch this to learn that the
 * upstream stream was cut, and settle billing for what was already delivered.
 */
export class TruncatedStreamError extends Error {
  /** What had been received of the cut event, for logging only (it may be incomplete JSON). */
  readonly partialEvent: SseEvent;

  constructor(partialEvent: SseEvent) {
    super("The event stream ended in the middle of an event.");
    this.name = "TruncatedStreamError";
    this.partialEvent = partialEvent;
  }
}

/**
 * The most one event may hold while it is being received (characters of its lines and data), unless the caller
 * says otherwise. Generous on purpose (a 4K partial image is ~30 MB of base64), but bounded: an upstream that never
 * ends its event cannot make the gateway buffer without limit.
 */
export const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/** Thrown by `readSseEvents` when one event grows past its limit; the body is cancelled. */
export class SseEventTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`An event is larger than ${Math.round(limit / 1024 / 1024)} MB`);
    this.name = "SseEventTooLargeError";
    this.limit = limit;
  }
}

/**
 * Parses an SSE body into events as they arrive.
 *
 * - Bytes are decoded as a UTF-8 stream, so a multibyte character split across chunks is intact.
 * - Returns normally when the body ends on an event boundary; throws `TruncatedStreamError` when it
 *   ends inside an event (that partial event is not yielded).
 * - When `signal` aborts, the body is cancelled (which aborts the upstream request) and the abort
 *   reason is thrown. Leaving the loop early (`break`, or a throw in the consumer) also cancels the body.
 * - Throws `SseEventTooLargeError` when one event exceeds `maxEventChars` (default MAX_EVENT_CHARS).
 */
export async function* readSseEvents(
  body: SseSource,
  signal?: AbortSignal,
  options: { maxEventChars?: number } = {},
): AsyncGenerator<SseEvent, void, undefined> {
  signal?.throwIfAborted();
  const reader = chunkReader(body);
  const decoder = new TextDecoder("utf-8");
  let pending: SseEvent[] = [];
  const maxEventChars = options.maxEventChars ?? MAX_EVENT_CHARS;
  let tooLarge = null as SseEventTooLargeError | null;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onError(error) {
      if (error.type === "max-buffer-size-exceeded") tooLarge = new SseEventTooLargeError(maxEventChars);
    },
    onEvent(message) {
      const event: SseEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (message.id !== undefined) event.id = message.id;
      pending.push(event);
    },
  });
  // Cancelling resolves the pending read() with done, so the loop below notices the abort promptly.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });

  let bodyFinished = false;
  try {
    let lastText = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text === "") continue;
      lastText = text;
      parser.feed(text);
      if (tooLarge) throw tooLarge;
      if (pending.length > 0) {
        const batch = pending;
        pending = [];
        yield* batch;
      }
    }
    bodyFinished = true;

    // A multibyte character cut at the very end decodes to U+FFFD; the truncation probe below catches it
    // when it sits inside an event.
    const tail = decoder.decode();
    if (tail !== "") {
      lastText = tail;
      parser.feed(tail);
    }
    // The parser holds back a final "\r" in case "\n" follows. At the end of the body it is a complete
    // line break (it may even be the blank line that ends the last event), so finish it first.
    if (lastText.endsWith("\r")) parser.feed("\n");
    if (tooLarge) throw tooLarge;
    if (pending.length > 0) {
      const batch = pending;
      pending = [];
      yield* batch;
    }
    // Anything the parser still holds becomes an event once two line breaks are fed; if one appears,
    // the body ended mid-event.
    parser.feed("\n\n");
    if (pending.length > 0) throw new TruncatedStreamError(pending[0]!);
    // A body that stops in the middle of a line ("dat", ": keepal", "event: message_st") was cut as well, even
    // though no data line was pending: a stream that ends properly ends with a line break.
    if (lastText !== "" && !/[\r\n]$/.test(lastText)) throw new TruncatedStreamError({ data: "" });
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!bodyFinished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Where events are read from: a Web stream, or a Node stream (an upstream answer's own body, without a Web adapter). */
export type SseSource = ReadableStream<Uint8Array> | NodeJS.ReadableStream;

/** A body read chunk by chunk, as the readers here do (also lib/providers/event-stream.ts, for binary frames). */
export type ChunkReader = {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
};

export function chunkReader(body: SseSource): ChunkReader {
  if (body instanceof ReadableStream) return body.getReader() as ChunkReader;
  // A Node stream: its async iterator reads chunk by chunk; cancelling destroys the stream (which aborts the request),
  // and that settles a pending read: as the end, since it was asked for. (Not a Promise.race against one promise of
  // the cancel: every race leaves a reaction on that promise, holding the chunk it was won with, until the stream
  // ends; a Responses stream kept every chunk of its images in memory that way: docs/decisions/0022-responses-stream-memory.md.)
  const stream = body as NodeJS.ReadableStream & { destroy(error?: Error): void };
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  let cancelled = false;
  return {
    async read() {
      try {
        return (await iterator.next()) as { done: false; value: Uint8Array } | { done: true };
      } catch (error) {
        if (cancelled) return { done: true };
        throw error;
      }
    },
    async cancel() {
      cancelled = true;
      stream.destroy();
    },
    releaseLock() {},
  };
}

/**
 * One SSE event as text: `event: <name>\n` (when named), then one `data:` line per line of `data`
 * (the parser joins them back with "\n"; "\r\n" and "\r" in data come back as "\n"), then a blank line.
 */
export function encodeSse(event: { event?: string; data: string; id?: string }): string {
  let text = "";
  if (event.event !== undefined) {
    if (/[\r\n]/.test(event.event)) throw new Error("An SSE event name cannot contain a line break.");
    text += `event: ${event.event}\n`;
  }
  if (event.id !== undefined) {
    if (/[\r\n\0]/.test(event.id)) throw new Error("An SSE id cannot contain a line break or NUL.");
    text += `id: ${event.id}\n`;
  }
  for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** What `readSseRaw` yields: the bytes of an event's data as they arrive, then the end of the event. */
export type RawSseItem =
  /** A piece of the current event's data (its `data:` lines joined with "\n"), as a view of the chunk received. */
  | { data: Buffer }
  /** A blank line ended an event that had data: its name, id and data length. */
  | { end: { event?: string; id?: string; length: number } };

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const NEWLINE = Buffer.from("\n");
const DATA_FIELD = Buffer.from("data:");
/** How much of a cut event's data a TruncatedStreamError keeps, for the log. */
const PARTIAL_KEPT = 1000;

/**
 * Like `readSseEvents`, with each event's data as bytes, handed on as it arrives: for streams whose events carry
 * megabytes of base64 (Responses images), which can then be passed on while they are still arriving, never decoded
 * into strings nor held whole (lib/wire/raw-event.ts). Lines are found by byte search in each new chunk only; a
 * `data:` line is passed on piece by piece before its end arrives. Each read of the body yields what it completed,
 * as a list. The same rules otherwise: `TruncatedStreamError` when the body ends inside an event or a line,
 * `SseEventTooLargeError` past `maxEventBytes`, the body cancelled on abort or when the loop is left early.
 */
export async function* readSseRaw(
  body: SseSource,
  signal?: AbortSignal,
  options: { maxEventBytes?: number } = {},
): AsyncGenerator<RawSseItem[], void, undefined> {
  signal?.throwIfAborted();
  const reader = chunkReader(body);
  const maxEventBytes = options.maxEventBytes ?? MAX_EVENT_CHARS;
  /** The current line: not yet known (its first bytes are in `head`), a data line, another field, or a comment. */
  let kind: "start" | "data" | "field" | "comment" = "start";
  let head: Buffer = Buffer.alloc(0);
  let field: Buffer[] = [];
  let dataLines = 0;
  let dataLength = 0;
  let eventBytes = 0;
  let eventName: string | undefined;
  let id: string | undefined;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let skipLF = false;
  let first = true;
  let items: RawSseItem[] = [];

  const data = (piece: Buffer) => {
    if (!piece.length) return;
    items.push({ data: piece });
    dataLength += piece.length;
    if (partialBytes < PARTIAL_KEPT) {
      partial.push(piece.subarray(0, PARTIAL_KEPT - partialBytes));
      partialBytes += Math.min(piece.length, PARTIAL_KEPT - partialBytes);
    }
  };
  const dispatch = () => {
    if (dataLines) {
      const end: { event?: string; id?: string; length: number } = { length: dataLength };
      if (eventName !== undefined) end.event = eventName;
      if (id !== undefined) end.id = id;
      items.push({ end });
    }
    dataLines = 0;
    dataLength = 0;
    eventBytes = 0;
    eventName = undefined;
    id = undefined;
    partial = [];
    partialBytes = 0;
  };
  const startData = (value: Buffer) => {
    if (dataLines++) data(NEWLINE);
    data(value);
  };
  /** A field line other than data (event, id, retry, or data without a colon), whole. */
  const fieldLine = (text: string) => {
    const colon = text.indexOf(":");
    const name = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") startData(Buffer.from(value));
    else if (name === "event") eventName = value || undefined;
    else if (name === "id" && !value.includes("\0")) id = value;
  };
  /** Bytes of the current line (`ended`: its line break came after them). */
  const line = (bytes: Buffer, ended: boolean) => {
    eventBytes += bytes.length;
    if (eventBytes > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
    if (kind === "start") {
      const start = head.length ? Buffer.concat([head, bytes]) : bytes;
      head = Buffer.alloc(0);
      if (start.length === 0) {
        if (ended) dispatch();
        return;
      }
      if (start[0] === COLON) kind = "comment";
      else if (start.length < DATA_FIELD.length + 1 && !ended) {
        // Too short to tell "data:" (and the space after it) from another field: wait for more.
        head = Buffer.from(start);
        return;
      } else if (start.subarray(0, DATA_FIELD.length).equals(DATA_FIELD)) {
        kind = "data";
        startData(start.subarray(start[DATA_FIELD.length] === 0x20 ? DATA_FIELD.length + 1 : DATA_FIELD.length));
      } else {
        kind = "field";
        field = [start];
      }
    } else if (kind === "data") data(bytes);
    else if (kind === "field") field.push(bytes);
    if (!ended) return;
    if (kind === "field") fieldLine(Buffer.concat(field).toString("utf8"));
    field = [];
    kind = "start";
  };

  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let bodyFinished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      let chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      if (first && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
      first = false;
      let position = 0;
      if (skipLF && chunk[0] === LF) position = 1;
      skipLF = false;
      while (position < chunk.length) {
        const lf = chunk.indexOf(LF, position);
        const cr = chunk.indexOf(CR, position);
        const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        if (end < 0) {
          line(chunk.subarray(position), false);
          break;
        }
        line(chunk.subarray(position, end), true);
        position = end + 1;
        if (chunk[end] === CR) {
          if (position < chunk.length) {
            if (chunk[position] === LF) position++;
          } else skipLF = true;
        }
      }
      if (items.length) {
        const batch = items;
        items = [];
        yield batch;
      }
    }
    bodyFinished = true;
    // A body that stops in the middle of a line, or with an event not ended by a blank line, was cut.
    if (kind !== "start" || head.length || dataLines) {
      const cut: SseEvent = { data: Buffer.concat(partial).toString("utf8") };
      if (eventName !== undefined) cut.event = eventName;
      throw new TruncatedStreamError(cut);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!bodyFinished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
