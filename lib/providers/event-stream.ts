// AWS event-stream bodies (`application/vnd.amazon.eventstream`: Bedrock's InvokeModelWithResponseStream and
// ConverseStream) read frame by frame, and turned into the SSE events the relay handles (lib/providers/sse-relay.ts).
//
// A frame: a 12-byte prelude (total length, headers length, the prelude's CRC32), headers, payload, the frame's
// CRC32 (tests/fakes/bedrock-wire.ts builds them with the same codec). Frames are split here by their total length,
// as they arrive, holding no more than the frame being received; each whole frame is checked and decoded by
// @smithy/eventstream-codec (its `feed` decodes whole frames only; it does not split a stream). The rules mirror
// readSseEvents (lib/platform/sse.ts): TruncatedStreamError when the body ends inside a frame,
// SseEventTooLargeError for a frame over the bound, the body cancelled on abort or when the loop is left early.
import { EventStreamCodec, type MessageHeaders } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { chunkReader, SseEventTooLargeError, TruncatedStreamError, type SseEvent, type SseSource } from "@/lib/platform/sse";

/** One decoded frame. `payload` is a view of the bytes received (valid as long as it is kept). */
export type EventStreamFrame = {
  /** `:message-type`: `event`, `exception`, or `error`. */
  messageType: string;
  /** `:event-type` of an event (`chunk`, `messageStart`, …). */
  eventType?: string;
  /** `:exception-type` of an exception (`throttlingException`, `modelStreamErrorException`, …). */
  exceptionType?: string;
  /** `:error-code` and `:error-message` of an `error` message (which has no payload). */
  errorCode?: string;
  errorMessage?: string;
  payload: Uint8Array;
};

/**
 * The largest frame accepted: 16 MiB, the cap AWS's C event-stream library puts on a message (the JS SDK sets none).
 * A Bedrock event is a few hundred bytes; a larger length is a broken stream, not a frame to wait for.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The prelude (12 bytes) and the closing CRC (4): the least a frame can be. */
const MIN_FRAME_BYTES = 16;

/** A frame that does not decode: a CRC that does not match, a length that cannot be, headers that do not parse. */
export class EventStreamFrameError extends Error {
  constructor(detail: string) {
    super(`The upstream sent a damaged event-stream frame (${detail})`);
    this.name = "EventStreamFrameError";
  }
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function headerText(headers: MessageHeaders, name: string): string | undefined {
  const header = headers[name];
  return header?.type === "string" ? header.value : undefined;
}

function decodeFrame(bytes: Uint8Array): EventStreamFrame {
  let message: ReturnType<EventStreamCodec["decode"]>;
  try {
    message = codec.decode(bytes);
  } catch (error) {
    throw new EventStreamFrameError((error as Error).message);
  }
  const { headers } = message;
  const frame: EventStreamFrame = { messageType: headerText(headers, ":message-type") ?? "event", payload: message.body };
  const eventType = headerText(headers, ":event-type");
  if (eventType !== undefined) frame.eventType = eventType;
  const exceptionType = headerText(headers, ":exception-type");
  if (exceptionType !== undefined) frame.exceptionType = exceptionType;
  const errorCode = headerText(headers, ":error-code");
  if (errorCode !== undefined) frame.errorCode = errorCode;
  const errorMessage = headerText(headers, ":error-message");
  if (errorMessage !== undefined) frame.errorMessage = errorMessage;
  return frame;
}

function totalLength(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, false);
}

/**
 * The frames of an event-stream body as they arrive. A frame inside one chunk is decoded where it lies; one split
 * across chunks is gathered (views of the chunks) and joined once whole. Returns when the body ends between frames.
 */
