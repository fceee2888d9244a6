// /v1/embeddings through the Gemini API: POST {base}/v1beta/models/{model}:batchEmbedContents with one request per text
// (`{model: "models/{model}", content: {parts: [{text}]}, outputDimensionality}`), at most 100 to a call as Google
// takes them (the calls of one request run a few at a time); the answer is `{embeddings: [{values}]}`, in order.
// `taskType` and `title` go with their text when a Gemini client sent them (lib/gateway/embeddings/gemini.ts).
// Google reports no token usage there: the gateway's own count is the charge (docs/billing.md). Vectors shorter than
// the model's full size come back unscaled from Google; they are scaled to unit length, as OpenAI's are. Token-id
// inputs cannot be sent: another channel may take them.
import { channelDeadlines, jsonBody, readUpstreamJson, upstreamFetch } from "@/lib/providers/http";
import {
  float32FromNumbers,
  inBatches,
  malformed,
  textOnly,
  unitLength,
  type EmbeddingsCall,
  type EmbeddingsOutcome,
} from "@/lib/providers/embeddings-types";

/** The most requests one batchEmbedContents call takes. */
export const GEMINI_EMBED_BATCH = 100;
/** Calls of one request in flight at once. */
const PARALLEL_CALLS = 4;

type Batch = { ok: true; vectors: Float32Array[] } | Exclude<EmbeddingsOutcome, { ok: true }>;

/** `root`: the API's base URL (the channel's, or Google's). */
export async function geminiEmbeddings(call: EmbeddingsCall, root: string): Promise<EmbeddingsOutcome> {
  if (call.input.kind !== "text") return textOnly("gemini");
  const texts = call.input.texts;
  const model = call.upstreamModel;
  const url = `${root}/v1beta/models/${encodeURIComponent(model)}:batchEmbedContents`;
  const ranges: [number, number][] = [];
  for (let start = 0; start < texts.length; start += GEMINI_EMBED_BATCH)
    ranges.push([start, Math.min(start + GEMINI_EMBED_BATCH, texts.length)]);
  const batches = await inBatches(
    call,
    ranges,
    async (start, end): Promise<Batch> => {
      const chunk = texts.slice(start, end);
      const requests = chunk.map((text, index) => ({
        model: `models/${model}`,
        content: { parts: [{ text }] },
        ...call.tasks?.[start + index],
        ...(call.size !== null ? { outputDimensionality: call.size } : {}),
      }));
      const result = await upstreamFetch(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", "x-goog-api-key": call.channel.apiKey },
          body: await jsonBody({ requests }, (call.bodyBytes * chunk.length) / texts.length),
        },
        { signal: call.signal, ...channelDeadlines(call.channel.settings) },
      );
      if (!result.ok) return result;
      const answer = await readUpstreamJson(result.response, call.signal);
      if (!answer.ok) return answer;
      const embeddings = answer.value.embeddings;
      if (!Array.isArray(embeddings) || embeddings.length !== chunk.length)
        return malformed(
          `The upstream answered ${Array.isArray(embeddings) ? embeddings.length : "no"} embeddings for ${chunk.length} texts`,
        );
      const vectors: Float32Array[] = [];
      for (const embedding of embeddings) {
        const values = float32FromNumbers((embedding as { values?: unknown } | null)?.values);
        if (!values) return malformed("An embedding in the upstream's answer is not a vector");
        vectors.push(unitLength(values));
      }
      return { ok: true, vectors };
    },
    PARALLEL_CALLS,
  );
  if (!Array.isArray(batches)) return batches;
  const vectors = batches.flatMap((batch) => batch.vectors);
  return { ok: true, vectors, promptTokens: null };
}
