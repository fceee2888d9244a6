// JSON with its large base64 strings kept as bytes (docs/decisions/0010-images-at-wire-speed.md). A Responses event that carries
// an image (`partial_image_b64`, an item's `result`) is several megabytes of base64 around a few hundred bytes of
// fields: parsing it into a JavaScript string, stringifying it again and encoding that to UTF-8 cost ~8 passes over
// the image per event. Here the image's bytes are cut out of the event as it arrived, the small rest is parsed, and
// the image goes back in, as the same bytes, when the event is written.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Stands for a raw string while an event is serialised; the bytes are written around it. */
const MARKER = "\u0001raw\u0001";
/** The marker as JSON.stringify writes it inside a string. */
const RAW_MARKER_JSON = JSON.stringify(MARKER).slice(1, -1);

/** The ends of the placeholder a cut value leaves in the parsed text: "\u0001raw<index>\u0001". */
const PLACEHOLDER_EDGE = "\u0001";

/** A raw string's value: text, its ASCII bytes, or those bytes as the pieces they arrived in. */
export type RawValue = string | Buffer | readonly Buffer[];

let collecting: RawValue[] | null = null;

/** A string value kept as it arrived: base64 text or its ASCII bytes (never copied into a JavaScript string). */
export class RawString {
  readonly length: number;

  constructor(readonly value: RawValue) {
    this.length =
      typeof value === "string" || Buffer.isBuffer(value) ? value.length : value.reduce((total, part) => total + part.length, 0);
  }

  /** The value as text, for a consumer that needs a string (copies bytes). */
  text(): string {
    if (typeof this.value === "string") return this.value;
    return (Buffer.isBuffer(this.value) ? this.value : Buffer.concat(this.value)).toString("latin1");
  }

  toJSON(): string {
    if (collecting) {
      collecting.push(this.value);
      return MARKER;
    }
    return this.text();
  }
}

/** A string value that was passed on as it arrived (lib/wire/raw-event.ts): only its length is left. */
export class SentString {
  constructor(readonly length: number) {}

  /** Its bytes are gone: an event that repeats it (none does) gets an empty string. */
  toJSON(): string {
    return "";
  }
}

/** A non-empty string, raw string or sent string (an image's base64): what a field holding an image may be. */
export function isImageData(value: unknown): value is string | RawString | SentString {
  return (typeof value === "string" && value !== "") || ((value instanceof RawString || value instanceof SentString) && value.length > 0);
}

/** Serialises `value`: the text with a marker for each RawString, and the raw values in the order they appear. */
export function stringifyAroundRaw(value: unknown): { text: string; raws: RawValue[] } {
  const raws: RawValue[] = [];
  collecting = raws;
  try {
    return { text: JSON.stringify(value), raws };
  } finally {
    collecting = null;
  }
}

/** Whether the bytes from `start` to `end` are only whitespace. */
function isBlank(pieces: Pieces, start: number, end: number): boolean {
  for (let offset = start; offset < end; offset++) if (!WHITESPACE.has(pieces.byte(offset) ?? -1)) return false;
  return true;
}

/** `text` (split at each marker) with the raw values between the pieces, as the buffers to write (the raw bytes are
 *  not copied; text values are encoded once). */
export function joinAroundRaw(text: string, raws: readonly RawValue[]): Buffer[] {
  const out: Buffer[] = [];
  text.split(RAW_MARKER_JSON).forEach((piece, index) => {
    if (piece) out.push(Buffer.from(piece));
    const raw = raws[index];
    if (raw === undefined) return;
    // Base64 is ASCII: one byte per character.
    if (typeof raw === "string") out.push(Buffer.from(raw, "latin1"));
    else if (Buffer.isBuffer(raw)) out.push(raw);
    else out.push(...raw);
  });
  return out;
}

/** Bytes held as the pieces they arrived in, addressed by offsets over the whole. */
class Pieces {
  readonly starts: number[] = [];
  readonly length: number;

  constructor(readonly parts: readonly Buffer[]) {
    let offset = 0;
    for (const part of parts) {
      this.starts.push(offset);
      offset += part.length;
    }
    this.length = offset;
  }

  /** The piece holding `offset` (the last one at the end). */
  #at(offset: number): number {
    let low = 0;
    let high = this.parts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  byte(offset: number): number | undefined {
    if (offset >= this.length) return undefined;
    const index = this.#at(offset);
    return this.parts[index]![offset - this.starts[index]!];
  }