export async function* readEventStream(
  body: SseSource,
  signal: AbortSignal,
  options: { maxFrameBytes?: number } = {},
): AsyncGenerator<EventStreamFrame, void, undefined> {
  signal.throwIfAborted();
  const maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
  const reader = chunkReader(body);
  // The frame being received: its pieces so far, how many bytes they hold, its length once its first 4 bytes are in.
  let pieces: Uint8Array[] = [];
  let have = 0;
  let need = 0;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  let bodyFinished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      let at = 0;
      while (at < value.length) {
        if (need === 0) {
          if (have === 0 && value.length - at >= 4) need = totalLength(value, at);
          else {
            // The length itself is split across chunks.
            const take = Math.min(4 - have, value.length - at);
            pieces.push(value.subarray(at, at + take));
            have += take;
            at += take;
            if (have < 4) break;
            need = totalLength(Buffer.concat(pieces, 4), 0);
          }
          if (need > maxFrameBytes) throw new SseEventTooLargeError(maxFrameBytes);
          if (need < MIN_FRAME_BYTES) throw new EventStreamFrameError(`a frame of ${need} bytes`);
        }
        if (have === 0 && value.length - at >= need) {
          // The whole frame is in this chunk: decoded where it lies.
          yield decodeFrame(value.subarray(at, at + need));
          at += need;
          need = 0;
          continue;
        }
        const take = Math.min(need - have, value.length - at);
        pieces.push(value.subarray(at, at + take));
        have += take;
        at += take;
        if (have === need) {
          yield decodeFrame(Buffer.concat(pieces, need));
          pieces = [];
          have = 0;
          need = 0;
        }
      }
    }
    bodyFinished = true;
    if (have > 0 || need > 0) throw new TruncatedStreamError({ data: "" });
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!bodyFinished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function text(payload: Uint8Array): string {
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString("utf8");
}

/**
 * A frame that is not an event, as an SSE event named by its type: an exception frame is
 * `{event: <:exception-type>, data: <its payload, JSON {"message": …}>}`; an `error` message (headers only) is
 * `{event: <:error-code, or internalServerException>, data: {"message": <:error-message>}}`. Either ends the stream:
 * the reader raises it (`isBedrockException` tells them from events).
 */
function exceptionEvent(frame: EventStreamFrame): SseEvent {
  if (frame.messageType === "exception") return { event: frame.exceptionType ?? "internalServerException", data: text(frame.payload) };
  return { event: frame.errorCode ?? "internalServerException", data: JSON.stringify({ message: frame.errorMessage ?? "" }) };
}

/** Exceptions are named `…Exception` (`throttlingException`); no Messages or Converse event is. */
export function isBedrockException(event: SseEvent): boolean {
  return event.event !== undefined && /Exception$/.test(event.event);
}

/**
 * InvokeModelWithResponseStream frames as the Messages stream events they carry: each `chunk` frame's payload is
 * `{"bytes": "<base64 of one event's JSON>"}` (and padding, ignored); the event comes out as
 * `{event: <its type>, data: <its JSON text>}`, as the Messages API streams it over SSE. Exception and error frames
 * come out as `exceptionEvent` says; other events as `{event: <:event-type>, data: <payload>}`. A chunk that is not
 * that JSON throws SyntaxError (the relay reports an event that is not valid JSON).
 */
export async function* invokeStreamEvents(frames: AsyncIterable<EventStreamFrame>): AsyncGenerator<SseEvent, void, undefined> {
  for await (const frame of frames) {
    if (frame.messageType !== "event") {
      yield exceptionEvent(frame);
      continue;
    }
    if (frame.eventType !== "chunk") {
      yield frame.eventType === undefined ? { data: text(frame.payload) } : { event: frame.eventType, data: text(frame.payload) };
      continue;
    }
    const chunk = JSON.parse(text(frame.payload)) as { bytes?: unknown };
    if (typeof chunk?.bytes !== "string") throw new SyntaxError("A chunk event without its bytes");
    const data = Buffer.from(chunk.bytes, "base64").toString("utf8");
    const type = (JSON.parse(data) as { type?: unknown } | null)?.type;
    yield typeof type === "string" ? { event: type, data } : { data };
  }
}

/**
 * ConverseStream frames as SSE events: `{event: <:event-type> (messageStart, contentBlockDelta, …, metadata),
 * data: <the payload's JSON text>}`; exception and error frames as `exceptionEvent` says.
 */
export async function* converseStreamEvents(frames: AsyncIterable<EventStreamFrame>): AsyncGenerator<SseEvent, void, undefined> {
  for await (const frame of frames) {
    if (frame.messageType !== "event") yield exceptionEvent(frame);
    else yield frame.eventType === undefined ? { data: text(frame.payload) } : { event: frame.eventType, data: text(frame.payload) };
  }
}
