// Responses whose body the gateway made itself (JSON answers, errors, images). The production server writes the
// parts as they are instead of pumping a stream (lib/platform/http/node-adapter.ts); everyone else (Next.js in development,
// tests calling a handler) gets a normal Response, because the body stream is made only when first asked for.
// `new Response(string)` builds that stream up front (~17 µs a call here, against ~1 µs without a body), and an
// image answer would be copied whole into it.

export type BodyPart = string | Uint8Array;

export class DirectResponse extends Response {
  /** The body, in order: text (written as UTF-8) and bytes (written as they are, not copied). */
  readonly parts: readonly BodyPart[];
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;
  #used = false;

  constructor(parts: readonly BodyPart[], init: ResponseInit) {
    super(null, init);
    this.parts = parts;
  }

  /** The body's length in bytes (for Content-Length). */
  byteLength(): number {
    let length = 0;
    for (const part of this.parts) length += typeof part === "string" ? Buffer.byteLength(part) : part.byteLength;
    return length;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(new Blob(this.parts as BlobPart[])).body!;
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  #take(): Buffer {
    if (this.#used || this.#stream) throw new TypeError("Body is unusable: the body has already been read");
    this.#used = true;
    return Buffer.concat(this.parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
  }

  override async text(): Promise<string> {
    if (this.parts.length === 1 && typeof this.parts[0] === "string" && !this.#used && !this.#stream) {
      this.#used = true;
      return this.parts[0];
    }
    return this.#take().toString("utf8");
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.#take()).buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(this.#take());
  }

  override async blob(): Promise<Blob> {
    return new Blob([new Uint8Array(this.#take())], { type: this.headers.get("content-type") ?? "" });
  }

  override clone(): DirectResponse {
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new DirectResponse(this.parts, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

export function textResponse(text: string, status: number, headers: Record<string, string>): Response {
  return new DirectResponse([text], { status, headers });
}
