// Events whose images go out while they arrive (docs/decisions/0010-images-at-wire-speed.md). A Responses event that carries an
// image is megabytes of base64 around a few hundred bytes of fields. Held whole until its last byte arrived, every
// such event sat in memory (and outlived the young generation, so only a full collection freed it) while the next one
// was read: ~4× the image per image in flight. Here an event is read as it arrives: a small one is held and parsed
// whole as before; in a large one, once the value of an image field (`keys`) has run past `minBytes`, the event's
// fields before it are parsed, edited and written, and the image's bytes are passed on as they come, then the rest.
//
// The edit is applied to what was read so far, closed with the brackets still open, each time an image starts, and to
// the whole event at its end; what went out already must come out the same again (an edit only ever changes the value
// it looks at: a renamed model, a dropped sequence number), or the event fails. An event that cannot go out early (its
// start is not JSON, it has no `type` before the image, the caller says no, the image has escapes) is held whole.
import { SentString } from "./raw-json";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const CR = 0x0d;
/** Keys longer than this are not remembered (no field the rewriter looks for is this long). */
const MAX_KEY_BYTES = 128;

/** Stands for the i-th image in the JSON text of an event; JSON.stringify writes it with the same escapes. */
const marker = (index: number) => `\\u0001raw-event-${index}\\u0002`;
const MARKERS = /\\u0001raw-event-\d+\\u0002/;
/** A marker as the parsed value it becomes: "\u0001raw-event-<index>\u0002". */
const MARKER_START = "\u0001raw-event-";
const MARKER_END = "\u0002";

const PART = Symbol("event part");

/** What goes out of an event that is sent while it arrives, in order (marked, so no event can pass for one). */
export type EventPart = { readonly [PART]: true } & (
  | /** Its type (the SSE event name) and its data up to the first image, edited. */
  { part: "start"; type: string; text: string }
  /** Image bytes as they arrived, or the edited fields between two images. */
  | { part: "bytes"; bytes: Buffer[] }
  /** The rest of its data, edited, ending with the closing brace; and the whole event, its images as SentStrings. */
  | { part: "end"; text: string; event: Record<string, unknown> }
);

export function isEventPart(value: object): value is EventPart {
  return PART in value;
}

/** The data of an event that broke the rules on the way (it is not JSON, or it changed what went out already). */
export class RawEventError extends Error {}

export type EventRewriterOptions = {
  /** Fields whose string values may be passed on as they arrive. */
  keys: readonly string[];
  /** A value is passed on once it is this long (shorter ones are parsed with the event). */
  minBytes: number;
  /** An event shorter than this is held and parsed whole, without looking at its bytes as they arrive. */
  streamAfter: number;
  /** Edits an event in place (also the start of one, closed with the brackets still open). */
  edit(event: Record<string, unknown>): void;
  /** Whether an event may go out before its end, judged from its start (its type and the fields before the image). */
  mayStream(start: Record<string, unknown>): boolean;
};

/** One SSE event's data at a time: `write` each piece as it arrives, then `end` it; then the next event. */
export class EventRewriter {
  readonly #options: EventRewriterOptions;
  readonly #keys: Set<string>;
  #event: EventReader;

  constructor(options: EventRewriterOptions) {
    this.#options = options;
    this.#keys = new Set(options.keys);
    this.#event = new EventReader(options, this.#keys);
  }

  /** The next piece of the event's data; returns what may go out now. */
  write(piece: Buffer): EventPart[] {
    return this.#event.write(piece);
  }

  /**
   * The end of the event. `held`: it was not sent early, here is its data to parse whole. Otherwise the last part to
   * send. Throws RawEventError when what was sent early turns out not to be one JSON object.
   */
  end(): { held: Buffer[]; length: number } | Extract<EventPart, { part: "end" }> {
    const event = this.#event;
    this.#event = new EventReader(this.#options, this.#keys);
    return event.end();
  }
}

/** The reading of one event: where its bytes leave the JSON, what was held, what went out. */
class EventReader {
  readonly #options: EventRewriterOptions;
  readonly #keys: ReadonlySet<string>;
  /** Pieces not yet sent nor turned into `#small`, from offset `#heldFrom` of the event on. */
  #held: Buffer[] = [];
  #heldFrom = 0;
  #total = 0;
  #looking = false;
  #refused = false;
  /** The event's JSON text without the images passed on (markers in their place). */
  #small = "";
  /** The text parts sent, one before each image. */
  #sent: string[] = [];
  #imageLengths: number[] = [];
  /** Inside an image that is being passed on. */
  #passing = false;
  /** Where a string starts that could not be an image (what came before it is not JSON): not tried again. */
  #notAnImage = -1;
  // The lexer: where the bytes read so far leave the JSON.
  #stack: number[] = [];
  #inString = false;
  #escapeNext = false;
  #stringStart = 0;
  #stringEscaped = false;
  #stringKey: string | null = null;
  #stringBytes: Buffer[] = [];
  #stringLength = 0;
  #closed: string | null = null;
  #key: string | null = null;
  #awaitingValue = false;

