// The simulator's /v1/embeddings: a vector per input, made from the input alone (docs/simulator.md). The same text gives
// the same vector, different texts different ones, every vector of unit length; texts alike in meaning are not close
// (there is no model). The values come from a fast generator seeded with the SHA-256 of the input; a shorter vector
// (`dimensions`) is the start of the full one, rescaled, as OpenAI's shortened embeddings are. Usage: the gateway's
// own count of the inputs.
import { createHash } from "node:crypto";
import { unitLength, type EmbeddingsAdapter } from "@/lib/providers/embeddings-types";

/** The size of a vector when neither the request nor the catalog gives one (an operator's own embedding model). */
export const SIMULATOR_DEFAULT_DIMENSIONS = 1536;

/** xoshiro128** (Blackman and Vigna), seeded with the digest's first 16 bytes: values in [-1, 1). */
function vectorOf(seed: Buffer, size: number): Float32Array {
  let a = seed.readUInt32LE(0);
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  if ((a | b | c | d) === 0) a = 1;
  const values = new Float32Array(size);
  for (let index = 0; index < size; index++) {
    const result = Math.imul(rotate(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotate(d, 11);
    values[index] = result / 2 ** 31 - 1;
  }
  return unitLength(values);
}

function rotate(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function seedOf(input: string | number[]): Buffer {
  const hash = createHash("sha256");
  // Text and token ids apart: the text "1,2" and the tokens [1, 2] are different inputs.
  if (typeof input === "string") hash.update("text\0").update(input);
  else hash.update("tokens\0").update(input.join(","));
  return hash.digest();
}

/** Values made between two turns of the event loop (the largest request, 2,048 vectors of 3,072, takes ~130 ms). */
const VALUES_PER_TURN = 65_536;

export const simulatorEmbeddings: EmbeddingsAdapter = async (call) => {
  const size = call.size ?? SIMULATOR_DEFAULT_DIMENSIONS;
  const inputs: (string | number[])[] = call.input.kind === "text" ? call.input.texts : call.input.tokens;
  const vectors: Float32Array[] = [];
  let made = 0;
  for (const input of inputs) {
    vectors.push(vectorOf(seedOf(input), size));
    made += size;
    if (made >= VALUES_PER_TURN) {
      made = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { ok: true, vectors, promptTokens: call.inputTokens };
};
