// The money path of every embeddings request, whatever shape it came in (OpenAI's /v1/embeddings,
// lib/gateway/embeddings/handler.ts; Gemini's :batchEmbedContents and :embedContent, lib/gateway/embeddings/gemini.ts):
// authorise the model, check it against the request, reserve the inputs' exact count at the input price, relay
// through the channels with failover, settle to the usage the upstream reported (its `prompt_tokens`, Vertex's token
// counts) or, without it, to the same count (docs/billing.md, "Embeddings"). Bad input is refused before the
// reservation, so it costs nothing. Each shape reads its own body and writes its own answer (answerOf, below).
import { GatewayError } from "@/lib/platform/errors";
import { limitText } from "@/lib/platform/http/json";
import { DirectResponse, type BodyPart } from "@/lib/platform/http/direct-body";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { NO_USAGE, textReservation } from "@/lib/money/prices";
import { requirePrice, reserve } from "@/lib/money/reserve";
import { catalogEntryOrGeneric, embeddingDimensions, type CatalogEntry } from "@/lib/catalog";
import { upstreamModel } from "@/lib/channels";
import { providerOf } from "@/lib/providers";
import {
  malformed,
  noEmbeddingsApi,
  type EmbeddingsCall,
  type EmbeddingsInputs,
  type EmbeddingsOutcome,
  type EmbeddingTask,
} from "@/lib/providers/embeddings-types";
import { authoriseModel, type GatewayContext } from "@/lib/gateway/pipeline";
import { withFailover } from "@/lib/gateway/relay";
import { readTextRequest, type BodyKind } from "@/lib/gateway/text-request";
import { EMBEDDINGS_BODY_LIMIT, type InputNames } from "./request";

/** Answers of more values than this are written a few vectors at a time, letting other requests run in between. */
const WHOLE_ANSWER_VALUES = 65_536;

/** How the refusals name the request's parts, in its own shape. */
export type EmbeddingsNames = InputNames & {
  /** The endpoint, as the messages name it: `/v1/embeddings`, `:batchEmbedContents`. */
  endpoint: string;
  /** The field that asks for a smaller vector: `dimensions`, `outputDimensionality`. */
  dimensions: string;
  /** Where a model of another kind is served (the catalog's endpoints unless said). */
  servedBy?: (entry: CatalogEntry) => string;
};

/** One request to embed, in no one's shape: the inputs, their counts, and the names its refusals use. */
export type EmbeddingsJob = {
  model: string;
  input: EmbeddingsInputs;
  dimensions: number | undefined;
  user: string | undefined;
  tasks?: readonly (EmbeddingTask | undefined)[];
  inputCounts: readonly number[];
  inputTokens: number;
  bodyBytes: number;
  names: EmbeddingsNames;
  /** What the ledger row's detail adds (OpenAI's encoding). */
  detail?: Record<string, unknown>;
};

/** The body of an embeddings request of `kind`, within EMBEDDINGS_BODY_LIMIT, under the money-before-work watch. */
export async function readEmbeddingsBody(context: GatewayContext, kind: BodyKind, endpoint: string) {
  try {
    return await readTextRequest(context.request, kind, {
      watch: paidBodyWatch(context, { kinds: ["embedding"] }),
      limit: EMBEDDINGS_BODY_LIMIT,
    });
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== "body_too_large") throw error;
    throw new GatewayError(
      "body_too_large",
      `Request body is larger than the ${limitText(EMBEDDINGS_BODY_LIMIT)} limit of ${endpoint}, which holds any request of at most 300,000 tokens; send the inputs in several requests`,
    );
  }
}

/** The model's own checks: its kind, the size asked for against its size, each input against its token limit. */
async function checkModel(context: GatewayContext, job: EmbeddingsJob) {
  const { model, names } = job;
  await authoriseModel(context.principal, model);
  const entry = await catalogEntryOrGeneric(model);
  if (entry.kind !== "embedding") {
    const servedBy = names.servedBy?.(entry) ?? entry.endpoints.join(" and ");
    throw new GatewayError(
      "invalid_request",
      `'${model}' is ${entry.kind === "image" ? "an" : "a"} ${entry.kind} model: it is served by ${servedBy}, not by ${names.endpoint}`,
      { param: "model" },
    );
  }
  const modelSize = embeddingDimensions(entry.id);
  const field = names.dimensions;
  if (job.dimensions !== undefined) {
    if (modelSize === null)
      throw new GatewayError("invalid_request", `Invalid '${field}': '${model}' makes vectors of one size only; leave '${field}' out`, {
        param: field,
      });
    if (job.dimensions > modelSize)
      throw new GatewayError(
        "invalid_request",
        `Invalid '${field}': '${model}' makes vectors of at most ${modelSize} values; got ${job.dimensions}`,
        { param: field },
      );
  }
  // The catalog's context window is the most tokens one input may hold (8,192 unless an operator set less).
  const longest = job.inputCounts.findIndex((count) => count > entry.contextWindow);
  if (longest >= 0) {
    const param = names.item(longest);
    throw new GatewayError(
      "invalid_request",
      `Invalid '${param}': '${model}' reads at most ${entry.contextWindow.toLocaleString("en")} tokens per input; this one has ${job.inputCounts[longest]!.toLocaleString("en")}`,
      { param },
    );
  }
  return { modelSize };
}

