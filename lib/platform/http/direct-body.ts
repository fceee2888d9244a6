// Responses whose body the gateway made itself (JSON answers, errors, images). The production server writes the
// parts as they are instead of pumping a stream (lib/platform/http/node-adapter.ts); everyone else (Next.js in development,
// tests calling a handler) gets a normal Response, because the body stream is made only when first asked for.
// `new Response(string)` builds that stream up front (~17 µs a call here, against ~1 µs without a body), and an
// image answer would be copied whole into it.

export type BodyPart = string | Uint8Array;
/** A part made while the body is written (an image passed on as the upstream sends it): the body then has no
 *  length up front and goes out chunked. Whoever writes it must iterate it to its end or call return(), so that
 *  the code behind it can finish (settle, release). */
export type StreamedPart = AsyncIterable<BodyPart>;

function isStreamed(part: BodyPart | StreamedPart): part is StreamedPart {
  return typeof part !== "string" && !(part instanceof Uint8Array);
}

function bytesOf(part: BodyPart): Uint8Array {
  return typeof part === "string" ? Buffer.from(part) : part;
}

const HEADER_NAME = /^[!#$%&'*+\-.^`|~\w]+$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const BAD_VALUE = /[\0\r\n]|[^\0-\xff]/;

/** The init a DirectResponse is made with: its headers as a record (names in any case). */
export type DirectInit = { status?: number; statusText?: string; headers?: Record<string, string> };

/**
 * Status and headers are kept as plain values and a Headers is made only when someone asks for `headers`: the
 * Fetch constructor's init (the status checks, a Headers filled through its name and value checks) and each
 * `headers.set` cost more than the rest of building an answer (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md). The production
 * server reads the record (`headerRecord`), and the pipeline adds its headers with `setHeaders`, so a relayed answer
 * never builds one. Everyone else sees an ordinary Response.
 */
export class DirectResponse extends Response {
  /** The body, in order: text (written as UTF-8), bytes (written as they are, not copied) and streamed parts. */
  readonly parts: readonly (BodyPart | StreamedPart)[];
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;
  #used = false;
  readonly #status: number;
  readonly #statusText: string;
  /** The headers, lower-case names, until a Headers is made from them; then null. */
  #record: Record<string, string> | null;
  #headers: Headers | null = null;

  constructor(parts: readonly (BodyPart | StreamedPart)[], init: DirectInit) {
    super(null);
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`Invalid response status code ${status}`);
    this.parts = parts;
    this.#status = status;
    this.#statusText = init.statusText ?? "";
    this.#record = {};
    if (init.headers) this.setHeaders(init.headers);
  }

  override get status(): number {
    return this.#status;
  }

  override get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }

  override get statusText(): string {
    return this.#statusText;
  }

  override get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(this.#record!)) headers.set(name, value);
      this.#headers = headers;
      this.#record = null;
    }
    return this.#headers;
  }

  /** Sets each header (replacing one of the same name, in any case), without making a Headers when none was made. */
  setHeaders(headers: Record<string, string>): void {
    if (this.#headers) {
      for (const [name, value] of Object.entries(headers)) this.#headers.set(name, value);
      return;
    }
    for (const [name, value] of Object.entries(headers)) {
      // The checks and the trimming a Headers does (the Fetch standard's header name, value and normalisation).
      if (!HEADER_NAME.test(name)) throw new TypeError(`Headers.set: "${name}" is an invalid header name.`);
      const normalised = value.replace(EDGE_WHITESPACE, "");
      if (BAD_VALUE.test(normalised)) throw new TypeError(`Headers.set: "${value}" is an invalid header value.`);
      this.#record![name.toLowerCase()] = normalised;
    }
  }

  /** One header's value, or null (without making a Headers when none was made). */
  header(name: string): string | null {
    return this.#record ? (this.#record[name.toLowerCase()] ?? null) : this.#headers!.get(name);
  }

  /** The headers as name → value, for writing the answer (the record itself when no Headers was made; the writer adds
   *  its Content-Length to it). */
  headerRecord(): Record<string, string | string[]> {
    if (this.#record) return this.#record;
    const out: Record<string, string | string[]> = {};
    this.#headers!.forEach((value, name) => {
      if (name !== "set-cookie") out[name] = value;
    });
    const cookies = this.#headers!.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    return out;
  }

  /** The body's length in bytes (for Content-Length); null when a part is streamed. */
  byteLength(): number | null {
    let length = 0;
    for (const part of this.parts) {
      if (isStreamed(part)) return null;
      length += typeof part === "string" ? Buffer.byteLength(part) : part.byteLength;
    }
    return length;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    if (this.#stream) return this.#stream;
    if (this.byteLength() !== null) {
      this.#stream = new Response(new Blob(this.parts as BlobPart[])).body!;
      return this.#stream;
    }
    const parts = this.parts;
    let index = 0;
    let current: AsyncIterator<BodyPart> | null = null;
    this.#stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
      async pull(controller) {
        for (;;) {
          if (current) {
            const next = await current.next();
            if (!next.done) return controller.enqueue(bytesOf(next.value) as Uint8Array<ArrayBuffer>);
            current = null;
          }
          if (index >= parts.length) return controller.close();
          const part = parts[index++]!;
          if (!isStreamed(part)) return controller.enqueue(bytesOf(part) as Uint8Array<ArrayBuffer>);
          current = part[Symbol.asyncIterator]();
        }
      },
      // The part being read is told at once, even while its next() is waiting (a relayed stream settles and aborts
      // its upstream then); so is every streamed part not reached yet, so that the code behind it can finish.
      async cancel() {
        const left = [
          current,
          ...parts
            .slice(index)
            .filter(isStreamed)
            .map((part) => part[Symbol.asyncIterator]()),
        ];
        index = parts.length;
        current = null;
        await Promise.all(left.map((iterator) => iterator?.return?.(undefined))).catch(() => undefined);
      },
    });
    return this.#stream;
  }

  /** Every part as bytes, streamed parts chunk by chunk. */
  async *#chunks(): AsyncGenerator<Uint8Array> {
    for (const part of this.parts) {
      if (isStreamed(part)) for await (const chunk of part) yield bytesOf(chunk);
      else yield bytesOf(part);
    }
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  async #take(): Promise<Buffer> {
    if (this.#used || this.#stream) throw new TypeError("Body is unusable: the body has already been read");
    this.#used = true;
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.#chunks()) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  override async text(): Promise<string> {
    if (this.parts.length === 1 && typeof this.parts[0] === "string" && !this.#used && !this.#stream) {
      this.#used = true;
      return this.parts[0];
    }
    return (await this.#take()).toString("utf8");
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(await this.#take()).buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.#take());
  }

  override async blob(): Promise<Blob> {
    return new Blob([new Uint8Array(await this.#take())], { type: this.headers.get("content-type") ?? "" });
  }

  override clone(): DirectResponse {
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    if (this.byteLength() === null) throw new TypeError("Response.clone: a streamed body cannot be read twice");
    const copy = new DirectResponse(this.parts, { status: this.status, statusText: this.statusText });
    if (this.#record) copy.#record = { ...this.#record };
    else {
      // A Headers keeps every set-cookie apart; a record could not.
      copy.#headers = new Headers(this.#headers!);
      copy.#record = null;
    }
    return copy;
  }
}

export function textResponse(text: string, status: number, headers: Record<string, string>): Response {
  return new DirectResponse([text], { status, headers });
}

/** One header of an answer: without making a Headers for a DirectResponse that has none yet. */
export function responseHeader(response: Response, name: string): string | null {
  return response instanceof DirectResponse ? response.header(name) : response.headers.get(name);
}

/** Sets headers on an answer: without making a Headers for a DirectResponse that has none yet. */
export function setResponseHeaders(response: Response, headers: Record<string, string>): void {
  if (response instanceof DirectResponse) response.setHeaders(headers);
  else for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
}
