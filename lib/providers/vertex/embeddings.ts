// /v1/embeddings through Vertex AI's text embedding models (`gemini-embedding-*`, `text-embedding-*`,
// `text-multilingual-embedding-*`): POST {root}/v1/projects/{project}/locations/{region}/publishers/google/models/
// {model}:predict with `{instances: [{content, task_type?, title?}], parameters: {outputDimensionality}}` (the task and
// title a Gemini client sent, lib/gateway/embeddings/gemini.ts); the answer's
// `predictions[].embeddings` hold `values` and `statistics.token_count`, whose sum is the charge (the gateway's own
// count when one is missing). `gemini-embedding-*` takes one instance per call, the others up to 250 (and 20,000
// tokens, by the gateway's count); the calls of one request run a few at a time. Vectors are scaled to unit length
// (Google's are only at the model's full size); token-id inputs cannot be sent.
import { channelDeadlines, jsonBody, readUpstreamJson, upstreamFetch } from "@/lib/providers/http";
import { forgetGoogleToken, googleAccessToken, serviceAccountOf, type ServiceAccount } from "@/lib/providers/google-token";
import {
  float32FromNumbers,
  inBatches,
  malformed,
  textOnly,
  unitLength,
  type EmbeddingsCall,
  type EmbeddingsOutcome,
  type EmbeddingTask,
} from "@/lib/providers/embeddings-types";
import type { UpstreamFailure } from "@/lib/providers/types";

const MAX_INSTANCES = 250;
const MAX_BATCH_TOKENS = 20_000;
const PARALLEL_CALLS = 8;

type Batch = { ok: true; vectors: Float32Array[]; tokens: number | null } | UpstreamFailure;

/** One text, with Google's `task_type` and `title` when a Gemini client sent them (lib/gateway/embeddings/gemini.ts). */
function instanceOf(content: string, task: EmbeddingTask | undefined) {
  return {
    content,
    ...(task?.taskType ? { task_type: task.taskType } : {}),
    ...(task?.title !== undefined ? { title: task.title } : {}),
  };
}

/** The inputs' indexes in calls: one each for the Gemini embedding models, else up to the instance and token limits. */
function batches(call: EmbeddingsCall, texts: string[]): [number, number][] {
  const single = call.upstreamModel.startsWith("gemini-");
  const ranges: [number, number][] = [];
  let start = 0;
  let tokens = 0;
  for (let index = 0; index < texts.length; index++) {
    const count = call.inputCounts[index] ?? 0;
    const full = index - start >= (single ? 1 : MAX_INSTANCES) || (index > start && tokens + count > MAX_BATCH_TOKENS);
    if (full) {
      ranges.push([start, index]);
      start = index;
      tokens = 0;
    }
    tokens += count;
  }
  ranges.push([start, texts.length]);
  return ranges;
}

async function post(url: string, account: ServiceAccount, payload: string | Buffer[], call: EmbeddingsCall) {
  const send = async () => {
    const token = await googleAccessToken(account, { signal: call.signal });
    if (!token.ok) return token;
    const headers = { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token.token}` };
    return upstreamFetch(
      url,
      { method: "POST", headers, body: payload },
      { signal: call.signal, ...channelDeadlines(call.channel.settings) },
    );
  };
  const result = await send();
  // A token Google no longer takes is fetched again once before the channel is blamed (as lib/providers/vertex/index.ts).
  if (result.ok || result.cause !== "upstream_401") return result;
  forgetGoogleToken(account);
  return send();
}

/** `root`: the API's root (the channel's base URL, or the region's endpoint). */
export async function vertexEmbeddings(call: EmbeddingsCall, root: string): Promise<EmbeddingsOutcome> {
  if (call.input.kind !== "text") return textOnly("vertex");
  const parsed = serviceAccountOf(call.channel.apiKey);
  if (!parsed.ok)
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "This channel's service account is unusable",
      cause: "channel_config",
      disable: parsed.message,
    };
  const { account } = parsed;
  const settings = call.channel.settings;
  const project = typeof settings.project === "string" && settings.project ? settings.project : (account.project_id ?? "");
  const model = encodeURIComponent(call.upstreamModel).replace(/%40/g, "@");
  const url = `${root}/v1/projects/${project}/locations/${String(settings.region)}/publishers/google/models/${model}:predict`;
  const texts = call.input.texts;
  const results = await inBatches(
    call,
    batches(call, texts),
    async (start, end): Promise<Batch> => {
      const body = {
        instances: texts.slice(start, end).map((content, index) => instanceOf(content, call.tasks?.[start + index])),
        ...(call.size !== null ? { parameters: { outputDimensionality: call.size } } : {}),
      };
      const result = await post(url, account, await jsonBody(body, (call.bodyBytes * (end - start)) / texts.length), call);
      if (!result.ok) return result;
      const answer = await readUpstreamJson(result.response, call.signal);
      if (!answer.ok) return answer;
      const predictions = answer.value.predictions;
      if (!Array.isArray(predictions) || predictions.length !== end - start)
        return malformed(
          `The upstream answered ${Array.isArray(predictions) ? predictions.length : "no"} embeddings for ${end - start} texts`,
        );
      const vectors: Float32Array[] = [];
      let tokens: number | null = 0;
      for (const prediction of predictions) {
        const embeddings = (prediction as { embeddings?: { values?: unknown; statistics?: { token_count?: unknown } } } | null)?.embeddings;
        const values = float32FromNumbers(embeddings?.values);
        if (!values) return malformed("An embedding in the upstream's answer is not a vector");
        vectors.push(unitLength(values));
        const count = embeddings?.statistics?.token_count;
        tokens = tokens !== null && typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? tokens + count : null;
      }
      return { ok: true, vectors, tokens };
    },
    PARALLEL_CALLS,
  );
  if (!Array.isArray(results)) return results;
  const vectors: Float32Array[] = [];
  let promptTokens: number | null = 0;
  for (const result of results) {
    vectors.push(...result.vectors);
    promptTokens = promptTokens !== null && result.tokens !== null ? promptTokens + result.tokens : null;
  }
  return { ok: true, vectors, promptTokens };
}
