// JSON.parse of a large request body in slices, so that no single step holds the event loop for more than a few
// milliseconds (docs/decisions/0018-large-bodies-off-the-event-loop.md). The body is cut, at its own structure, into pieces of at most
// `pieceBytes` that the engine's JSON.parse reads natively: a run of an array's elements or an object's members is
// parsed as one `[...]` or `{...}`, a container larger than a piece is built from its children, a long string from
// its pieces. The result is the value JSON.parse would give for the same bytes when they are valid JSON. Whether they
// are, and how deep they nest, is decided by whoever parses them whole (lib/platform/worker.ts's jobs): this parser
// only refuses what it cannot cut.
import { setImmediate as nextTurn } from "node:timers/promises";

export type SliceOptions = {
  /** The most bytes one JSON.parse call reads (default 64 KB: ~0.5 ms for dense objects here). */
  pieceBytes?: number;
  /** How long one slice of work may run before the event loop is let go (default 2 ms). */
  sliceMs?: number;
  /** The most containers open at once, as MAX_JSON_DEPTH (deeper bodies are refused by the whole parse). */
  maxDepth?: number;
};

/** Thrown when the bytes are not JSON this parser can cut; `deepAt` is set when they nest deeper than maxDepth (the
 *  path of the member or element that holds the too-deep part, as lib/platform/http/json.ts names it). */
export class SliceError extends Error {
  constructor(
    message: string,
    readonly deepAt: string | null = null,
  ) {
    super(message);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

type Frame = {
  array: boolean;
  target: unknown[] | Record<string, unknown>;
  /** Elements or members seen so far (a comma comes before every one after the first). */
  count: number;
  /** Where the run of small children waiting to be parsed together starts, or -1; and where it ends. */
  runStart: number;
  runEnd: number;
  /** The key this container is stored under in its parent (objects), or null (array elements, the root). */
  key: string | null;
  /** Its step in a path: `.key` or `[index]` ("" for the root). */
  step: string;
};

function stepOf(parent: Frame | undefined, key: string | null): string {
  if (!parent) return "";
  return parent.array ? `[${parent.count - 1}]` : `.${key}`;
}

/** Defines a member as JSON.parse does (an own data property, also for `__proto__`). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

export class SlicedJsonParser {
  readonly #bytes: Buffer;
  readonly #piece: number;
  readonly #sliceMs: number;
  readonly #maxDepth: number;
  #position = 0;
  #nested = 0;

  constructor(bytes: Buffer, options: SliceOptions = {}) {
    this.#bytes = bytes;
    this.#piece = Math.max(16, options.pieceBytes ?? 64 * 1024);
    this.#sliceMs = options.sliceMs ?? 2;
    this.#maxDepth = options.maxDepth ?? 64;
  }

  #fail(what: string): never {
    throw new SliceError(`${what} at byte ${this.#position}`);
  }

  #skipSpace(): void {
    const bytes = this.#bytes;
    while (this.#position < bytes.length && isSpace(bytes[this.#position]!)) this.#position++;
  }

  /**
   * The first unescaped quote at or after `from` and before `limit`, or -1. `bounded` searches only up to `limit` (a
   * long string read piece by piece); otherwise the search may run past it (one memchr to the string's end: cheaper
   * than a bounded view for the many short strings of a body).
   */
  #closingQuote(from: number, limit: number, bounded: boolean): number {
    const bytes = this.#bytes;
    const end = Math.min(limit, bytes.length);
    while (from < end) {
      let quote: number;
      if (bounded) {
        const found = bytes.subarray(from, end).indexOf(QUOTE);
        quote = found < 0 ? -1 : from + found;
      } else quote = bytes.indexOf(QUOTE, from);
      if (quote < 0 || quote >= end) return -1;
      let backslashes = 0;
      while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote;
      from = quote + 1;
    }
    return -1;
  }

  /** The position just past the string whose opening quote is at `start`, or -1 when it does not end before `limit`. */
  #stringEnd(start: number, limit: number): number {
    const quote = this.#closingQuote(start + 1, limit, false);
    if (quote < 0 && limit >= this.#bytes.length) this.#fail("unterminated string");
    return quote < 0 ? -1 : quote + 1;
  }

