// Bridges node:http and Web Request/Response for the production server: /v1 and the JSON APIs are served by
// plain (Request) => Response functions without going through Next.js's router (architecture decision 1).
import type { IncomingMessage, ServerResponse } from "node:http";
import { directBodies } from "./direct-body";

/** After a handler stops reading a body early, what is still arriving is read and discarded up to these bounds
 *  before the connection is cut, so the client receives the answer instead of a reset (a "lingering close"). */
const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
const DRAIN_MAX_MS = 5_000;

/**
 * The request body as a Web stream that touches the socket only when a handler reads it. A body nobody read is
 * discarded by node:http itself once the response is sent (so the keep-alive connection stays usable); a body
 * whose reading was cancelled (an upload over its limit) is drained within bounds, then the connection is cut.
 */
function lazyBody(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let finished = false;
  incoming.once("end", () => (finished = true));
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve, reject) => {
          const tryRead = () => {
            const chunk = incoming.read() as Buffer | null;
            if (chunk !== null) {
              cleanup();
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              resolve();
            } else if (finished || incoming.readableEnded) {
              cleanup();
              controller.close();
              resolve();
            }
          };
          const onEnd = () => {
            finished = true;
            tryRead();
          };
          const onError = (error: Error) => {
            cleanup();
            reject(error);
          };
          const onAborted = () => onError(new Error("the client aborted the upload"));
          const cleanup = () => {
            incoming.off("readable", tryRead);
            incoming.off("end", onEnd);
            incoming.off("error", onError);
            incoming.off("aborted", onAborted);
          };
          incoming.on("readable", tryRead);
          incoming.once("end", onEnd);
          incoming.once("error", onError);
          incoming.once("aborted", onAborted);
          tryRead();
        });
      },
      cancel() {
        if (finished) return;
        let drained = 0;
        const stop = () => incoming.destroy();
        const timer = setTimeout(stop, DRAIN_MAX_MS);
        incoming.on("data", (chunk: Buffer) => {
          drained += chunk.byteLength;
          if (drained > DRAIN_MAX_BYTES) stop();
        });
        incoming.once("end", () => clearTimeout(timer));
        incoming.once("close", () => clearTimeout(timer));
        incoming.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

export function toWebRequest(incoming: IncomingMessage, outgoing: ServerResponse, requestId: string): Request {
  const host = incoming.headers.host ?? "localhost";
  const url = `http://${host}${incoming.url ?? "/"}`;
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index]!;
    if (name.startsWith(":")) continue;
    headers.append(name, incoming.rawHeaders[index + 1]!);
  }
  // The gateway's own id; a caller-supplied one is not trusted (it would end up in logs and the ledger).
  headers.set("x-request-id", requestId);
  const forwarded = incoming.socket.remoteAddress ?? "";
  headers.set("x-gateway-client-address", forwarded);
  const controller = new AbortController();
  // 'close' on the response fires when the client goes away or after we finished writing; only the first counts.
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) controller.abort(new Error("client disconnected"));
  });
  const method = incoming.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    body: hasBody ? lazyBody(incoming) : undefined,
    signal: controller.signal,
    // Required by undici for a streamed request body.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a Web Response to node:http, chunk by chunk with backpressure; stops reading when the client leaves. */
export async function sendWebResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  const direct = directBodies.get(response);
  if (direct !== undefined) {
    // Known text: one write with its length, no stream to pump.
    headers["content-length"] = String(Buffer.byteLength(direct));
    outgoing.writeHead(response.status, headers).end(direct);
    return;
  }
  outgoing.writeHead(response.status, headers);
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel(new Error("client disconnected")).catch(() => undefined);
  outgoing.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) break;
      // SSE needs each event on the wire now, not when a buffer fills.
      if (!outgoing.write(value)) await new Promise<void>((resolve) => {
        const resume = () => { outgoing.off("close", resume); outgoing.off("drain", resume); resolve(); };
        outgoing.once("drain", resume);
        outgoing.once("close", resume);
      });
    }
    outgoing.end();
  } catch {
    // The body stream failed after the headers were sent: the only honest signal left is to cut the connection.
    outgoing.destroy();
  } finally {
    outgoing.off("close", onClose);
  }
}
