// The o200k_base byte-pair encoder (GPT-4o and later, https://github.com/openai/tiktoken), kept compact: every
// token's bytes in one buffer and an open-addressing hash table of ranks in one Int32Array, read from the rank file
// that gpt-tokenizer ships (`data/o200k_base.tiktoken`: one "base64 rank" line per token). gpt-tokenizer's own
// encoder holds the same table as ~200,000 strings in a Map, 20 MB of JavaScript heap that every full garbage
// collection marked again; the image paths run many of those (docs/architecture.md, "Images and garbage
// collection"). Special tokens are not recognised: user text such as "<|endoftext|>" is ordinary text here.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

/** The pre-tokenisation pattern for o200k_base, gpt-tokenizer's own (a small module: no ranks come with it). It is
 *  global, but matchAll() works on a copy, so sharing it with gpt-tokenizer shares no state. */
const SPLIT = O200K_TOKEN_SPLIT_REGEX;

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

/**
 * The byte-pair merge of one piece (tiktoken's `byte_pair_merge`): repeatedly join the adjacent pair of parts with
 * the lowest rank (the leftmost of equals) until no joined pair is a token. Calls `emit` with each resulting rank.
 */
function merge(t: Table, length: number, emit: (rank: number) => void): void {
  if (starts.length < length + 1) {
    starts = new Int32Array(length + 1);
    ranks = new Int32Array(length + 1);
  }
  const pairRank = (index: number, parts: number) =>
    index + 2 < parts ? rankOrNone(rankOf(t, scratch, starts[index]!, starts[index + 2]!)) : NONE;
  let parts = length + 1;
  for (let index = 0; index < parts; index++) starts[index] = index;
  for (let index = 0; index < parts; index++) ranks[index] = pairRank(index, parts);
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
    ranks[at] = pairRank(at, parts);
    if (at > 0) ranks[at - 1] = pairRank(at - 1, parts);
  }
  for (let index = 0; index < parts - 1; index++) {
    const rank = rankOf(t, scratch, starts[index]!, starts[index + 1]!);
    if (rank < 0) throw new Error("The tokenizer's table has no token for a single byte");
    emit(rank);
  }
}

function rankOrNone(rank: number): number {
  return rank < 0 ? NONE : rank;
}

function eachToken(text: string, emit: (rank: number) => void): void {
  const t = (table ??= load());
  for (const match of text.matchAll(SPLIT)) {
    const length = pieceBytes(match[0]);
    const whole = rankOf(t, scratch, 0, length);
    if (whole >= 0) emit(whole);
    else merge(t, length, emit);
  }
}

/** How many o200k_base tokens `text` is, special-token strings counted as plain text. */
export function countTokens(text: string): number {
  let count = 0;
  eachToken(text, () => count++);
  return count;
}

/** The o200k_base tokens of `text`, special-token strings encoded as plain text. */
export function encode(text: string): number[] {
  const tokens: number[] = [];
  eachToken(text, (rank) => tokens.push(rank));
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
