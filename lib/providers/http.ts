// One way to call an upstream: a deadline for the response headers, the client's abort passed on, and every
// failure classified (retry on another channel or not, switch the channel off or not).
import { Readable } from "node:stream";
import { Agent, request as undiciRequest } from "undici";
import type { UpstreamFailure } from "./types";
import { singleton } from "@/lib/platform/singleton";
import { declaredLength, streamEnded, takeArrived } from "@/lib/platform/http/arrived-body";
import { stringifyInSlices } from "@/lib/platform/http/sliced-stringify";

/** One keep-alive connection pool for every upstream. undici's request() costs a fraction of fetch() per call
 *  (measured here: ~14,000 vs ~2,400 calls/s at 50 in parallel); the answer is wrapped in a Web Response so the
 *  adapters keep one interface. */
function dispatcher(): Agent {
  return singleton(
    "providers.agent",
    () => new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256, headersTimeout: 0, bodyTimeout: 0 }),
  );
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

/** A request body: text, bytes, a stream, or the buffers of a body serialised in slices (sent with its length). */
export type UpstreamBody = string | Buffer | Buffer[] | ReadableStream<Uint8Array> | Readable | null;

export type UpstreamInit = Omit<RequestInit, "body"> & { body?: UpstreamBody; duplex?: "half" };

async function send(url: string, init: UpstreamInit, signal: AbortSignal, idleTimeoutMs: number): Promise<Response> {
  const body = init.body;
  let headers = headerRecord(init.headers as RequestInit["headers"]);
  if (Array.isArray(body)) headers = { ...headers, "content-length": String(body.reduce((total, chunk) => total + chunk.length, 0)) };
  const answer = await undiciRequest(url, {
    method: (init.method ?? "GET") as "POST",
    headers,
    body: body instanceof ReadableStream ? Readable.fromWeb(body as never) : Array.isArray(body) ? Readable.from(body) : (body ?? null),
    signal,
    dispatcher: dispatcher(),
    // The idle deadline once the headers are in: undici's body timeout is the time between two chunks of the body,
    // and it does not run while the gateway itself is not reading (a slow client's backpressure).
    bodyTimeout: idleTimeoutMs,
  });
  // The same error object reaches every reader of the body (json/text below, the Web stream of `body`): give it a
  // message that says what happened, for the client and the ledger.
  answer.body.once("error", (error: Error & { code?: string }) => {
    if (error?.code === "UND_ERR_BODY_TIMEOUT") error.message = `The upstream sent nothing for ${seconds(idleTimeoutMs)} s`;
  });
  const noBody = answer.statusCode === 204 || answer.statusCode === 304 || init.method === "HEAD";
  if (noBody) answer.body.resume();
  return upstreamResponse(answer.statusCode, answer.headers, noBody ? null : answer.body);
}

/** Where an answer from upstreamFetch keeps undici's own body (a Node stream), for readers that want no Web stream. */
const NODE_BODY = Symbol("upstream node body");

/** undici's body stream. */
type NodeBody = Readable;

/**
 * The upstream's answer with the Response members the adapters use (status, ok, headers, json, text, body).
 * json() and text() read undici's body directly; a Web stream is built only when `body` is asked for
 * (streams): building one for every JSON answer was a measurable share of a request. A class, so that its methods
 * are not closures made per answer (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md).
 */
class UpstreamAnswer {
  readonly [NODE_BODY]: NodeBody | null;
  readonly ok: boolean;
  #web: ReadableStream<Uint8Array> | null = null;
  #headers: Headers | null = null;

  constructor(
    readonly status: number,
    private readonly raw: Record<string, string | string[] | undefined>,
    body: NodeBody | null,
  ) {
    this[NODE_BODY] = body;
    this.ok = status >= 200 && status < 300;
  }

  /** Made when first asked for: most JSON answers are read without looking at a header. */
  get headers(): Headers {
    if (this.#headers) return this.#headers;
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.raw)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    this.#headers = headers;
    return headers;
  }

  json(): Promise<unknown> {
    const body = this[NODE_BODY];
    return body ? readCapped(body, declaredLength(this.raw)).then(JSON.parse) : Promise.reject(new SyntaxError("empty body"));
  }

  text(): Promise<string> {
    const body = this[NODE_BODY];
    return body ? readCapped(body, declaredLength(this.raw)) : Promise.resolve("");
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const body = this[NODE_BODY];
    const bytes = body ? await readBytes(body, MAX_TEXT_RESPONSE_BYTES) : Buffer.alloc(0);
    if (!bytes) throw new UpstreamTooLargeError(MAX_TEXT_RESPONSE_BYTES);
    return new Uint8Array(bytes).buffer;
  }

