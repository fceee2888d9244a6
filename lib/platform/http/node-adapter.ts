// Bridges node:http and Web Request/Response for the production server: /v1 and the JSON APIs are served by
// plain (Request) => Response functions without going through Next.js's router (docs/decisions/0001-plain-handlers.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import { DirectResponse } from "./direct-body";
import { clientAddress } from "./client-address";
import { declaredLength, takeArrived } from "./arrived-body";

/** After a handler stops reading a body early, what is still arriving is read and discarded up to DRAIN_MAX_BYTES,
 *  then no longer read at all, and the connection is cut DRAIN_MAX_MS after the drain began (or earlier, when the
 *  client closes it): a "lingering close", so the client receives the answer instead of a reset. */
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
        if (!finished) drainBounded(incoming);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads and discards what is still arriving of a body nobody will read, within bounds, then cuts the connection.
 *
 * Past the byte bound the body is left unread (paused) rather than cut there. A client busy writing may not have
 * looked at its socket yet when the bytes run out (on loopback 32 MB arrive in tens of milliseconds, and under load
 * the client's turn to read comes later; one that sends its whole body before reading never looks while its writes
 * go through). Cutting the connection then, with its input unread, makes the kernel send a reset, and the client sees
 * ECONNRESET instead of the 413 that explains why (tests/unit/lingering-close.test.ts reproduces it). Left unread,
 * its writes stall, it reads the answer and closes; one that never does is cut at the time bound.
 */
function drainBounded(incoming: IncomingMessage): void {
  let drained = 0;
  const timer = setTimeout(() => incoming.destroy(), DRAIN_MAX_MS);
  const discard = (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_MAX_BYTES) {
      incoming.off("data", discard);
      incoming.pause();
    }
  };
  incoming.on("data", discard);
  incoming.once("end", () => clearTimeout(timer));
  incoming.once("close", () => clearTimeout(timer));
  incoming.resume();
}

/**
 * The request's headers as a real Headers object whose lookups (get, has: nearly all a handler does) read a plain map
 * made from node:http's raw headers, joined as the Fetch standard joins them. Filling a Headers through append() ran
 * its name and value checks for every header of every request (~5 % of a relayed chat request); node:http's parser
 * has checked them already. Anything else (iteration, a change) first copies them into the Headers itself.
 */
class NodeHeaders extends Headers {
  #map: Map<string, string> | null;
  #cookies: string[];

