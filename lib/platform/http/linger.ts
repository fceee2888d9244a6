// Refusing a request body half-way without losing the answer. Cancelling a node:http request body destroys the
// socket at once, so a client still sending would see ECONNRESET instead of the 413 that explains why; and a body
// left unread blocks the next request on a keep-alive connection. The usual remedy (nginx's "lingering close"):
// answer first, then read and discard what is still arriving, for a bounded number of bytes and seconds, and only
// then cut the connection. Nothing read this way is kept, so memory stays flat.

import { nodeBodyRelease } from "./node-adapter";

export const LINGER_MAX_BYTES = 32 * 1024 * 1024;
export const LINGER_MAX_MS = 5_000;

export type LingerOptions = { maxBytes?: number; maxMs?: number };

export type LingeringBody = {
  /** The same request, with a body whose cancellation drains instead of cutting the connection. */
  request: Request;
  /** Call when the handler is done with the body: whatever was not read is drained (bounded) in the background. */
  release: () => void;
};

/**
 * Wraps the request's body: when its reader cancels it (a parser refusing the upload), or when `release()` is called
 * before it was read to its end, the original body is drained in the background, up to `maxBytes` more or `maxMs`,
 * whichever comes first; then it is cancelled. A body read to its end needs neither.
 */
export function lingeringBody(request: Request, options: LingerOptions = {}): LingeringBody {
  // The production server's request drains its own body, off the socket (NodeRequest.releaseBody, same bounds), and
  // lets parsers read it without Web streams (readNodeBody, nodeBodyOf).
  const release = nodeBodyRelease(request);
  if (release) return { request, release };
  if (!request.body) return { request, release: () => undefined };
  const source = request.body.getReader();
  const maxBytes = options.maxBytes ?? LINGER_MAX_BYTES;
  const maxMs = options.maxMs ?? LINGER_MAX_MS;
  let ended = false;
  let draining = false;
  const linger = () => {
    if (ended || draining) return;
    draining = true;
    void drain(source, maxBytes, maxMs);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.read();
      if (done) {
        ended = true;
        controller.close();
      } else controller.enqueue(value);
    },
    cancel: linger,
  });
  const wrapped = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
  return { request: wrapped, release: linger };
}

async function drain(source: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let discarded = 0;
  const timer = setTimeout(() => void source.cancel().catch(() => undefined), maxMs);
  try {
    while (discarded <= maxBytes && Date.now() < deadline) {
      const { done, value } = await source.read();
      if (done) return;
      discarded += value.byteLength;
    }
    await source.cancel();
  } catch {
    // The client went away or the timer cancelled the body: nothing left to drain.
  } finally {
    clearTimeout(timer);
  }
}
