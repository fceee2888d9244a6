// Reading an image answer as it arrives, for /v1/images (docs/decisions/0010-images-at-wire-speed.md). The answer
// of an OpenAI-compatible upstream is `{"created":…,"data":[{"b64_json":"<~33 MB for 3840x2160>"}],…,"usage":{…}}`:
// everything the gateway needs before the image (that there is one, its format) is in its first bytes, and
// everything it needs after it (usage, size, quality) is in the few hundred bytes that follow. So the head is read
// until the image's first bytes, the image's bytes are handed on as undici delivers them (never joined, never
// turned into a string), and the tail is kept and parsed with the image's value left empty.
// An answer laid out any other way (the image as a data URI, nested fields before it, an escape in its first bytes)
// is read whole and parsed as before, and so is an answer shorter than COMMIT_BYTES: `startImageStream` then returns
// what it read so far.
import { UpstreamTooLargeError } from "@/lib/providers/http";

const KEY = Buffer.from('"b64_json"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The image's first bytes, enough to tell PNG, JPEG and WebP apart (sniffFormat). */
export const SNIFF_BYTES = 24;
/** What may come before the image: `created`, `background`, a short `revised_prompt`… */
const HEAD_LIMIT = 256 * 1024;
/** How much of the image is read before the answer is passed on: a smaller answer is read whole, so it keeps every
 *  check before the first byte and a broken body still fails over to another channel. */
export const COMMIT_BYTES = 1024 * 1024;

/** A JSON string (as whole token), or any character that cannot open or close a nested value. */
const FLAT = String.raw`(?:[^{}\[\]"]|"(?:[^"\\]|\\.)*")*`;
/** The head must be the top-level object's flat fields, then `"data":[{` and the first item's flat fields. */
const LAYOUT = new RegExp(String.raw`^\s*\{(${FLAT})"data"\s*:\s*\[\s*\{${FLAT}"b64_json"\s*:\s*"$`, "s");

export type ImageStreamStart = {
  /** The answer's top-level `created`, when it came before the image. */
  created: number | undefined;
  /** The image's first bytes (at least SNIFF_BYTES of them). */
  first: Buffer;
  /** The rest of the image's bytes, as they arrive; throws on a cut or oversized answer. */
  chunks: AsyncIterable<Uint8Array>;
  /** The answer as JSON with the image's value empty; only once `chunks` is done. */
  rest(): string;
};

/**
 * Reads `body` up to the image's first bytes, and on to COMMIT_BYTES of it. Returns how to go on, or the bytes read
 * so far (the head) when the answer is not laid out as expected or ended within COMMIT_BYTES: the caller then reads
 * the rest whole (a small answer keeps every check before the first byte, and failover on a broken body). `limit`
 * caps the whole answer.
 */
export async function startImageStream(
  iterator: AsyncIterator<Uint8Array>,
  limit: number,
  commitBytes = COMMIT_BYTES,
): Promise<{ stream: ImageStreamStart } | { head: Buffer; done: boolean }> {
  let head: Buffer = Buffer.alloc(0);
  const more: Buffer[] = [];
  let size = 0;
  let valueStart = -1;
  let done = false;
  const read = async (): Promise<Buffer | null> => {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      return null;
    }
    size += next.value.byteLength;
    if (size > limit) throw new UpstreamTooLargeError(limit);
    return Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
  };
  const whole = () => ({ head: more.length ? Buffer.concat([head, ...more]) : head, done });
  // The head, up to the image's first SNIFF_BYTES.
  while (valueStart < 0 || head.length - valueStart < SNIFF_BYTES) {
    const chunk = await read();
    if (!chunk) return whole();
    head = head.length ? Buffer.concat([head, chunk]) : chunk;
    if (valueStart >= 0) continue;
    const key = head.indexOf(KEY);
    if (key < 0) {
      if (head.length > HEAD_LIMIT) return whole();
      continue;
    }
    const colon = /^\s*:\s*"/.exec(head.toString("latin1", key + KEY.length, Math.min(head.length, key + KEY.length + 64)));
    if (colon) valueStart = key + KEY.length + colon[0].length;
    else if (head.length - key > 64 + KEY.length) return whole();
  }
  const prefix = head.toString("utf8", 0, valueStart);
  const layout = LAYOUT.exec(prefix);
  const first = head.subarray(valueStart, valueStart + SNIFF_BYTES);
  if (!layout || first.includes(QUOTE) || first.includes(BACKSLASH)) return whole();
  // On to COMMIT_BYTES: an answer that ends before is taken whole.
  while (size - valueStart < commitBytes) {
    const chunk = await read();
    if (!chunk) return whole();
    more.push(chunk);
  }
  const created = /"created"\s*:\s*(\d{1,12})\s*[,}]/.exec(layout[1]!);

  let escaped = false;
  const tail: Buffer[] = [];
  /** Where the image's value ends in `chunk` (the closing quote), or -1; a quote after a backslash is not it. */
  const closing = (chunk: Buffer): number => {
    if (!escaped && !chunk.includes(BACKSLASH)) return chunk.indexOf(QUOTE);
    for (let index = 0; index < chunk.length; index++) {
      if (escaped) escaped = false;
      else if (chunk[index] === BACKSLASH) escaped = true;
      else if (chunk[index] === QUOTE) return index;
    }
    return -1;
  };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const queued = [head.subarray(valueStart + SNIFF_BYTES), ...more];
    more.length = 0;
    let inImage = true;
    for (;;) {
      const pending = queued.length ? queued.shift()! : await read();
      if (!pending) break;
      if (!inImage) tail.push(pending);
      else if (pending.length) {
        const end = closing(pending);
        if (end < 0) yield pending;
        else {
          if (end > 0) yield pending.subarray(0, end);
          tail.push(pending.subarray(end));
          inImage = false;
        }
      }
    }
    if (inImage) throw new Error("The upstream's answer ended inside the image");
  }
  return {
    stream: {
      created: created ? Number(created[1]) : undefined,
      first,
      chunks: chunks(),
      rest: () => prefix + Buffer.concat(tail).toString("utf8"),
    },
  };
}
