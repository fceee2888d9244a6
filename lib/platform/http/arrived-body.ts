// A small body has usually arrived whole by the time it is read: a chat request comes in the same packets as its
// headers, a chat answer with its own. It is then all in the stream's buffer, and one read() takes it instead of
// waiting for the stream's 'data' and 'end' events (~20 µs of a relayed chat request each way;
// docs/decisions/0014-no-fetch-classes-on-the-hot-path.md). Used for client requests (lib/platform/http/node-adapter.ts) and upstream answers
// (lib/providers/http.ts).
import type { Readable } from "node:stream";

/** The body's length as its headers declare it, or -1 (none, chunked, or not a number). */
export function declaredLength(headers: Record<string, string | string[] | undefined>): number {
  const value = headers["content-length"];
  if (typeof value !== "string" || headers["transfer-encoding"] !== undefined) return -1;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : -1;
}

/** Whether the stream's producer has pushed its end (node:http and undici do once the message is complete); its
 *  'end' event comes only when the buffer is read. For a body without a declared length, the only way to know. */
export function streamEnded(stream: Readable): boolean {
  return (stream as unknown as { _readableState?: { ended?: boolean } })._readableState?.ended === true;
}

/**
 * The whole body in one read() when `arrived(buffered bytes)` says all of it is in the stream's buffer and it is within
 * `limit`; null otherwise, with nothing taken. In paused mode read() without a size returns the whole buffer.
 */
export function takeArrived(stream: Readable, arrived: (buffered: number) => boolean, limit: number): Buffer | null {
  const buffered = stream.readableLength;
  if (buffered === 0 || buffered > limit || stream.readableFlowing === true || stream.destroyed || !arrived(buffered)) return null;
  return stream.read() as Buffer;
}
