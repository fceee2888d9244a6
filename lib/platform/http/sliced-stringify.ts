// JSON.stringify of a large value in slices, the counterpart of lib/platform/http/sliced-json.ts: a request body of
// tens of megabytes is serialised for its upstream without holding the event loop for more than a few milliseconds
// at a time (docs/decisions/0018-large-bodies-off-the-event-loop.md). The value is walked with a stack of its own; the text is handed on
// as buffers of about `chunkBytes`; a long string is written in pieces. The bytes are those of JSON.stringify for
// the same value (the tests check it), including toJSON and the members it leaves out.
import { setImmediate as nextTurn } from "node:timers/promises";

export type StringifyOptions = {
  /** How large the buffers handed on are (default 64 KB). */
  chunkBytes?: number;
  /** How long one slice of work may run before the event loop is let go (default 2 ms). */
  sliceMs?: number;
};

/** A string longer than this is written in pieces of this many characters. */
const STRING_PIECE = 32 * 1024;

type Frame =
  | { kind: "array"; value: unknown[]; index: number }
  | { kind: "object"; value: Record<string, unknown>; keys: string[]; index: number; wrote: boolean }
  | { kind: "string"; value: string; index: number };

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** What JSON.stringify writes for a value before walking it: toJSON applied. */
function resolve(value: unknown, key: string): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function")
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  return value;
}

/** True for what JSON.stringify leaves out of an object (and writes as null in an array). */
function skipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/**
 * The JSON text of `value` as buffers, made in slices of at most `sliceMs` of work with the event loop let go between
 * them. Throws as JSON.stringify does for a cycle or a BigInt.
 */
export async function stringifyInSlices(value: unknown, options: StringifyOptions = {}): Promise<Buffer[]> {
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const sliceMs = options.sliceMs ?? 2;
  const chunks: Buffer[] = [];
  let pending = "";
  const stack: Frame[] = [];
  const open = new Set<object>();

  const write = (text: string) => {
    pending += text;
    if (pending.length >= chunkBytes) {
      chunks.push(Buffer.from(pending));
      pending = "";
    }
  };
  /** Writes a primitive, or opens a container or a long string (pushed on the stack). */
  const begin = (item: unknown) => {
    if (typeof item === "string" && item.length > STRING_PIECE) {
      write('"');
      stack.push({ kind: "string", value: item, index: 0 });
    } else if (item === null || typeof item !== "object") {
      write(JSON.stringify(item) ?? "null");
    } else {
      if (open.has(item)) throw new TypeError("Converting circular structure to JSON");
      open.add(item);
      if (Array.isArray(item)) {
        write("[");
        stack.push({ kind: "array", value: item, index: 0 });
      } else {
        write("{");
        stack.push({ kind: "object", value: item as Record<string, unknown>, keys: Object.keys(item), index: 0, wrote: false });
      }
    }
  };
  /** One step of the innermost open value: one element, member or piece, or its end. */
  const step = (frame: Frame) => {
    if (frame.kind === "string") {
      if (frame.index === frame.value.length) {
        write('"');
        stack.pop();
        return;
      }
      let end = Math.min(frame.value.length, frame.index + STRING_PIECE);
      // A surrogate pair stays whole, as JSON.stringify writes it.
      if (end < frame.value.length && isHighSurrogate(frame.value.charCodeAt(end - 1))) end--;
      write(JSON.stringify(frame.value.slice(frame.index, end)).slice(1, -1));
      frame.index = end;
    } else if (frame.kind === "array") {
      if (frame.index === frame.value.length) {
        write("]");
        open.delete(frame.value);
        stack.pop();
        return;
      }
      if (frame.index > 0) write(",");
      const index = frame.index++;
      const item = resolve(frame.value[index], String(index));
      begin(skipped(item) ? null : item);
    } else {
      if (frame.index === frame.keys.length) {
        write("}");
        open.delete(frame.value);
        stack.pop();
        return;
      }
      const key = frame.keys[frame.index++]!;
      const item = resolve(frame.value[key], key);
      if (skipped(item)) return;
      write(`${frame.wrote ? "," : ""}${JSON.stringify(key)}:`);
      frame.wrote = true;
      begin(item);
    }
  };

  const root = resolve(value, "");
  if (skipped(root)) throw new TypeError("The value has no JSON text");
  begin(root);
  let sliceStart = performance.now();
  let steps = 0;
  while (stack.length) {
    step(stack.at(-1)!);
    // The clock is read every 64 steps: a step is a few hundred nanoseconds at most, a long string's piece ~0.1 ms.
    if (++steps % 64 === 0 && performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  if (pending) chunks.push(Buffer.from(pending));
  return chunks;
}
