// Reading a JSON request body when it may be large: money before work (docs/billing.md, "Money before work") and no
// copy that holds the event loop (docs/decisions/0018-large-bodies-off-the-event-loop.md). A body below `watch.fromBytes` is read as
// before, in one piece (lib/platform/http/json.ts), and nobody is asked anything. From that size, whoever pays is asked
// once (`watch.start`) before the first byte is read when the length is declared, or once that much has arrived when
// it is not; the answer is how many text bytes (lib/platform/http/text-bytes.ts) the body may hold. Past them the
// reading stops and the body is drained within bounds (lib/platform/http/linger.ts): never parsed.
import { GatewayError } from "@/lib/platform/errors";
import { lingeringBody } from "./linger";
import { limitText, MAX_JSON_DEPTH, parseJsonObject } from "./json";
import { parseJsonInSlices, SliceError } from "./sliced-json";
import { listenToBody, nodeBodyOf, readNodeBody } from "./node-adapter";
import { TextByteCounter } from "./text-bytes";

export type BodyWatch = {
  /** Bodies of at least this many bytes (declared, or read so far when none is declared) are watched. */
  fromBytes: number;
  /** Asked once per watched body (`declared`: its length, or null): the most text bytes it may hold (Infinity for
   *  no limit), or throws the refusal. */
  start(declared: number | null): Promise<number>;
  /** The refusal of a body found to hold `textBytes` text bytes, more than allowed; `whole` when it was read to its
   *  end (then it is still not parsed). */
  refuse(textBytes: number, whole: boolean): Error;
};

/** The body's bytes, in the pieces they arrived in, and their total. */
export type BodyBytes = { chunks: Buffer[]; length: number };

function tooLarge(limit: number): GatewayError {
  return new GatewayError("body_too_large", `Request body is larger than the ${limitText(limit)} limit`);
}

/** The declared length (node:http refuses a request that has both it and Transfer-Encoding), or null. */
function declaredLength(request: Request): number | null {
  const value = request.headers.get("content-length");
  if (value === null) return null;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/** The watch on one body: when it started, what it allows, and the count that is held against that. */
class Watcher {
  allowance = Infinity;
  started = false;
  readonly counter = new TextByteCounter();
  counting = false;

  constructor(
    readonly watch: BodyWatch,
    readonly limit: number,
  ) {}

  async start(declared: number | null): Promise<void> {
    this.started = true;
    this.allowance = await this.watch.start(declared);
    // Only a body that could pass the allowance is counted: within it, its size alone settles the question.
    this.counting = this.allowance < Math.min(this.limit, declared ?? Infinity);
  }

  /** Counts `chunk`; the refusal once the body holds more text than allowed. */
  check(chunk: Buffer, whole = false): Error | null {
    if (!this.counting) return null;
    if (chunk.length) this.counter.add(chunk);
    const text = whole ? this.counter.final : this.counter.count;
    return text > this.allowance ? this.watch.refuse(text, whole) : null;
  }
}

/**
 * The body of `request`, at most `limit` bytes (413 past it), watched by `watch` from its size on (see the file
 * comment). A body that is not watched comes in one piece.
 */
export function readWatchedBody(request: Request, limit: number, watch: BodyWatch | null): Promise<BodyBytes> {
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    lingeringBody(request).release();
    return Promise.reject(tooLarge(limit));
  }
  // Not async itself: the small body's path (every chat request) takes no extra turn through a promise.
  if (!watch || (declared !== null && declared < watch.fromBytes)) return readWhole(request, limit);
  return readWatched(request, limit, watch, declared);
}

async function readWatched(request: Request, limit: number, watch: BodyWatch, declared: number | null): Promise<BodyBytes> {
  const body = lingeringBody(request);
  const watcher = new Watcher(watch, limit);
  try {
    if (declared !== null) await watcher.start(declared);
    const node = nodeBodyOf(body.request);
    const read = node ? await readNode(node, watcher) : await readStream(body.request, watcher);
    const refusal = watcher.check(Buffer.alloc(0), true);
    if (refusal) throw refusal;
    return read;
  } finally {
    body.release();
  }
}

/** The whole body in one piece (the JSON readers' way: straight off the socket on the production server). */
async function readWhole(request: Request, limit: number): Promise<BodyBytes> {
  const direct = readNodeBody(request, limit);
  if (direct) {
    const bytes = await direct;
    if (bytes === "too_large") throw tooLarge(limit);
    return { chunks: [bytes], length: bytes.length };
  }
  if (!request.body) return { chunks: [], length: 0 };
  const reader = request.body.getReader();
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return { chunks: [Buffer.concat(chunks, length)], length };
}

