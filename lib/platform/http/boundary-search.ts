// The boundary search inside busboy, done by Buffer#indexOf (C++) instead of busboy's `streamsearch` (Boyer-Moore-
// Horspool in JavaScript). In the edit benchmark that search was 15 % of the gateway's busy time; over 42 MB of image
// bytes in 64 KB chunks it takes ~16 ms here, indexOf ~5 ms (docs/decisions/0015-edits-sent-while-uploaded.md). busboy's own
// parsing (part headers, limits, names, charsets) is kept; only the object it feeds the body through is replaced,
// with one that keeps streamsearch's contract exactly: the callback receives (isMatch, data, start, end, isDataSafe),
// where data[start, end) is body that is not part of a boundary, isMatch says a boundary follows it, and isDataSafe
// says whether data is the caller's chunk (kept as a view) or the search's own buffer (which busboy copies).

type SearchCallback = (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isDataSafe: boolean) => void;

export class BoundarySearch {
  matches = 0;
  maxMatches = Number.POSITIVE_INFINITY;
  readonly #needle: Buffer;
  readonly #first: number;
  readonly #callback: SearchCallback;
  /** The end of the body so far when it could be the start of a boundary: fewer bytes than the boundary has. */
  readonly #tail: Buffer;
  #tailSize = 0;
  /** Holds the tail followed by the next chunk's first bytes, to look for a boundary that spans the two. */
  readonly #window: Buffer;

  constructor(needle: Buffer, callback: SearchCallback) {
    if (needle.length < 2) throw new Error("A multipart boundary search needs at least two bytes");
    this.#needle = needle;
    this.#first = needle[0]!;
    this.#callback = callback;
    this.#tail = Buffer.allocUnsafe(needle.length);
    this.#window = Buffer.allocUnsafe(2 * needle.length);
  }

  /** Continues from a search that has already seen the body's first bytes (the ones it holds back, and its matches). */
  adopt(tail: Uint8Array, matches: number): void {
    if (tail.length >= this.#needle.length) throw new Error("A held-back tail is always shorter than the boundary");
    this.#tail.set(tail);
    this.#tailSize = tail.length;
    this.matches = matches;
  }

  reset(): void {
    this.matches = 0;
    this.#tailSize = 0;
  }

  /** Searches `chunk` from `pos`; returns where it stopped (the chunk's length once it is all taken). */
  push(chunk: Buffer, pos = 0): number {
    const length = chunk.length;
    while (pos < length && this.matches < this.maxMatches) {
      pos = this.#tailSize > 0 ? this.#afterTail(chunk, pos) : this.#feed(chunk, pos);
    }
    return pos;
  }

  /** Whatever was held back is body after all (the body ended). */
  destroy(): void {
    const size = this.#tailSize;
    if (size > 0) this.#callback(false, this.#tail, 0, size, false);
    this.reset();
  }

  /** The chunk from `pos`, with nothing held back. */
  #feed(chunk: Buffer, pos: number): number {
    const needle = this.#needle;
    const length = chunk.length;
    const at = chunk.indexOf(needle, pos);
    if (at !== -1) {
      this.matches++;
      if (at > pos) this.#callback(true, chunk, pos, at, true);
      else this.#callback(true, undefined, 0, 0, true);
      return at + needle.length;
    }
    // No boundary: hold back the shortest end of the chunk that could begin one.
    let start = Math.max(pos, length - needle.length + 1);
    for (; start < length; start++) {
      start = chunk.indexOf(this.#first, start);
      if (start === -1) {
        start = length;
        break;
      }
      if (startsWith(needle, chunk, start, length)) break;
    }
    if (start > pos) this.#callback(false, chunk, pos, start, true);
    if (start < length) {
      chunk.copy(this.#tail, 0, start, length);
      this.#tailSize = length - start;
    }
    return length;
  }

  /** The chunk from `pos`, after a held-back tail: a boundary may begin in the tail and end in the chunk. */
  #afterTail(chunk: Buffer, pos: number): number {
    const needle = this.#needle;
    const tail = this.#tail;
    const size = this.#tailSize;
    const taken = Math.min(chunk.length - pos, needle.length - 1);
    const window = this.#window;
    tail.copy(window, 0, 0, size);
    chunk.copy(window, size, pos, pos + taken);
    const windowLength = size + taken;
    const at = window.subarray(0, windowLength).indexOf(needle);
    if (at !== -1 && at < size) {
      // A boundary that begins in the tail: what precedes it is body.
      this.#tailSize = 0;
      this.matches++;
      if (at > 0) this.#callback(true, tail, 0, at, false);
      else this.#callback(true, undefined, 0, 0, true);
      return pos + (at + needle.length - size);
    }
    if (at !== -1 || taken === needle.length - 1) {
      // No boundary can begin in the tail (one that begins in the chunk is found there): the tail is body.
      this.#tailSize = 0;
      this.#callback(false, tail, 0, size, false);
      return pos;
    }
    // The chunk is too short to decide: keep the shortest end of tail + chunk that could begin a boundary.
    let start = 0;
    while (start < windowLength && !(window[start] === this.#first && startsWith(needle, window, start, windowLength))) start++;
    if (start > 0) this.#callback(false, window, 0, start, false);
    window.copy(tail, 0, start, windowLength);
    this.#tailSize = windowLength - start;
    return chunk.length;
  }
}

/** Whether data[from, end) equals the needle's first end - from bytes. */
function startsWith(needle: Buffer, data: Buffer, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (data[i] !== needle[i - from]) return false;
  return true;
}

type BusboyInternals = {
  _bparser?: { push?: unknown; _lookbehind?: unknown; _lookbehindSize?: unknown; _needle?: unknown; _cb?: unknown; matches?: unknown };
};

/**
 * Gives a busboy multipart parser the native search. Returns false, leaving the parser as it was, when the parser is
 * not the busboy 1.x multipart parser this was written against (tests/unit/boundary-search.test.ts fails then).
 */
export function useNativeBoundarySearch(parser: unknown): boolean {
  const search = (parser as BusboyInternals)._bparser;
  if (
    !search ||
    typeof search.push !== "function" ||
    !Buffer.isBuffer(search._needle) ||
    !Buffer.isBuffer(search._lookbehind) ||
    typeof search._lookbehindSize !== "number" ||
    typeof search._cb !== "function" ||
    typeof search.matches !== "number"
  )
    return false;
  const native = new BoundarySearch(search._needle, search._cb as SearchCallback);
  native.adopt(search._lookbehind.subarray(0, search._lookbehindSize), search.matches);
  (parser as BusboyInternals)._bparser = native as unknown as BusboyInternals["_bparser"];
  return true;
}
