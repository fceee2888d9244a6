// JSON with its large base64 strings kept as bytes (docs/architecture.md, decision 10). A Responses event that carries
// an image (`partial_image_b64`, an item's `result`) is several megabytes of base64 around a few hundred bytes of
// fields: parsing it into a JavaScript string, stringifying it again and encoding that to UTF-8 cost ~8 passes over
// the image per event. Here the image's bytes are cut out of the event as it arrived, the small rest is parsed, and
// the image goes back in, as the same bytes, when the event is written.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Stands for a raw string while an event is serialised; the bytes are written around it. */
const MARKER = "\u0001raw\u0001";
/** The marker as JSON.stringify writes it inside a string. */
export const RAW_MARKER_JSON = JSON.stringify(MARKER).slice(1, -1);

/** The ends of the placeholder a cut value leaves in the parsed text: "\u0001raw<index>\u0001". */
const PLACEHOLDER_EDGE = "\u0001";

let collecting: (string | Buffer)[] | null = null;

/** A string value kept as it arrived: base64 text, or its ASCII bytes (never copied into a JavaScript string). */
export class RawString {
  constructor(readonly value: string | Buffer) {}

  get length(): number {
    return this.value.length;
  }

  /** The value as text, for a consumer that needs a string (copies a Buffer). */
  text(): string {
    return typeof this.value === "string" ? this.value : this.value.toString("latin1");
  }

  toJSON(): string {
    if (collecting) {
      collecting.push(this.value);
      return MARKER;
    }
    return this.text();
  }
}

/** A non-empty string or raw string (an image's base64): what a field holding an image may be. */
export function isImageData(value: unknown): value is string | RawString {
  return (typeof value === "string" && value !== "") || (value instanceof RawString && value.length > 0);
}

/** Serialises `value`: the text with a marker for each RawString, and the raw values in the order they appear. */
export function stringifyAroundRaw(value: unknown): { text: string; raws: (string | Buffer)[] } {
  const raws: (string | Buffer)[] = [];
  collecting = raws;
  try {
    return { text: JSON.stringify(value), raws };
  } finally {
    collecting = null;
  }
}

/** Writes `text` (split at each marker) with the raw values between the pieces, into one buffer. */
export function joinAroundRaw(text: string, raws: (string | Buffer)[]): Buffer {
  const pieces = text.split(RAW_MARKER_JSON);
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece);
  for (const raw of raws) size += raw.length;
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  pieces.forEach((piece, index) => {
    offset += out.write(piece, offset, "utf8");
    const raw = raws[index];
    if (raw === undefined) return;
    // Base64 is ASCII: one byte per character.
    if (typeof raw === "string") offset += out.write(raw, offset, "latin1");
    else {
      out.set(raw, offset);
      offset += raw.length;
    }
  });
  return out;
}

/**
 * Parses JSON `data`, keeping the values of `keys` that are at least `minBytes` long as RawStrings over the bytes of
 * `data` (no copy). A value with an escape in it is left to the normal parse. Other fields are parsed as usual.
 */
export function parseWithRaw(data: Buffer, keys: readonly string[], minBytes = 4096): unknown {
  const cuts: { start: number; end: number }[] = [];
  for (const key of keys) {
    const needle = Buffer.from(`"${key}"`);
    let from = 0;
    for (;;) {
      const at = data.indexOf(needle, from);
      if (at < 0) break;
      from = at + needle.length;
      let position = from;
      while (data[position] === 0x20) position++;
      if (data[position] !== 0x3a) continue; // ':'
      position++;
      while (data[position] === 0x20) position++;
      if (data[position] !== QUOTE) continue;
      const start = position + 1;
      const end = data.indexOf(QUOTE, start);
      if (end < 0 || end - start < minBytes) continue;
      const backslash = data.indexOf(BACKSLASH, start);
      if (backslash >= 0 && backslash < end) continue;
      cuts.push({ start, end });
      from = end + 1;
    }
  }
  if (!cuts.length) return JSON.parse(data.toString("utf8"));
  cuts.sort((a, b) => a.start - b.start);
  let text = "";
  let offset = 0;
  cuts.forEach((cut, index) => {
    text += `${data.toString("utf8", offset, cut.start)}\\u0001raw${index}\\u0001`;
    offset = cut.end;
  });
  text += data.toString("utf8", offset);
  const values = cuts.map((cut) => new RawString(data.subarray(cut.start, cut.end)));
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