  get body(): ReadableStream<Uint8Array> | null {
    const body = this[NODE_BODY];
    if (!body) return null;
    this.#web ??= Readable.toWeb(body) as ReadableStream<Uint8Array>;
    return this.#web;
  }
}

function upstreamResponse(status: number, raw: Record<string, string | string[] | undefined>, body: NodeBody | null): Response {
  return new UpstreamAnswer(status, raw, body) as unknown as Response;
}

/** undici's body of an answer of upstreamFetch (null when it has none); undefined for any other Response. */
function nodeBody(response: Response): NodeBody | null | undefined {
  return (response as unknown as { [NODE_BODY]?: NodeBody | null })[NODE_BODY];
}

/**
 * The whole of an upstream answer (from upstreamFetch) as one buffer, or null past `limit` bytes (the rest is not
 * read). Reads undici's Node stream directly and copies each chunk once into a buffer of the declared length: for a
 * 33 MB image answer, a Web stream adapter and a final concatenation were most of the gateway's CPU and doubled its
 * memory.
 */
export async function readUpstreamBytes(response: Response, limit: number): Promise<Buffer | null> {
  const body = nodeBody(response);
  if (body === undefined) throw new TypeError("readUpstreamBytes reads answers of upstreamFetch only");
  if (!body) return Buffer.alloc(0);
  return readBytes(body, limit, Number(response.headers.get("content-length") ?? "-1"));
}

/** A body read whole: into one buffer of the declared length when there is one; null past `limit` bytes (declared
 *  or read; the rest is not read). */
async function readBytes(body: NodeBody, limit: number, declared = -1): Promise<Buffer | null> {
  if (declared > limit) {
    body.destroy();
    return null;
  }
  const arrived = takeArrived(body, (buffered) => (declared >= 0 ? declared === buffered : streamEnded(body)), limit);
  if (arrived) return arrived;
  const whole = Number.isSafeInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.byteLength > limit) {
      body.destroy();
      return null;
    }
    if (whole) {
      if (size + chunk.byteLength > whole.length) {
        body.destroy();
        throw new Error("The upstream sent more than its declared Content-Length");
      }
      whole.set(chunk, size);
    } else chunks.push(chunk);
    size += chunk.byteLength;
  }
  if (whole) {
    if (size !== whole.length) throw new Error("The upstream's answer ended before its declared Content-Length");
    return whole;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** The body to read events from: undici's own Node stream for an answer of upstreamFetch (no Web stream adapter in
 *  between: cheaper per event and for the first byte), the Web stream otherwise. Code that reads this must not also
 *  touch `response.body`: on an answer of upstreamFetch that attaches a second reader to the same Node stream, which
 *  receives (and keeps) every chunk too. */
export function upstreamBody(response: Response): ReadableStream<Uint8Array> | NodeJS.ReadableStream {
  return nodeBody(response) ?? response.body!;
}

/** Drops an answer nobody will read (the connection is closed), without making a Web stream for it first. */
export function discardUpstreamBody(response: Response): void {
  const body = nodeBody(response);
  if (body !== undefined) body?.destroy();
  else void response.body?.cancel().catch(() => undefined);
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 120_000;

/**
 * How long an upstream may send nothing once its headers are in (a stalled stream or body), unless the channel sets
 * `settings.idleTimeoutMs`. Minutes, not seconds: a Responses stream may go quiet while an image is generated.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** The most of a JSON (or error) answer read into memory; a chat completion is far smaller. Images have their own cap. */
export const MAX_TEXT_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Thrown while reading an answer larger than MAX_TEXT_RESPONSE_BYTES (the rest is not read). */
export class UpstreamTooLargeError extends Error {
  constructor(limit: number) {
    super(`The upstream's answer is larger than ${Math.round(limit / 1024 / 1024)} MB`);
    this.name = "UpstreamTooLargeError";
  }
}

async function readCapped(body: NodeBody, declared: number, limit = MAX_TEXT_RESPONSE_BYTES): Promise<string> {
  const bytes = await readBytes(body, limit, declared);
  if (!bytes) throw new UpstreamTooLargeError(limit);
  return bytes.toString("utf8");
}

/** "0.4" for 400 ms, "120" for 120000 ms. */
function seconds(ms: number): string {
  return ms < 10_000 ? String(Math.round(ms / 100) / 10) : String(Math.round(ms / 1000));
}

/** The channel's deadlines (settings.timeoutMs for the headers, settings.idleTimeoutMs between chunks), when set. */
export function channelDeadlines(settings: Record<string, unknown>): { timeoutMs?: number; idleTimeoutMs?: number } {
  return { timeoutMs: positiveNumber(settings.timeoutMs), idleTimeoutMs: positiveNumber(settings.idleTimeoutMs) };
}

function positiveNumber(value: unknown): number | undefined {
  const number = typeof value === "number" || typeof value === "string" ? Number(value) : NaN;
  return Number.isFinite(number) && number > 0 ? number : undefined;
}

/** The upstream stopped sending mid-body for longer than the idle deadline. */
export function isUpstreamIdle(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "UND_ERR_BODY_TIMEOUT";
}

/** Why reading an answer's body failed, as a failure to retry elsewhere (nothing has reached the client yet). */
export function bodyFailure(error: unknown, signal: AbortSignal): UpstreamFailure {
  if (signal.aborted)
    return { ok: false, retryable: false, status: 499, message: "The client closed the connection", cause: "client_gone" };
  if (error instanceof UpstreamTooLargeError)
    return { ok: false, retryable: true, status: 502, message: error.message, cause: "upstream_too_large" };
  if (isUpstreamIdle(error)) return { ok: false, retryable: true, status: 504, message: (error as Error).message, cause: "timeout" };
  return {
    ok: false,
    retryable: true,
    status: 502,
    message: "The upstream's answer was cut off before it was complete",
    cause: "upstream_truncated",
  };
}

/** A non-streaming answer as a JSON object, or the failure that lets another channel try. */
export async function readUpstreamJson(
  response: Response,
  signal: AbortSignal,
): Promise<{ ok: true; value: Record<string, unknown> } | UpstreamFailure> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return bodyFailure(error, signal);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, retryable: true, status: 502, message: "The upstream's answer is not valid JSON", cause: "upstream_malformed" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, retryable: true, status: 502, message: "The upstream's answer is not a JSON object", cause: "upstream_malformed" };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export type FetchResult = { ok: true; response: Response; abort: AbortController } | UpstreamFailure;