/** The adapter's answer, held to the request: a vector per input, all of one size, the size asked for when one was. */
function checkedAnswer(outcome: EmbeddingsOutcome, call: EmbeddingsCall, inputs: number): EmbeddingsOutcome {
  if (!outcome.ok) return outcome;
  const size = outcome.vectors[0]?.length;
  if (outcome.vectors.length !== inputs || outcome.vectors.some((vector) => vector?.length !== size))
    return malformed(`The upstream's answer does not hold one vector of one size for each of the ${inputs} inputs`);
  if (call.dimensions !== undefined && size !== call.dimensions)
    return malformed(`The upstream made vectors of ${size} values; ${call.dimensions} were asked for`);
  return outcome;
}

/**
 * Checks the job against its model, reserves, relays with failover and settles; the vectors, one per input in order,
 * and the tokens charged for them. Batches a channel made before it failed are charged too (reservation.addBilledInput).
 */
export async function embed(context: GatewayContext, job: EmbeddingsJob): Promise<{ vectors: Float32Array[]; promptTokens: number }> {
  const { model, inputCounts, inputTokens } = job;
  const { modelSize } = await checkModel(context, job);
  const price = await requirePrice(model);
  const reservation = await reserve(context, model, price, textReservation(price, { inputTokens, outputTokens: 0 }));

  const inputs = inputCounts.length;
  const { channel, result } = await withFailover(context, model, reservation, async (candidate) => {
    const call: EmbeddingsCall = {
      channel: candidate,
      publicModel: model,
      upstreamModel: upstreamModel(candidate, model, model),
      input: job.input,
      dimensions: job.dimensions,
      size: job.dimensions ?? modelSize,
      modelSize,
      user: job.user,
      ...(job.tasks ? { tasks: job.tasks } : {}),
      inputCounts,
      inputTokens,
      bodyBytes: job.bodyBytes,
      signal: context.request.signal,
    };
    const adapter = providerOf(candidate.type).embeddings ?? noEmbeddingsApi(candidate.type);
    const outcome = checkedAnswer(await adapter(call), call, inputs);
    // Batches a channel made before one of them failed were billed upstream: charged whatever happens next.
    if (!outcome.ok && outcome.billedInputTokens) reservation.addBilledInput(outcome.billedInputTokens);
    return outcome;
  });
  // The upstream has made (and billed) the vectors: charged now, whether or not the client stays for the answer.
  const promptTokens = result.promptTokens ?? inputTokens;
  reservation.settle({
    usage: { ...NO_USAGE, textInputTokens: promptTokens + reservation.billedInput },
    channel: { id: channel.id, name: channel.name },
    status: "success",
    httpStatus: 200,
    stream: false,
    detail: {
      inputs,
      dimensions: result.vectors[0]!.length,
      ...job.detail,
      usageSource: result.promptTokens === null ? "gateway" : "upstream",
      countedTokens: inputTokens,
      ...(reservation.billedInput ? { billedBeforeFailover: reservation.billedInput } : {}),
    },
  });
  return { vectors: result.vectors, promptTokens };
}

/** A large answer, written a few vectors at a time with a turn of the event loop after every WHOLE_ANSWER_VALUES values. */
async function* inSlices(vectors: Float32Array[], head: string, item: ItemWriter, tail: string): AsyncGenerator<BodyPart> {
  yield head;
  let values = 0;
  for (const [index, vector] of vectors.entries()) {
    yield item(vector, index);
    values += vector.length;
    if (values >= WHOLE_ANSWER_VALUES) {
      values = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  yield tail;
}

/** One vector's part of the answer, its separator from the one before included. */
export type ItemWriter = (vector: Float32Array, index: number) => string;

/** The JSON answer `head`, a part per vector, `tail`: at once, or in slices when it is large. */
export function answerOf(vectors: Float32Array[], head: string, item: ItemWriter, tail: string): DirectResponse {
  const headers = { "content-type": "application/json" };
  if (vectors.length * (vectors[0]?.length ?? 0) > WHOLE_ANSWER_VALUES)
    return new DirectResponse([inSlices(vectors, head, item, tail)], { status: 200, headers });
  return new DirectResponse([head, ...vectors.map(item), tail], { status: 200, headers });
}
