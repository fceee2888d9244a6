// What the /v1 endpoints answer when the answer is JSON, as zod schemas (lib/gateway/routes.ts declares them). Lenient
// on purpose: an upstream's extra fields pass through to the client, so only the fields every client reads are named.
// Streams (server-sent events) are not described here.
import { z } from "zod";

export const chatCompletionAnswer = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), message: z.looseObject({ role: z.string() }) })),
  usage: z.looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).optional(),
});

export const messageAnswer = z.looseObject({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  // An upstream answer without usage (or with an empty one) is relayed as it came; the ledger then bills what the
  // meter counted (docs/billing.md, "What a cut or unreported answer costs"). Likewise in the chat answer.
  usage: z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
});

export const imagesAnswer = z.looseObject({
  created: z.number().int(),
  data: z.array(z.looseObject({ b64_json: z.string().optional(), url: z.string().optional() })),
});

/** /v1/responses always streams (the request must say `stream: true`); this is the `response` object of its events. */
export const responseObjectAnswer = z.looseObject({ id: z.string(), object: z.literal("response"), status: z.string() });

export const countTokensAnswer = z.object({ input_tokens: z.number().int() });

const openaiModel = z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() });
const anthropicModel = z.object({ type: z.literal("model"), id: z.string(), display_name: z.string(), created_at: z.string() });

/** OpenAI's list, or Anthropic's page when the caller speaks Anthropic (x-api-key or anthropic-version). */
export const modelListAnswer = z.union([
  z.object({ object: z.literal("list"), data: z.array(openaiModel) }),
  z.object({ data: z.array(anthropicModel), has_more: z.boolean(), first_id: z.string().nullable(), last_id: z.string().nullable() }),
]);
export const modelAnswer = z.union([openaiModel, anthropicModel]);

/** /v1/embeddings: a vector per input, as numbers (`encoding_format: "float"`) or base64 float32 bytes. */
export const embeddingsAnswer = z.object({
  object: z.literal("list"),
  data: z.array(
    z.object({ object: z.literal("embedding"), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});
// Gemini's API (/v1beta): a GenerateContentResponse (whole, or each chunk of a stream), countTokens and the model list.
export const geminiResponseAnswer = z.looseObject({
  candidates: z.array(z.looseObject({ content: z.looseObject({ parts: z.array(z.looseObject({})) }).optional() })),
  usageMetadata: z.looseObject({ promptTokenCount: z.number().int(), candidatesTokenCount: z.number().int() }).optional(),
  modelVersion: z.string(),
});
export const geminiCountTokensAnswer = z.object({ totalTokens: z.number().int() });
const geminiModel = z.object({
  name: z.string(),
  baseModelId: z.string(),
  displayName: z.string(),
  inputTokenLimit: z.number().int(),
  outputTokenLimit: z.number().int(),
  supportedGenerationMethods: z.array(z.string()),
});
export const geminiModelAnswer = geminiModel;
export const geminiModelListAnswer = z.object({ models: z.array(geminiModel), nextPageToken: z.string().optional() });
const geminiEmbedding = z.object({ values: z.array(z.number()) });
export const geminiEmbedAnswer = z.object({ embedding: geminiEmbedding });
export const geminiBatchEmbedAnswer = z.object({ embeddings: z.array(geminiEmbedding) });
/** /v1/audio/speech: the audio file's bytes (or `speech.audio.*` events with stream_format "sse"), never JSON. */
export const speechAnswer = z.string().describe("The audio, in the requested format (Content-Type audio/mpeg, audio/wav, audio/pcm, ...)");

/** /v1/audio/transcriptions as JSON (json and verbose_json); text, srt and vtt come as text/plain. */
export const transcriptionAnswer = z.looseObject({
  text: z.string(),
  duration: z.number().optional(),
  language: z.string().optional(),
  segments: z.array(z.looseObject({ start: z.number(), end: z.number(), text: z.string() })).optional(),
});
