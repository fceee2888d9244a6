// What an upstream adapter does for /v1/embeddings (the optional `embeddings` of a Provider, lib/providers/registry.ts).
// Every adapter answers the vectors as float32 values, whatever its vendor sends (OpenAI's base64, Google's numbers):
// the gateway writes them in the encoding the client asked for.
import type { Channel } from "@/lib/channels";
import type { UpstreamFailure } from "./types";

/** The inputs, in order: texts, or token-id arrays (which only an upstream that takes them can embed). */
export type EmbeddingsInputs = { kind: "text"; texts: string[] } | { kind: "tokens"; tokens: number[][] };

/** Google's hints for one input (Gemini's API inbound, lib/gateway/embeddings/gemini.ts): passed on by the Gemini and
 *  Vertex adapters, whose upstreams take them; the other upstreams have no such field. */
export type EmbeddingTask = { taskType?: string; title?: string };

export type EmbeddingsCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  input: EmbeddingsInputs;
  /** The client's `dimensions`, when it set one. */
  dimensions: number | undefined;
  /** The vector size the answer should have: `dimensions`, else the model's (lib/catalog), null when neither says. */
  size: number | null;
  /** The model's own vector size (lib/catalog), when the catalog knows it. */
  modelSize: number | null;
  user: string | undefined;
  /** Per input, in order, when the client sent Google's hints. */
  tasks?: readonly (EmbeddingTask | undefined)[];
  /** The gateway's count of each input (o200k), and their sum: the usage of an upstream that reports none. */
  inputCounts: readonly number[];
  inputTokens: number;
  /** The client's body size, the upstream request's size hint (a large one is serialised in slices). */
  bodyBytes: number;
  signal: AbortSignal;
};

/** One vector per input, in the inputs' order; `promptTokens` as the upstream reported them, or null. */
export type EmbeddingsSuccess = { ok: true; vectors: Float32Array[]; promptTokens: number | null };
export type EmbeddingsOutcome = EmbeddingsSuccess | UpstreamFailure;

export type EmbeddingsAdapter = (call: EmbeddingsCall) => Promise<EmbeddingsOutcome>;

/** For a type with no embeddings API (or none the gateway calls): every call fails over with a plain reason. */
export function noEmbeddingsApi(type: string): EmbeddingsAdapter {
  return async () => ({
    ok: false,
    retryable: true,
    status: 502,
    message: `A '${type}' channel cannot serve embeddings`,
    cause: "unsupported_channel",
  });
}

/** Token-id arrays sent to an upstream that embeds only text: another channel may take them. */
export function textOnly(type: string): UpstreamFailure {
  return {
    ok: false,
    retryable: true,
    status: 400,
    message: `Token-id inputs need a channel that takes them: a '${type}' channel embeds text only; send the inputs as strings`,
    cause: "unsupported_input",
  };
}

/** `values` scaled to unit length (as OpenAI's vectors are; Google's are only at the model's full size). */
export function unitLength(values: Float32Array): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  if (sum > 0 && Math.abs(sum - 1) > 1e-6) {
    const scale = 1 / Math.sqrt(sum);
    for (let index = 0; index < values.length; index++) values[index]! *= scale;
  }
  return values;
}

/**
 * Runs one job per range of inputs (`[start, end)`), at most `limit` at once; the first failure (an UpstreamFailure
 * result) ends the rest unsent. The batches that had succeeded by then were made and billed upstream: the failure
 * says so in `billedInputTokens` (their tokens as the upstream reported them, else as counted), and the request is
 * charged for them even if it fails in the end (docs/billing.md, "Embeddings").
 */
export async function inBatches<T extends { ok: true; tokens?: number | null }>(
  call: EmbeddingsCall,
  ranges: readonly [number, number][],
  job: (start: number, end: number) => Promise<T | UpstreamFailure>,
  limit: number,
): Promise<T[] | UpstreamFailure> {
  const results: (T | undefined)[] = new Array(ranges.length);
  let next = 0;
  let failed: UpstreamFailure | null = null;
  const worker = async () => {
    while (next < ranges.length && !failed) {
      const index = next++;
      const [start, end] = ranges[index]!;
      const result = await job(start, end);
      if (result.ok) results[index] = result;
      else failed ??= result;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, ranges.length) }, worker));
  if (!failed) return results as T[];
  let billed = 0;
  for (const [index, result] of results.entries()) {
    if (!result) continue;
    const [start, end] = ranges[index]!;
    billed += result.tokens ?? call.inputCounts.slice(start, end).reduce((sum, count) => sum + count, 0);
  }
  return billed ? { ...(failed as UpstreamFailure), billedInputTokens: billed } : failed;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** OpenAI's `encoding_format: "base64"`: little-endian float32 values; null when the bytes are not whole values. */
export function float32FromBase64(text: string): Float32Array | null {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4) return null;
  const values = new Float32Array(bytes.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(values.buffer).set(bytes);
  else for (let index = 0; index < values.length; index++) values[index] = bytes.readFloatLE(index * 4);
  return values;
}

/** The other way: the values as little-endian float32 bytes, in base64. */
export function float32ToBase64(values: Float32Array): string {
  if (LITTLE_ENDIAN) return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString("base64");
  const bytes = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) bytes.writeFloatLE(value, index * 4);
  return bytes.toString("base64");
}

/** Numbers from a JSON answer as float32 values; null when one is not a finite number. */
export function float32FromNumbers(values: unknown): Float32Array | null {
  if (!Array.isArray(values) || !values.length) return null;
  const out = new Float32Array(values.length);
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (typeof value !== "number" || !Number.isFinite(value)) return null;
    out[index] = value;
  }
  return out;
}

/** A malformed answer: another channel may do better. */
export function malformed(message: string): UpstreamFailure {
  return { ok: false, retryable: true, status: 502, message, cause: "upstream_malformed" };
}