/** Bodies from this size on are serialised in slices (lib/platform/http/sliced-stringify.ts). */
export const SLICED_BODY_BYTES = 256 * 1024;

/**
 * A JSON request body for upstreamFetch: as one string when it is small (`sizeHint`, the size of what it was made
 * from), else in slices that never hold the event loop for more than a few milliseconds
 * (docs/decisions/0018-large-bodies-off-the-event-loop.md).
 */
export async function jsonBody(value: unknown, sizeHint: number): Promise<string | Buffer[]> {
  return sizeHint < SLICED_BODY_BYTES ? JSON.stringify(value) : stringifyInSlices(value);
}

export async function upstreamFetch(
  url: string,
  init: UpstreamInit,
  options: {
    signal: AbortSignal;
    timeoutMs?: number;
    idleTimeoutMs?: number;
    /** When the deadline for the answer's headers starts, if not at once: an edit sent while it is uploaded is given
     *  its deadline from the end of the upload, however slowly the client sends it. */
    deadlineFrom?: Promise<void>;
  },
): Promise<FetchResult> {
  const abort = new AbortController();
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  let timedOut = false;
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  // Methods, not arrow functions bound to names: the TypeScript runner names each such closure as it is made, a
  // cost per request (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md).
  const on = {
    clientAbort() {
      abort.abort(options.signal.reason);
    },
    startDeadline() {
      if (answered) return;
      timer = setTimeout(() => {
        timedOut = true;
        abort.abort(new Error("upstream timeout"));
      }, timeoutMs);
    },
  };
  const onClientAbort = on.clientAbort;
  if (options.signal.aborted) onClientAbort();
  else options.signal.addEventListener("abort", onClientAbort, { once: true });
  if (options.deadlineFrom) options.deadlineFrom.then(on.startDeadline, () => undefined);
  else on.startDeadline();
  let response: Response;
  try {
    response = await send(url, init, abort.signal, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
  } catch (error) {
    options.signal.removeEventListener("abort", onClientAbort);
    if (options.signal.aborted)
      return { ok: false, retryable: false, status: 499, message: "The client closed the connection", cause: "client_gone" };
    if (timedOut)
      return {
        ok: false,
        retryable: true,
        status: 504,
        message: `The upstream did not answer within ${seconds(timeoutMs)} s`,
        cause: "timeout",
      };
    // undici puts the system error code on the error itself (fetch put it on `cause`).
    const detail = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { ok: false, retryable: true, status: 502, message: `Could not reach the upstream (${detail})`, cause: "connection" };
  } finally {
    answered = true;
    clearTimeout(timer);
  }
  // From here the client's abort still cancels the body: keep the listener until the caller is done.
  if (response.ok) return { ok: true, response, abort };
  const text = await response.text().catch(() => "");
  options.signal.removeEventListener("abort", onClientAbort);
  return classifyStatus(response.status, text, response.headers.get("retry-after") ?? undefined);
}

/** Google's reason for a key it does not know: its APIs answer 400 INVALID_ARGUMENT, not 401
 *  (https://cloud.google.com/apis/design/errors, ErrorInfo). */
const GOOGLE_KEY_REFUSED = new Set(["API_KEY_INVALID", "API_KEY_EXPIRED"]);

/** The error's message, type and code from an OpenAI-, Anthropic- or Google-shaped body (Google's `status`, e.g.
 *  `INVALID_ARGUMENT`, as the code), an OAuth 2 error (RFC 6749 5.2: `error` is the code, `error_description` the
 *  words), or the start of plain text; `keyRefused` when Google says the key is invalid. */
function upstreamErrorFields(text: string): { message: string; type?: string; code?: string; keyRefused?: boolean } {
  try {
    const body = JSON.parse(text) as {
      error?: { message?: unknown; type?: unknown; code?: unknown; status?: unknown; details?: unknown } | string;
      error_description?: unknown;
      message?: unknown;
      type?: unknown;
    };
    const word = (value: unknown) => (typeof value === "string" && value ? value : typeof value === "number" ? String(value) : undefined);
    if (typeof body.error === "string")
      return word(body.error_description) ? { message: word(body.error_description)!, code: body.error } : { message: body.error };
    if (body.error && typeof body.error === "object") {
      const message = word(body.error.message) ?? word(body.message);
      const details = Array.isArray(body.error.details) ? body.error.details : [];
      const keyRefused = details.some((detail) => GOOGLE_KEY_REFUSED.has((detail as { reason?: string } | null)?.reason ?? ""));
      // Google's `code` is the HTTP status and its `status` the name (INVALID_ARGUMENT); Azure's `code` is the name
      // (content_filter) and its `status` a number.
      const named = typeof body.error.code === "string" ? body.error.code : undefined;
      const google = typeof body.error.status === "string" ? body.error.status : undefined;
      if (message) return { message, type: word(body.error.type), code: named || google || word(body.error.code), keyRefused };
    }
    if (word(body.message)) return { message: word(body.message)!, type: body.type === "error" ? undefined : word(body.type) };
  } catch {
    // not JSON
  }
  return { message: text.slice(0, 300) || "no details" };
}

// Identifiers vendors put in their error texts: organisation and project ids (org-…, proj_…), request ids (req_…,
// req-…) and anything shaped like a key (sk-…, sk_…, including sk-ant-…). They say nothing a client can act on and
// identify the operator's upstream account.
const IDENTIFIERS: [RegExp, string][] = [
  [/\b(?:sk|rk|pk)[-_][A-Za-z0-9_-]{6,}/g, "[key]"],
  [/\borg[-_][A-Za-z0-9]{6,}/g, "[organization]"],
  [/\bproj[-_][A-Za-z0-9]{6,}/g, "[project]"],
  [/\breq[-_][A-Za-z0-9]{6,}/g, "[request id]"],
];

/** `text` with upstream account identifiers replaced by what they are. */
export function stripIdentifiers(text: string): string {
  let result = text;
  for (const [pattern, replacement] of IDENTIFIERS) result = result.replace(pattern, replacement);
  return result;
}

/**
 * An upstream's refusal as the gateway passes it on. A request the upstream refused (4xx) keeps the vendor's
 * message, type and code, because clients act on them (`context_length_exceeded`, "prompt is too long"), with
 * account identifiers stripped. Rate limits and upstream failures get the gateway's own sentence: what the vendor
 * says there concerns the operator's account (its limits, organisation, tier), not the request. The vendor's words
 * go to the log (`detail`).
 */
export function classifyStatus(status: number, text: string, retryAfter?: string): UpstreamFailure {
  const fields = upstreamErrorFields(text);
  const detail = fields.message;
  if (status === 401 || status === 403 || fields.keyRefused) {
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "The upstream refused this channel's credentials",
      cause: `upstream_${fields.keyRefused ? 401 : status}`,
      disable: `Upstream answered ${status}: ${detail}`,
      detail,
    };
  }
  if (status === 429)
    return {
      ok: false,
      retryable: true,
      status: 429,
      message: "The upstream is rate limiting this gateway; try again later",
      cause: "upstream_429",
      retryAfter,
      detail,
    };
  if (status >= 500)
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: `The upstream failed (${status}); try again later`,
      cause: `upstream_${status}`,
      detail,
    };
  if (status >= 300 && status < 400)
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: `The upstream answered with a redirect (${status}), which is not followed`,
      cause: "upstream_redirect",
      detail,
    };
  // Other 4xx: the request itself was refused upstream; another channel would refuse it too.
  const vendor = { type: fields.type && stripIdentifiers(fields.type), code: fields.code && stripIdentifiers(fields.code) };
  return {
    ok: false,
    retryable: false,
    status: status === 404 ? 404 : 400,
    message: stripIdentifiers(detail),
    cause: `upstream_${status}`,
    vendor,
    detail,
  };
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