  /**
   * The position just past the value that starts at `start`, or -1 when it does not end before `limit`; the deepest
   * nesting of containers inside it is left in `#nested` (0 for a string, number or literal).
   */
  #valueEnd(start: number, limit: number): number {
    const bytes = this.#bytes;
    const end = Math.min(limit, bytes.length);
    let depth = 0;
    let deepest = 0;
    let at = start;
    while (at < end) {
      const byte = bytes[at]!;
      if (byte === QUOTE) {
        const after = this.#stringEnd(at, limit);
        if (after < 0) return -1;
        at = after;
        if (depth === 0) return at;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
        if (depth > deepest) this.#nested = deepest = depth;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (depth === 0) return at; // the end of a number or literal that closes its container
        depth--;
        if (depth === 0) return at + 1;
      } else if (depth === 0 && (byte === COMMA || isSpace(byte))) return at;
      at++;
    }
    // A number or literal that runs to the end of the body ends there; anything else did not end within the limit.
    if (depth === 0 && end === bytes.length && bytes[start] !== QUOTE) return end;
    return -1;
  }

  #parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      return this.#fail("not JSON");
    }
  }

  /** Parses the run of small children of `frame` waiting since `runStart` and adds them to its container. */
  #flush(frame: Frame): void {
    if (frame.runStart < 0) return;
    const text = this.#bytes.toString("utf8", frame.runStart, frame.runEnd);
    frame.runStart = -1;
    if (frame.array) {
      const values = this.#parse(`[${text}]`) as unknown[];
      const target = frame.target as unknown[];
      for (const value of values) target.push(value);
      return;
    }
    const members = this.#parse(`{${text}}`) as Record<string, unknown>;
    const target = frame.target as Record<string, unknown>;
    for (const key of Object.keys(members)) define(target, key, members[key]);
  }

  /** A string longer than a piece, whose opening quote is at the current position: decoded piece by piece. */
  async #longString(deadline: { at: number; steps: number }): Promise<string> {
    const bytes = this.#bytes;
    let value = "";
    let from = this.#position + 1;
    for (;;) {
      const quote = this.#closingQuote(from, from + this.#piece, true);
      let cut = quote;
      if (quote < 0) {
        cut = from + this.#piece;
        if (cut >= bytes.length) this.#fail("unterminated string");
        // Cut at a character's first byte, and before any escape that could reach the cut (the longest, \uXXXX,
        // is six bytes; its hex digits are never a backslash, so a run of backslashes begins a fresh escape).
        while (cut > from && (bytes[cut]! & 0xc0) === 0x80) cut--;
        let backslash = cut - 1;
        while (backslash >= cut - 6 && backslash >= from && bytes[backslash] !== BACKSLASH) backslash--;
        if (backslash >= cut - 6 && backslash >= from) {
          cut = backslash;
          while (cut > from && bytes[cut - 1] === BACKSLASH) cut--;
        }
        // A run of backslashes from the piece's start to the cut (pairs, since `from` is where an escape starts):
        // cut after an even number of them.
        if (cut <= from) {
          cut = from;
          while (cut < from + this.#piece && bytes[cut] === BACKSLASH) cut++;
          if ((cut - from) % 2 === 1) cut--;
        }
      }
      const text = bytes.toString("utf8", from, cut);
      const escaped = bytes.subarray(from, cut).indexOf(BACKSLASH) >= 0;
      value += escaped ? (this.#parse(`"${text}"`) as string) : text;
      if (quote >= 0) {
        this.#position = quote + 1;
        return value;
      }
      from = cut;
      await this.#breathe(deadline);
    }
  }

  async #breathe(deadline: { at: number; steps: number }): Promise<void> {
    // The clock is read every 16 steps: a step is at most one piece's parse, and reading it costs ~0.1 µs.
    if (++deadline.steps % 16 !== 0 || performance.now() < deadline.at) return;
    await nextTurn();
    deadline.at = performance.now() + this.#sliceMs;
  }

  /** Stores a finished child in `frame`'s container. */
  #store(frame: Frame, key: string | null, value: unknown): void {
    if (frame.array) (frame.target as unknown[]).push(value);
    else define(frame.target as Record<string, unknown>, key!, value);
  }

  async parse(): Promise<unknown> {
    const bytes = this.#bytes;
    const deadline = { at: performance.now() + this.#sliceMs, steps: 0 };
    this.#skipSpace();
    this.#nested = 0;
    const rootEnd = this.#valueEnd(this.#position, this.#position + this.#piece);
    if (rootEnd >= 0 || (bytes[this.#position] !== OPEN_BRACE && bytes[this.#position] !== OPEN_BRACKET)) {
      // A small body, or one that is no container: the engine reads it whole (a long string or number as the whole
      // body is not a request any endpoint takes; the whole parse refuses it).
      if (rootEnd < 0) this.#fail("a body that is not an object");
      if (this.#nested > this.#maxDepth) throw new SliceError(`nested more than ${this.#maxDepth} levels deep`, "");
      const value = this.#parse(bytes.toString("utf8", this.#position, rootEnd));
      this.#position = rootEnd;
      this.#skipSpace();
      if (this.#position !== bytes.length) this.#fail("more after the value");
      return value;
    }
    const stack: Frame[] = [];
    const tooDeep = (key: string | null) => {
      const path = [...stack.map((frame) => frame.step), stepOf(stack.at(-1), key)].join("").replace(/^\./, "");
      throw new SliceError(`nested more than ${this.#maxDepth} levels deep`, path);
    };
    const open = (key: string | null) => {
      if (stack.length >= this.#maxDepth) tooDeep(key);
      const array = bytes[this.#position] === OPEN_BRACKET;
      stack.push({ array, target: array ? [] : {}, count: 0, runStart: -1, runEnd: -1, key, step: stepOf(stack.at(-1), key) });
      this.#position++;
    };
    open(null);
    let result: unknown;
    while (stack.length) {
      await this.#breathe(deadline);
      const frame = stack.at(-1)!;
      this.#skipSpace();
      const byte = bytes[this.#position];
      if (byte === (frame.array ? CLOSE_BRACKET : CLOSE_BRACE)) {
        this.#flush(frame);
        this.#position++;
        stack.pop();
        const parent = stack.at(-1);
        if (parent) this.#store(parent, frame.key, frame.target);
        else result = frame.target;
        continue;
      }
      if (frame.count > 0) {
        if (byte !== COMMA) this.#fail("expected a comma");
        this.#position++;
        this.#skipSpace();
      }
      frame.count++;
      const childStart = this.#position;
      let key: string | null = null;
      if (!frame.array) {
        if (bytes[this.#position] !== QUOTE) this.#fail("expected a key");
        const keyEnd = this.#stringEnd(this.#position, this.#position + this.#piece);
        if (keyEnd < 0) key = await this.#longString(deadline);
        else {
          key = this.#parse(bytes.toString("utf8", this.#position, keyEnd)) as string;
          this.#position = keyEnd;
        }
        this.#skipSpace();
        if (bytes[this.#position] !== COLON) this.#fail("expected a colon");
        this.#position++;
        this.#skipSpace();
      }
      this.#nested = 0;
      const valueEnd = this.#valueEnd(this.#position, this.#position + this.#piece);
      if (valueEnd > this.#position) {
        if (stack.length + this.#nested > this.#maxDepth) tooDeep(key);
        // A small child: it joins the run, which is parsed once it is a piece long.
        if (frame.runStart < 0) frame.runStart = childStart;
        frame.runEnd = valueEnd;
        this.#position = valueEnd;
        if (frame.runEnd - frame.runStart >= this.#piece) this.#flush(frame);
        continue;
      }
      if (valueEnd === this.#position) this.#fail("not JSON");
      this.#flush(frame);
      const first = bytes[this.#position];
      if (first === OPEN_BRACE || first === OPEN_BRACKET) open(key);
      else if (first === QUOTE) this.#store(frame, key, await this.#longString(deadline));
      else this.#fail("a number or literal longer than a piece");
    }
    this.#skipSpace();
    if (this.#position !== bytes.length) this.#fail("more after the value");
    return result;
  }
}

/** The value of the JSON in `bytes`, parsed in slices (see the file comment). */
export function parseJsonInSlices(bytes: Buffer, options?: SliceOptions): Promise<unknown> {
  return new SlicedJsonParser(bytes, options).parse();
}
