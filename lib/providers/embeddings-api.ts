// The embeddings API of every upstream that speaks OpenAI's (`openai` and `azure` channels, each with its own Endpoint,
// ./endpoint.ts): https://platform.openai.com/docs/api-reference/embeddings/create. The upstream gets the mapped model,
// the inputs, the client's `dimensions` and `user`, and `encoding_format: "base64"` whatever the client asked: the
// same float32 values in about a quarter of the JSON (the largest answer, 2,048 vectors of 3,072 values, is ~34 MB
// so, ~130 MB as decimals). An upstream that answers numbers all the same is read too.
import { bodyFailure, channelDeadlines, jsonBody, readUpstreamBytes, upstreamFetch } from "@/lib/providers/http";
import type { Endpoint } from "@/lib/providers/endpoint";
import {
  float32FromBase64,
  float32FromNumbers,
  malformed,
  type EmbeddingsAdapter,
  type EmbeddingsCall,
  type EmbeddingsOutcome,
} from "@/lib/providers/embeddings-types";

/** The most of an answer read into memory (the largest base64 answer with room to spare). */
export const MAX_EMBEDDINGS_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The request body: texts or token arrays as a list, with only the fields the client set. */
function requestBody(call: EmbeddingsCall): Record<string, unknown> {
  return {
    model: call.upstreamModel,
    input: call.input.kind === "text" ? call.input.texts : call.input.tokens,
    encoding_format: "base64",
    ...(call.dimensions !== undefined ? { dimensions: call.dimensions } : {}),
    ...(call.user !== undefined ? { user: call.user } : {}),
  };
}

/** `{data: [{index, embedding}], usage: {prompt_tokens}}` as one vector per input, in the inputs' order. */
export function readEmbeddingsAnswer(body: unknown, inputs: number): EmbeddingsOutcome {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== inputs)
    return malformed(`The upstream answered ${Array.isArray(data) ? data.length : "no"} embeddings for ${inputs} inputs`);
  const vectors: Float32Array[] = new Array(inputs);
  for (const [position, item] of data.entries()) {
    const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= inputs || vectors[index])
      return malformed("The upstream's embeddings are not numbered one per input");
    const vector = typeof embedding === "string" ? float32FromBase64(embedding) : float32FromNumbers(embedding);
    if (!vector?.length) return malformed("An embedding in the upstream's answer is not a vector");
    vectors[index] = vector;
  }
  const reported = (body as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
  const promptTokens = typeof reported === "number" && Number.isSafeInteger(reported) && reported >= 0 ? reported : null;
  return { ok: true, vectors, promptTokens };
}

export function embeddingsApiAdapter(endpoint: Endpoint): EmbeddingsAdapter {
  return async (call) => {
    const result = await upstreamFetch(
      endpoint.url(call.channel, "embeddings", call.upstreamModel),
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...endpoint.auth(call.channel) },
        body: await jsonBody(requestBody(call), call.bodyBytes),
      },
      { signal: call.signal, ...channelDeadlines(call.channel.settings) },
    );
    if (!result.ok) return result;
    let bytes: Buffer | null;
    try {
      bytes = await readUpstreamBytes(result.response, MAX_EMBEDDINGS_RESPONSE_BYTES);
    } catch (error) {
      return bodyFailure(error, call.signal);
    }
    if (!bytes)
      return {
        ok: false,
        retryable: true,
        status: 502,
        message: "The upstream's answer is larger than 64 MB",
        cause: "upstream_too_large",
      };
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString("utf8"));
    } catch {
      return malformed("The upstream's answer is not valid JSON");
    }
    const count = call.input.kind === "text" ? call.input.texts.length : call.input.tokens.length;
    return readEmbeddingsAnswer(body, count);
  };
}