/** Reads node:http's stream, pausing it while the payer is asked; a refusal or the limit stops it (then drained). */
function readNode(node: NonNullable<ReturnType<typeof nodeBodyOf>>, watcher: Watcher): Promise<BodyBytes> {
  const { stream } = node;
  const chunks: Buffer[] = [];
  let length = 0;
  return new Promise<BodyBytes>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      stop();
      node.cancel();
      reject(error);
    };
    const take = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > watcher.limit) return fail(tooLarge(watcher.limit));
      const refusal = watcher.check(chunk);
      if (refusal) fail(refusal);
    };
    const stop = listenToBody(stream, {
      data(chunk) {
        if (settled) return;
        if (watcher.started || length + chunk.length < watcher.watch.fromBytes) return take(chunk);
        // The size that starts the watch, on a body of undeclared length: nothing more is taken until the payer
        // has answered (the chunks so far are counted then).
        stream.pause();
        chunks.push(chunk);
        length += chunk.length;
        watcher.start(null).then(
          () => {
            if (settled) return;
            const refusal = chunks.reduce<Error | null>((found, piece) => found ?? watcher.check(piece), null);
            if (refusal) return fail(refusal);
            if (length > watcher.limit) return fail(tooLarge(watcher.limit));
            stream.resume();
          },
          (error: Error) => fail(error),
        );
      },
      end() {
        if (settled) return;
        settled = true;
        resolve({ chunks, length });
      },
      fail,
    });
  });
}

/** The same for a Web stream (a Request made by another handler, tests). */
async function readStream(request: Request, watcher: Watcher): Promise<BodyBytes> {
  if (!request.body) return { chunks: [], length: 0 };
  const reader = request.body.getReader();
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks, length };
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      chunks.push(chunk);
      length += chunk.length;
      if (length > watcher.limit) throw tooLarge(watcher.limit);
      if (!watcher.started && length >= watcher.watch.fromBytes) {
        await watcher.start(null);
        for (const piece of chunks) {
          const refusal = watcher.check(piece);
          if (refusal) throw refusal;
        }
      } else {
        const refusal = watcher.check(chunk);
        if (refusal) throw refusal;
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}

/**
 * The chunks of a body in one buffer, copied a megabyte at a time (one copy of 30 MB holds the event loop for ~5-10 ms
 * here); in shared memory when `shared` (a worker then reads it without a copy of its own). The chunks are let go.
 */
export async function joinInSlices(read: BodyBytes, shared: boolean): Promise<Buffer> {
  if (!shared && read.chunks.length === 1) return read.chunks[0]!;
  const joined = shared ? Buffer.from(new SharedArrayBuffer(read.length)) : Buffer.allocUnsafe(read.length);
  let offset = 0;
  let sinceBreak = 0;
  for (const chunk of read.chunks) {
    chunk.copy(joined, offset);
    offset += chunk.length;
    sinceBreak += chunk.length;
    if (sinceBreak >= 1024 * 1024) {
      sinceBreak = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  read.chunks.length = 0;
  return joined;
}

/**
 * From this size on a JSON body is parsed in slices (lib/platform/http/sliced-json.ts) rather than at once: below it
 * `JSON.parse` takes ~1-2 ms here even for a body of small objects (docs/decisions/0018-large-bodies-off-the-event-loop.md).
 */
export const SLICED_PARSE_BYTES = 192 * 1024;

/**
 * A watched JSON body (see readWatchedBody) as an object, parsed at once when small and in slices when large, with
 * the same answers as parseJsonObject (lib/platform/http/json.ts) for a body that is not a JSON object or nests too
 * deep.
 */
export async function readJsonObjectWatched(request: Request, limit: number, watch: BodyWatch | null): Promise<Record<string, unknown>> {
  const read = await readWatchedBody(request, limit, watch);
  if (read.length < SLICED_PARSE_BYTES) {
    return parseJsonObject(read.chunks.length === 1 ? read.chunks[0]!.toString("utf8") : Buffer.concat(read.chunks).toString("utf8"));
  }
  let value: unknown;
  try {
    value = await parseJsonInSlices(await joinInSlices(read, false), { maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    if (!(error instanceof SliceError)) throw error;
    if (error.deepAt === null) throw new GatewayError("invalid_json", "Request body is not valid JSON");
    const path = error.deepAt.slice(0, 200);
    throw new GatewayError("invalid_request", `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (at '${path}')`, {
      param: path,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GatewayError("invalid_json", "Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
