// Bridges node:http and Web Request/Response for the production server: /v1 and the JSON APIs are served by
// plain (Request) => Response functions without going through Next.js's router (architecture decision 1).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

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
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : undefined,
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