  /** The next quote or backslash from `from` (whichever is first), or -1. */
  nextQuoteOrEscape(from: number): number {
    for (let index = this.#at(from); index < this.parts.length; index++) {
      const part = this.parts[index]!;
      const local = Math.max(0, from - this.starts[index]!);
      const quote = part.indexOf(QUOTE, local);
      const backslash = part.subarray(local, quote < 0 ? part.length : quote).indexOf(BACKSLASH);
      if (backslash >= 0) return this.starts[index]! + local + backslash;
      if (quote >= 0) return this.starts[index]! + quote;
    }
    return -1;
  }

  /** The bytes from `start` to `end` as pieces (no copy). */
  slice(start: number, end: number): Buffer[] {
    const out: Buffer[] = [];
    for (let index = this.#at(start); index < this.parts.length && this.starts[index]! < end; index++) {
      const part = this.parts[index]!;
      const from = Math.max(0, start - this.starts[index]!);
      const to = Math.min(part.length, end - this.starts[index]!);
      if (to > from) out.push(from === 0 && to === part.length ? part : part.subarray(from, to));
    }
    return out;
  }

  text(start: number, end: number): string {
    const pieces = this.slice(start, end);
    return pieces.length === 1 ? pieces[0]!.toString("utf8") : Buffer.concat(pieces).toString("utf8");
  }
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Parses JSON `data` (one buffer, or the pieces it arrived in), keeping the string values of `keys` that are at least
 * `minBytes` long as RawStrings over the bytes received (no copy, not even a join of the pieces). The strings are
 * found by jumping from quote to quote (a native byte search per piece); a value with an escape in it is left to the
 * normal parse. Everything else is parsed as JSON.parse would.
 */
export function parseWithRaw(data: Buffer | readonly Buffer[], keys: readonly string[], minBytes = 4096): unknown {
  const pieces = new Pieces(Buffer.isBuffer(data) ? [data] : data);
  if (pieces.length < minBytes) return JSON.parse(pieces.text(0, pieces.length));
  const wanted = new Set(keys);
  const cuts: { start: number; end: number }[] = [];
  /** The last string that was followed by a colon (a key) and where that colon ended. */
  let key: string | null = null;
  let afterKey = -1;
  let position = 0;
  for (;;) {
    const open = pieces.nextQuoteOrEscape(position);
    if (open < 0) break;
    // Outside strings a backslash is invalid JSON: leave it to JSON.parse to say so.
    if (pieces.byte(open) === BACKSLASH) return JSON.parse(pieces.text(0, pieces.length));
    let close = open + 1;
    let escaped = false;
    for (;;) {
      close = pieces.nextQuoteOrEscape(close);
      if (close < 0) return JSON.parse(pieces.text(0, pieces.length));
      if (pieces.byte(close) === QUOTE) break;
      escaped = true;
      close += 2;
    }
    const isValueOfKey = key !== null && afterKey >= 0 && isBlank(pieces, afterKey, open);
    if (isValueOfKey && !escaped && close - open - 1 >= minBytes && wanted.has(key!)) cuts.push({ start: open + 1, end: close });
    // Is this string a key? Only if a colon follows it.
    let next = close + 1;
    while (WHITESPACE.has(pieces.byte(next) ?? -1)) next++;
    if (pieces.byte(next) === 0x3a && close - open < 128) {
      key = pieces.text(open + 1, close);
      afterKey = next + 1;
    } else {
      key = null;
      afterKey = -1;
    }
    position = close + 1;
  }
  if (!cuts.length) return JSON.parse(pieces.text(0, pieces.length));
  let text = "";
  let offset = 0;
  cuts.forEach((cut, index) => {
    text += `${pieces.text(offset, cut.start)}\\u0001raw${index}\\u0001`;
    offset = cut.end;
  });
  text += pieces.text(offset, pieces.length);
  const values = cuts.map((cut) => {
    const slice = pieces.slice(cut.start, cut.end);
    return new RawString(slice.length === 1 ? slice[0]! : slice);
  });
  const revive = (value: unknown): unknown => {
    if (typeof value === "string") {
      const isPlaceholder = value.length < 16 && value.startsWith(PLACEHOLDER_EDGE) && value.endsWith(PLACEHOLDER_EDGE);
      return isPlaceholder ? values[Number(value.slice(4, -1))] : value;
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) value[index] = revive(value[index]);
      return value;
    }
    if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      for (const name of Object.keys(record)) record[name] = revive(record[name]);
    }
    return value;
  };
  return revive(JSON.parse(text));
}
