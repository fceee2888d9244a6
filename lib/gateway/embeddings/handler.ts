// POST /v1/embeddings (docs/api.md §4): check the body (lib/gateway/embeddings/request.ts), authorise the model,
// reserve the inputs' exact count at the input price, relay through the channels with failover, settle to the usage
// the upstream reported (its `prompt_tokens`, Vertex's token counts) or, without it, to the same count (docs/billing.md).
// Bad input is refused before the reservation, so it costs nothing. The answer is OpenAI's, the vectors in the
// encoding the client asked for.
import { GatewayError } from "@/lib/platform/errors";
import { limitText } from "@/lib/platform/http/json";
import { DirectResponse, type BodyPart } from "@/lib/platform/http/direct-body";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { NO_USAGE, textReservation } from "@/lib/money/prices";
import { requirePrice, reserve } from "@/lib/money/reserve";
import { catalogEntryOrGeneric, embeddingDimensions } from "@/lib/catalog";
import { upstreamModel } from "@/lib/channels";
import { providerOf } from "@/lib/providers";
import { float32ToBase64, malformed, noEmbeddingsApi, type EmbeddingsCall, type EmbeddingsOutcome } from "@/lib/providers/embeddings-types";
import { authoriseModel, gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { withFailover } from "@/lib/gateway/relay";
import { readTextRequest } from "@/lib/gateway/text-request";
import { countInputs, EMBEDDINGS_BODY_LIMIT, parseEmbeddingsRequest, type EmbeddingsRequest } from "./request";

/** Answers of more values than this are written a few vectors at a time, letting other requests run in between. */
const WHOLE_ANSWER_VALUES = 65_536;

async function readBody(context: GatewayContext) {
  try {
    return await readTextRequest(context.request, "embeddings", { watch: paidBodyWatch(context), limit: EMBEDDINGS_BODY_LIMIT });
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== "body_too_large") throw error;
    throw new GatewayError(
      "body_too_large",
      `Request body is larger than the ${limitText(EMBEDDINGS_BODY_LIMIT)} limit of /v1/embeddings, which holds any request of at most 300,000 tokens; send the inputs in several requests`,
    );
  }
}

/** The model's own checks: its kind, `dimensions` against its size, each input against its token limit. */
async function checkModel(context: GatewayContext, request: EmbeddingsRequest, inputCounts: readonly number[]) {
  const { model } = request;
  await authoriseModel(context.principal, model);
  const entry = await catalogEntryOrGeneric(model);
  if (entry.kind !== "embedding") {
    throw new GatewayError(
      "invalid_request",
      `'${model}' is ${entry.kind === "image" ? "an" : "a"} ${entry.kind} model: it is served by ${entry.endpoints.join(" and ")}, not by /v1/embeddings`,
      { param: "model" },
    );
  }
  const modelSize = embeddingDimensions(entry.id);
  if (request.dimensions !== undefined) {
    if (modelSize === null)
      throw new GatewayError("invalid_request", `Invalid 'dimensions': '${model}' makes vectors of one size only; leave 'dimensions' out`, {
        param: "dimensions",
      });
    if (request.dimensions > modelSize)
      throw new GatewayError(
        "invalid_request",
        `Invalid 'dimensions': '${model}' makes vectors of at most ${modelSize} values; got ${request.dimensions}`,
        { param: "dimensions" },
      );
  }
  // The catalog's context window is the most tokens one input may hold (8,192 unless an operator set less).
  const longest = inputCounts.findIndex((count) => count > entry.contextWindow);
  if (longest >= 0) {
    const param = request.input.bare ? "input" : `input[${longest}]`;
    throw new GatewayError(
      "invalid_request",
      `Invalid '${param}': '${model}' reads at most ${entry.contextWindow.toLocaleString("en")} tokens per input; this one has ${inputCounts[longest]!.toLocaleString("en")}`,
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

/** OpenAI's answer, `{object: "list", data: [{object, index, embedding}], model, usage}`, written around its items. */
const ANSWER_HEAD = '{"object":"list","data":[';

function answerTail(model: string, promptTokens: number): string {
  return `],"model":${JSON.stringify(model)},"usage":{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens}}}`;
}

function answerItem(index: number, vector: Float32Array, format: "float" | "base64"): string {
  const embedding = format === "base64" ? JSON.stringify(float32ToBase64(vector)) : JSON.stringify(Array.from(vector));
  return `${index ? "," : ""}{"object":"embedding","index":${index},"embedding":${embedding}}`;
}

/** A large answer, written a few vectors at a time with a turn of the event loop after every WHOLE_ANSWER_VALUES values. */
async function* answerInSlices(vectors: Float32Array[], format: "float" | "base64", tail: string): AsyncGenerator<BodyPart> {
  yield ANSWER_HEAD;
  let values = 0;
  for (const [index, vector] of vectors.entries()) {
    yield answerItem(index, vector, format);
    values += vector.length;
    if (values >= WHOLE_ANSWER_VALUES) {
      values = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  yield tail;
}

export const embeddings = gatewayRoute({ endpoint: "/v1/embeddings", dialect: "openai", scheme: "bearer" }, async (context) => {
  const read = await readBody(context);
  const request = parseEmbeddingsRequest(read.body);
  const inputCounts = read.inputCounts ?? countInputs(request.input);
  const { model } = request;
  const { modelSize } = await checkModel(context, request, inputCounts);
  const price = await requirePrice(model);
  const inputTokens = read.inputTokens;
  const reservation = await reserve(context, model, price, textReservation(price, { inputTokens, outputTokens: 0 }));

  const inputs = inputCounts.length;
  const { channel, result } = await withFailover(context, model, reservation, async (candidate) => {
    const call: EmbeddingsCall = {
      channel: candidate,
      publicModel: model,
      upstreamModel: upstreamModel(candidate, model, model),
      input: request.input,
      dimensions: request.dimensions,
      size: request.dimensions ?? modelSize,
      modelSize,
      user: request.user,
      inputCounts,
      inputTokens,
      bodyBytes: read.bytes,
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
      encodingFormat: request.encodingFormat,
      usageSource: result.promptTokens === null ? "gateway" : "upstream",
      countedTokens: inputTokens,
      ...(reservation.billedInput ? { billedBeforeFailover: reservation.billedInput } : {}),
    },
  });
  const headers = { "content-type": "application/json" };
  const tail = answerTail(model, promptTokens);
  const { vectors } = result;
  if (inputs * vectors[0]!.length > WHOLE_ANSWER_VALUES)
    return new DirectResponse([answerInSlices(vectors, request.encodingFormat, tail)], { status: 200, headers });
  const items = vectors.map((vector, index) => answerItem(index, vector, request.encodingFormat));
  return new DirectResponse([ANSWER_HEAD, ...items, tail], { status: 200, headers });
});