  constructor(options: EventRewriterOptions, keys: ReadonlySet<string>) {
    this.#options = options;
    this.#keys = keys;
  }

  write(piece: Buffer): EventPart[] {
    const out: EventPart[] = [];
    const at = this.#total;
    this.#total += piece.length;
    if (this.#passing) {
      const end = this.#stringEnd(piece);
      if (end < 0) {
        this.#passOn(piece, out);
        return out;
      }
      if (end > 0) this.#passOn(piece.subarray(0, end), out);
      this.#passing = false;
      this.#inString = false;
      this.#closed = null;
      this.#awaitingValue = false;
      this.#held = [piece.subarray(end)];
      this.#heldFrom = at + end;
      this.#lex(piece, end + 1, at);
      this.#maybeImage(at + piece.length, out);
      return out;
    }
    this.#held.push(piece);
    if (this.#refused) return out;
    if (!this.#looking) {
      if (this.#total < this.#options.streamAfter) return out;
      this.#looking = true;
      let offset = this.#heldFrom;
      for (const held of this.#held) {
        this.#lex(held, 0, offset);
        offset += held.length;
      }
    } else this.#lex(piece, 0, at);
    this.#maybeImage(at + piece.length, out);
    return out;
  }

  end(): { held: Buffer[]; length: number } | Extract<EventPart, { part: "end" }> {
    const sent = this.#sent;
    if (!sent.length) return { held: this.#held, length: this.#total };
    if (this.#passing) throw new RawEventError("The event ended inside an image");
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(this.#small + Buffer.concat(this.#held).toString("utf8"));
    } catch {
      throw new RawEventError("The event is not valid JSON");
    }
    this.#options.edit(event);
    const parts = JSON.stringify(event).split(MARKERS);
    const last = parts.at(-1)!;
    if (parts.length !== sent.length + 1 || sent.some((text, index) => parts[index] !== text) || !last.endsWith("}"))
      throw new RawEventError("The event changed what had been sent of it");
    reviveImages(event, this.#imageLengths);
    return { [PART]: true, part: "end", text: last, event };
  }

  /** Image bytes go out as they are; a line break in them would end the SSE data line, so it is not JSON any more. */
  #passOn(bytes: Buffer, out: EventPart[]) {
    if (bytes.indexOf(LF) >= 0 || bytes.indexOf(CR) >= 0) throw new RawEventError("The event is not valid JSON");
    const image = this.#imageLengths.length - 1;
    this.#imageLengths[image] = (this.#imageLengths[image] ?? 0) + bytes.length;
    const last = out.at(-1);
    if (last?.part === "bytes") last.bytes.push(bytes);
    else out.push({ [PART]: true, part: "bytes", bytes: [bytes] });
  }

  /** Where the string being passed on ends in `piece` (its closing quote), or -1; escapes are skipped. */
  #stringEnd(piece: Buffer): number {
    let position = 0;
    if (this.#escapeNext) {
      this.#escapeNext = false;
      position = 1;
    }
    for (;;) {
      const found = quoteOrEscape(piece, position);
      if (found < 0 || piece[found] === QUOTE) return found;
      position = found + 2;
      if (position > piece.length) {
        this.#escapeNext = true;
        return -1;
      }
    }
  }

  /** Follows the JSON structure through `piece` from `from` (`at`: the piece's offset in the event). */
  #lex(piece: Buffer, from: number, at: number) {
    let position = from;
    while (position < piece.length) {
      if (this.#inString) {
        if (this.#escapeNext) {
          this.#escapeNext = false;
          this.#stringEscaped = true;
          this.#keepStringBytes(piece.subarray(position, position + 1));
          position++;
          continue;
        }
        const found = quoteOrEscape(piece, position);
        const stop = found < 0 ? piece.length : found;
        if (found >= 0 && piece[found] === BACKSLASH) {
          this.#keepStringBytes(piece.subarray(position, found + 1));
          this.#stringEscaped = true;
          this.#escapeNext = true;
          position = found + 1;
          continue;
        }
        this.#keepStringBytes(piece.subarray(position, stop));
        if (found < 0) break;
        this.#inString = false;
        this.#closed = this.#stringLength <= MAX_KEY_BYTES ? keyText(this.#stringBytes, this.#stringEscaped) : null;
        this.#stringBytes = [];
        position = found + 1;
        continue;
      }
      const byte = piece[position]!;
      if (byte === QUOTE) {
        this.#inString = true;
        this.#stringStart = at + position + 1;
        this.#stringKey = this.#awaitingValue ? this.#key : null;
        this.#stringEscaped = false;
        this.#stringBytes = [];
        this.#stringLength = 0;
        this.#awaitingValue = false;
        this.#closed = null;
      } else if (byte === 0x3a) {
        if (this.#closed !== null) {
          this.#key = this.#closed;
          this.#awaitingValue = true;
        }
        this.#closed = null;
      } else if (byte === 0x7b || byte === 0x5b) {
        this.#stack.push(byte);
        this.#awaitingValue = false;
        this.#closed = null;
      } else if (byte === 0x7d || byte === 0x5d) {
        this.#stack.pop();
        this.#awaitingValue = false;
        this.#closed = null;
      } else if (byte !== 0x20 && byte !== 0x09 && byte !== LF && byte !== CR) {
        this.#awaitingValue = false;
        this.#closed = null;
      }
      position++;
    }
  }

  /** After the bytes up to `end` were read: an image field's value long enough to pass on starts it. */
  #maybeImage(end: number, out: EventPart[]) {
    if (
      this.#inString &&
      !this.#stringEscaped &&
      !this.#escapeNext &&
      this.#stringKey !== null &&
      this.#keys.has(this.#stringKey) &&
      this.#stringStart !== this.#notAnImage &&
      end - this.#stringStart >= this.#options.minBytes
    )
      this.#startImage(out);
  }

  #keepStringBytes(bytes: Buffer) {
    if (this.#stringLength <= MAX_KEY_BYTES) this.#stringBytes.push(bytes);
    this.#stringLength += bytes.length;
  }

  /** The string being read is an image: send what comes before it (edited), then its bytes so far. */
  #startImage(out: EventPart[]) {
    const index = this.#sent.length;
    const held = Buffer.concat(this.#held);
    const quoteAt = this.#stringStart - 1 - this.#heldFrom;
    const small = `${this.#small}${held.toString("utf8", 0, quoteAt)}"${marker(index)}`;
    const closers = this.#stack
      .slice()
      .reverse()
      .map((bracket) => (bracket === 0x7b ? "}" : "]"))
      .join("");
    let start: unknown;
    try {
      start = JSON.parse(`${small}"${closers}`);
    } catch {
      // Not JSON so far: the end will say so (when nothing went out yet, the event is parsed whole).
      if (index === 0) this.#refused = true;
      this.#notAnImage = this.#stringStart;
      return;
    }
    const event = start as Record<string, unknown>;
    if (index === 0) {
      const type = event?.type;
      if (typeof type !== "string" || /[\r\n]/.test(type) || !this.#options.mayStream(event)) {
        this.#refused = true;
        return;
      }
    }
    this.#options.edit(event);
    const parts = JSON.stringify(event).split(MARKERS);
    if (parts.length !== index + 2 || this.#sent.some((text, at) => parts[at] !== text)) {
      if (index === 0) {
        this.#refused = true;
        return;
      }
      throw new RawEventError("The event changed what had been sent of it");
    }
    const text = parts[index]!;
    if (index === 0) out.push({ [PART]: true, part: "start", type: event.type as string, text });
    else out.push({ [PART]: true, part: "bytes", bytes: [Buffer.from(text)] });
    this.#sent.push(text);
    this.#small = small;
    this.#imageLengths.push(0);
    this.#passing = true;
    this.#inString = true;
    this.#held = [];
    const content = held.subarray(quoteAt + 1);
    if (content.length) this.#passOn(content, out);
  }
}

/** Where the next quote or backslash (whichever is first) is in `piece` from `from`, or -1: the end of a string, or an
 *  escape inside it. */
function quoteOrEscape(piece: Buffer, from: number): number {
  const quote = piece.indexOf(QUOTE, from);
  const slash = piece.subarray(from, quote < 0 ? piece.length : quote).indexOf(BACKSLASH);
  return slash < 0 ? quote : from + slash;
}

/** A short string's text (the candidate key), its escapes decoded when it has any. */
function keyText(bytes: Buffer[], escaped: boolean): string | null {
  const raw = bytes.length === 1 ? bytes[0]!.toString("utf8") : Buffer.concat(bytes).toString("utf8");
  if (!escaped) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/** The markers of a parsed event back as SentStrings (the images' lengths; their bytes went out already). */
function reviveImages(value: unknown, lengths: readonly number[]): unknown {
  if (typeof value === "string") {
    const isMarker = value.length < 32 && value.startsWith(MARKER_START) && value.endsWith(MARKER_END);
    return isMarker ? new SentString(lengths[Number(value.slice(MARKER_START.length, -MARKER_END.length))] ?? 0) : value;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = reviveImages(value[index], lengths);
  } else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) record[name] = reviveImages(record[name], lengths);
  }
  return value;
}
