// Format, dimensions and alpha of an image from its first bytes, for uploads relayed while they arrive
// (docs/decisions/0015-edits-sent-while-uploaded.md). Reads the same header fields sharp's metadata() reports (lib/images/inspect.ts
// reads files with sharp; tests/unit/images-head.test.ts checks that both agree): PNG's IHDR and a tRNS chunk before
// the first IDAT, JPEG's start-of-frame segment, WebP's first chunk (VP8, VP8L or VP8X).
import type { ImageInfo } from "./inspect";

/** What the bytes so far say: the header, "more" when it lies further in, or what the file is when it is no image we take. */
export type HeadResult = { info: ImageInfo } | { more: true } | { invalid: true; found?: string };

/** A header not found within this many bytes is refused: real PNG, JPEG and WebP files have it in the first kilobytes. */
export const MAX_HEAD_BYTES = 4 * 1024 * 1024;

const MORE = { more: true } as const;

function png(bytes: Buffer): HeadResult {
  // Signature (8), then IHDR: length (4), "IHDR" (4), width (4), height (4), bit depth (1), colour type (1).
  if (bytes.length < 33) return MORE;
  if (bytes.toString("latin1", 12, 16) !== "IHDR") return { invalid: true };
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const colourType = bytes[25]!;
  if (!width || !height) return { invalid: true };
  // Grey + alpha (4) and RGBA (6) carry alpha; any other type has it when a tRNS chunk comes before the image data.
  if (colourType === 4 || colourType === 6) return { info: { format: "png", width, height, hasAlpha: true } };
  let offset = 33;
  for (;;) {
    if (offset + 8 > bytes.length) return MORE;
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    if (type === "tRNS") return { info: { format: "png", width, height, hasAlpha: true } };
    if (type === "IDAT" || type === "IEND") return { info: { format: "png", width, height, hasAlpha: false } };
    offset += 12 + bytes.readUInt32BE(offset);
  }
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): not C4 (DHT), C8 (JPG) or CC (DAC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpeg(bytes: Buffer): HeadResult {
  let offset = 2;
  for (;;) {
    if (offset + 4 > bytes.length) return MORE;
    if (bytes[offset] !== 0xff) return { invalid: true };
    const marker = bytes[offset + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      offset++;
      continue;
    }
    // Markers without a length (TEM, RSTn); the image data (SOS) or the end before any frame header: no image.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return { invalid: true };
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2) return { invalid: true };
    if (isStartOfFrame(marker)) {
      // Length (2), precision (1), height (2), width (2).
      if (offset + 9 > bytes.length) return MORE;
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      if (!width || !height) return { invalid: true };
      return { info: { format: "jpeg", width, height, hasAlpha: false } };
    }
    offset += 2 + length;
  }
}

function webp(bytes: Buffer): HeadResult {
  // "RIFF", size (4), "WEBP", then the first chunk: its fourcc (4), size (4) and data.
  if (bytes.length < 30) return MORE;
  const chunk = bytes.toString("latin1", 12, 16);
  const data = 20;
  if (chunk === "VP8X") {
    const hasAlpha = (bytes[data]! & 0x10) !== 0;
    const width = bytes.readUIntLE(data + 4, 3) + 1;
    const height = bytes.readUIntLE(data + 7, 3) + 1;
    return { info: { format: "webp", width, height, hasAlpha } };
  }
  if (chunk === "VP8L") {
    if (bytes[data] !== 0x2f) return { invalid: true };
    const bits = bytes.readUInt32LE(data + 1);
    const width = (bits & 0x3fff) + 1;
    const height = ((bits >>> 14) & 0x3fff) + 1;
    const hasAlpha = ((bits >>> 28) & 1) === 1;
    return { info: { format: "webp", width, height, hasAlpha } };
  }
  if (chunk === "VP8 ") {
    // Frame tag (3), start code 9d 01 2a, then width and height (14 bits each, with 2 bits of scale above).
    if (bytes[data + 3] !== 0x9d || bytes[data + 4] !== 0x01 || bytes[data + 5] !== 0x2a) return { invalid: true };
    const width = bytes.readUInt16LE(data + 6) & 0x3fff;
    const height = bytes.readUInt16LE(data + 8) & 0x3fff;
    if (!width || !height) return { invalid: true };
    return { info: { format: "webp", width, height, hasAlpha: false } };
  }
  return { invalid: true };
}

/** Other formats by their signature, to say what was sent instead. */
const OTHER_FORMATS: [string, (bytes: Buffer) => boolean][] = [
  ["gif", (bytes) => bytes.toString("latin1", 0, 4) === "GIF8"],
  ["tiff", (bytes) => ["II*\0", "MM\0*"].includes(bytes.toString("latin1", 0, 4))],
  ["bmp", (bytes) => bytes.toString("latin1", 0, 2) === "BM"],
  ["heif", (bytes) => bytes.toString("latin1", 4, 8) === "ftyp"],
];

/** Reads the header from the bytes received so far (the start of the file). */
export function readImageHead(bytes: Buffer, complete: boolean): HeadResult {
  const result = readHead(bytes);
  // A file that ended before its header did is no image.
  if ("more" in result && (complete || bytes.length >= MAX_HEAD_BYTES)) return { invalid: true };
  return result;
}

function readHead(bytes: Buffer): HeadResult {
  if (bytes.length < 12) return MORE;
  if (bytes[0] === 0x89 && bytes.toString("latin1", 1, 8) === "PNG\r\n\x1a\n") return png(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpeg(bytes);
  if (bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return webp(bytes);
  for (const [name, matches] of OTHER_FORMATS) if (matches(bytes)) return { invalid: true, found: name };
  return { invalid: true };
}