  constructor(raw: string[], extra: [string, string][]) {
    super();
    const map = new Map<string, string>();
    const cookies: string[] = [];
    for (let index = 0; index < raw.length; index += 2) {
      const name = raw[index]!.toLowerCase();
      if (name.startsWith(":")) continue;
      const value = raw[index + 1]!.trim();
      if (name === "set-cookie") cookies.push(value);
      const before = map.get(name);
      map.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    for (const [name, value] of extra) map.set(name, value);
    this.#map = map;
    this.#cookies = cookies;
  }

  /** From here on the Headers itself holds the values. */
  #materialize(): void {
    const map = this.#map;
    if (!map) return;
    this.#map = null;
    for (const [name, value] of map) {
      if (name === "set-cookie") for (const cookie of this.#cookies) super.append(name, cookie);
      else super.append(name, value);
    }
  }

  override get(name: string): string | null {
    if (this.#map) return this.#map.get(name.toLowerCase()) ?? null;
    return super.get(name);
  }

  override has(name: string): boolean {
    if (this.#map) return this.#map.has(name.toLowerCase());
    return super.has(name);
  }

  override set(name: string, value: string): void {
    this.#materialize();
    super.set(name, value);
  }

  override append(name: string, value: string): void {
    this.#materialize();
    super.append(name, value);
  }

  override delete(name: string): void {
    this.#materialize();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.#materialize();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#materialize();
    super.forEach(callback, thisArg);
  }

  override entries(): HeadersIterator<[string, string]> {
    this.#materialize();
    return super.entries();
  }

  override keys(): HeadersIterator<string> {
    this.#materialize();
    return super.keys();
  }

  override values(): HeadersIterator<string> {
    this.#materialize();
    return super.values();
  }

  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * The Request a handler receives from the production server: the members of a Web Request that the gateway's code
 * uses (url, method, headers, signal, body, bodyUsed, arrayBuffer, text, json), made when first used, not up front:
 * the headers (copied from node:http once asked for), the body stream (made only when a handler streams it; JSON
 * bodies are read straight off the socket by readNodeBody). It does not extend Request: the Fetch Request
 * constructor (URL parsing, its init dictionary, its own AbortSignal) cost ~20 µs of a relayed chat request's
 * ~450 µs in the gateway (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md). Code that needs a real Request
 * (lib/platform/http/linger.ts) builds one from these members.
 */
class NodeRequest {
  readonly url: string;
  readonly method: string;
  readonly #incoming: IncomingMessage;
  readonly #controller: AbortController;
  readonly #extraHeaders: [string, string][];
  readonly #hasBody: boolean;
  #headers: Headers | null = null;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;
  #consumed = false;
  #nodeBodyTaken = false;
  #released = false;

  constructor(url: string, method: string, incoming: IncomingMessage, controller: AbortController, extraHeaders: [string, string][]) {
    this.url = url;
    this.method = method;
    this.#incoming = incoming;
    this.#controller = controller;
    this.#extraHeaders = extraHeaders;
    this.#hasBody = method !== "GET" && method !== "HEAD";
  }

  get [Symbol.toStringTag](): string {
    return "Request";
  }

  get headers(): Headers {
    this.#headers ??= new NodeHeaders(this.#incoming.rawHeaders, this.#extraHeaders);
    return this.#headers;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (!this.#hasBody) return null;
    if (!this.#stream) {
      if (this.#consumed) throw new TypeError("The request body was already read");
      this.#consumed = true;
      this.#stream = lazyBody(this.#incoming) as ReadableStream<Uint8Array<ArrayBuffer>>;
    }
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#consumed;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array((await this.readAll(Infinity)) as Buffer).buffer;
  }

  async text(): Promise<string> {
    return ((await this.readAll(Infinity)) as Buffer).toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /**
   * The body as node:http's own stream, for a parser that takes Node streams (multipart uploads): no Web stream in
   * between. `cancel()` stops taking it: what is still arriving is drained within bounds, then the connection is cut.
   */
  nodeBody(): { stream: IncomingMessage; cancel(): void } | null {
    if (!this.#hasBody || this.#consumed) return null;
    this.#consumed = true;
    this.#nodeBodyTaken = true;
    return { stream: this.#incoming, cancel: () => this.releaseBody() };
  }

  /**
   * The handler is done with the body (lib/platform/http/linger.ts): if it was never read, or taken by nodeBody() and
   * not read to its end, what is still arriving is drained within bounds, so the client reads the answer instead of
   * a reset. A body read another way (readAll, the Web stream) is that way's to finish.
   */
  releaseBody(): void {
    const incoming = this.#incoming;
    if (!this.#hasBody || this.#released || incoming.readableEnded) return;
    if (this.#consumed && !this.#nodeBodyTaken) return;
    this.#consumed = true;
    this.#released = true;
    drainBounded(incoming);
  }

  /** The whole body, read off the socket without a Web stream; past `limit` bytes the rest is drained (bounded). */
  readAll(limit: number): Promise<Buffer | "too_large"> {
    if (!this.#hasBody) return Promise.resolve(Buffer.alloc(0));
    if (this.#consumed) return Promise.reject(new TypeError("The request body was already read"));
    this.#consumed = true;
    const incoming = this.#incoming;
    if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
    const arrived = takeArrived(incoming, (buffered) => declaredLength(incoming.headers) === buffered, limit);
    if (arrived) return Promise.resolve(arrived);
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = listenToBody(incoming, {
        data: (chunk) => {
          size += chunk.byteLength;
          if (size > limit) {
            stop();
            drainBounded(incoming);
            resolve("too_large");
          } else chunks.push(chunk);
        },
        end: () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
        fail: reject,
      });
    });
  }
}

/**
 * Hands a request body's chunks to `on.data`, then its end or its failure (an error, or the client leaving) to
 * `on.end` or `on.fail`, once, after it has stopped listening. Returns the function that stops listening.
 */
export function listenToBody(
  incoming: IncomingMessage,
  on: { data(chunk: Buffer): void; end(): void; fail(error: Error): void },
): () => void {
  const onEnd = () => {
    stop();
    on.end();
  };
  const onError = (error: Error) => {
    stop();
    on.fail(error);
  };
  const onAborted = () => onError(new Error("the client aborted the upload"));
  const stop = () => {
    incoming.off("data", on.data);
    incoming.off("end", onEnd);
    incoming.off("error", onError);
    incoming.off("aborted", onAborted);
  };
  incoming.on("data", on.data);
  incoming.once("end", onEnd);
  incoming.once("error", onError);
  incoming.once("aborted", onAborted);
  return stop;
}

/** The production server's request behind a Request, or null for a real Request (tests, Next.js, the playground). */
function nodeRequestOf(request: Request): NodeRequest | null {
  const value: unknown = request;
  return value instanceof NodeRequest ? value : null;
}

/**
 * The whole body of a request the production server made, read straight off the socket (no Web stream), or null
 * for any other Request (tests, Next.js in development), which the caller then reads through `body`.
 */
export function readNodeBody(request: Request, limit: number): Promise<Buffer | "too_large"> | null {
  const node = nodeRequestOf(request);
  return node && !node.bodyUsed ? node.readAll(limit) : null;
}

/** The body as node:http's stream (NodeRequest.nodeBody), or null for any other Request or a body already taken. */
export function nodeBodyOf(request: Request): { stream: IncomingMessage; cancel(): void } | null {
  return nodeRequestOf(request)?.nodeBody() ?? null;
}

/** For a request of the production server, the function that drains what it does not read (NodeRequest.releaseBody);
 *  null for any other Request. */
export function nodeBodyRelease(request: Request): (() => void) | null {
  const node = nodeRequestOf(request);
  return node ? () => node.releaseBody() : null;
}

export function toWebRequest(incoming: IncomingMessage, outgoing: ServerResponse, requestId: string): Request {
  const host = incoming.headers.host ?? "localhost";
  const url = `http://${host}${incoming.url ?? "/"}`;
  const controller = new AbortController();
  // 'close' on the response fires when the client goes away or after we finished writing; only the first counts.
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) controller.abort(new Error("client disconnected"));
  });
  // The gateway's own id; a caller-supplied one is not trusted (it would end up in logs and the ledger). The client
  // address is the socket's, or what trusted proxies forwarded (lib/platform/http/client-address.ts); it replaces any value
  // the client sent in this header.
  const extra: [string, string][] = [
    ["x-request-id", requestId],
    ["x-gateway-client-address", clientAddress(incoming.socket.remoteAddress, incoming.headers["x-forwarded-for"])],
  ];
  // A Request in every member the gateway reads (see NodeRequest).
  return new NodeRequest(url, incoming.method ?? "GET", incoming, controller, extra) as unknown as Request;
}

/** Writes a Web Response to node:http, chunk by chunk with backpressure; stops reading when the client leaves. */
export async function sendWebResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  if (response instanceof DirectResponse) {
    // A body the gateway made: its parts written as they are, with their length; no stream to pump.
    const parts = response.parts;
    const length = response.byteLength();
    const headers = response.headerRecord();
    if (length !== null) headers["content-length"] = String(length);
    outgoing.writeHead(response.status, headers);
    if (parts.length === 1 && length !== null) {
      outgoing.end(parts[0]);
      return;
    }
    try {
      for (const part of parts) {
        if (typeof part === "string" || part instanceof Uint8Array) {
          if (outgoing.destroyed) continue;
          if (!outgoing.write(part)) await drained(outgoing);
          continue;
        }
        // A streamed part is always iterated (at least once): leaving it early calls its return(), which lets the
        // code behind it settle or release what it holds even when the client has gone already. A client that
        // leaves while the part waits for its next piece (a quiet upstream stream) is passed on at once.
        const iterator = part[Symbol.asyncIterator]();
        const left = () => void iterator.return?.(undefined)?.catch(() => undefined);
        outgoing.once("close", left);
        try {
          for (;;) {
            const next = await iterator.next();
            if (next.done) break;
            if (outgoing.destroyed) {
              await iterator.return?.(undefined);
              break;
            }
            if (!outgoing.write(next.value)) await drained(outgoing);
          }
        } finally {
          outgoing.off("close", left);
        }
      }
      outgoing.end();
    } catch {
      // A streamed part failed after the headers went out: the only honest signal left is to cut the connection.
      outgoing.destroy();
    }
    return;
  }
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
      if (!outgoing.write(value)) await drained(outgoing);
    }
    outgoing.end();
  } catch {
    // The body stream failed after the headers were sent: the only honest signal left is to cut the connection.
    outgoing.destroy();
  } finally {
    outgoing.off("close", onClose);
  }
}

/** Resolves when the socket can take more, or when it closed. */
function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const resume = () => {
      outgoing.off("close", resume);
      outgoing.off("drain", resume);
      resolve();
    };
    outgoing.once("drain", resume);
    outgoing.once("close", resume);
  });
}
