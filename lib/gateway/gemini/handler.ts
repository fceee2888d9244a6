// Gemini's own API (docs/api.md, "Gemini's API"), for programs written against Google's @google/genai SDK: the key in
// x-goog-api-key or `?key=`, errors in Google's shape (the `google` dialect, lib/platform/errors.ts), the model in the
// path (`models/<public model>`). A GenerateContentRequest is converted to the Chat request it is served as
// (lib/dialects/gemini/gemini-to-chat-request.ts) and goes through /v1/chat/completions' money path
// (lib/gateway/text/handler.ts: the reservation, the output cap sent, the relay's meter, the ledger); the relay writes the
// answer back as Gemini's (lib/providers/gemini-client.ts), so every text channel type serves it.
import { GatewayError } from "@/lib/platform/errors";
import { json, limitText } from "@/lib/platform/http/json";
import { paidBodyWatch } from "@/lib/money/body-funds";
import type { CatalogEntry } from "@/lib/catalog";
import { geminiRequestToChat } from "@/lib/dialects/gemini/gemini-to-chat-request";
import type { GeminiEndpointRequest } from "@/lib/dialects/gemini/wire";
import { authoriseModel, gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { readTextRequest } from "@/lib/gateway/text-request";
import { geminiBody, geminiCountBody } from "./body";
import { relayGeminiText } from "@/lib/gateway/text/handler";
import { allowedModels } from "@/lib/gateway/models/handler";
import { COUNT_TOKENS_BODY_LIMIT } from "@/lib/gateway/text/count-tokens";

const PREFIX = "/v1beta/models/";

/** The generation methods every model here serves (Google's supportedGenerationMethods). */
const METHODS = ["generateContent", "streamGenerateContent", "countTokens"];

/** The path's model, as the SDK sends it (`/v1beta/models/<model>:<method>`); a `models/` prefix sent once more
 *  (`models%2F<model>`) is read the same. */
export function modelOfPath(context: GatewayContext, method?: string): string {
  let raw = new URL(context.request.url).pathname.slice(PREFIX.length).replace(/\/$/, "");
  if (method) raw = raw.slice(0, raw.length - method.length - 1);
  let model = raw;
  try {
    model = decodeURIComponent(raw);
  } catch {
    model = raw;
  }
  return model.startsWith("models/") ? model.slice("models/".length) : model;
}

function generate(method: "generateContent" | "streamGenerateContent") {
  const stream = method === "streamGenerateContent";
  return gatewayRoute(
    { endpoint: `/v1beta/models/{model}:${method}`, dialect: "google", scheme: "google", operation: "generate_content" },
    async (context) => {
      const model = modelOfPath(context, method);
      const read = await readTextRequest(context.request, geminiBody, { watch: paidBodyWatch(context) });
      // Validated by the read (here or on a worker); converted once more for the body the relay sends.
      const request = read.body as GeminiEndpointRequest;
      const body = { ...geminiRequestToChat(request, model), stream } as Record<string, unknown>;
      const sse = new URL(context.request.url).searchParams.get("alt") === "sse";
      const { inputTokens, stats, bytes } = read;
      return relayGeminiText(context, body, request.generationConfig?.maxOutputTokens, { inputTokens, stats, bytes }, { stream, sse });
    },
  );
}

export const generateContent = generate("generateContent");
export const streamGenerateContent = generate("streamGenerateContent");

/**
 * `:countTokens`: the gateway's own count of the request as it would be served (the Chat request it becomes), free,
 * on count_tokens' budget and body limit (lib/gateway/text/count-tokens.ts), as /v1/messages/count_tokens.
 */
export const geminiCountTokens = gatewayRoute(
  { endpoint: "/v1beta/models/{model}:countTokens", dialect: "google", scheme: "google", limit: "count_tokens" },
  async (context) => {
    const model = modelOfPath(context, "countTokens");
    let read: Awaited<ReturnType<typeof readTextRequest>>;
    try {
      read = await readTextRequest(context.request, geminiCountBody, { watch: null, limit: COUNT_TOKENS_BODY_LIMIT, withBody: false });
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== "body_too_large") throw error;
      throw new GatewayError(
        "body_too_large",
        `Request body is larger than the ${limitText(COUNT_TOKENS_BODY_LIMIT)} limit of :countTokens (counting is free); count a shorter request, or send this one to :generateContent, which reserves for it as it is`,
      );
    }
    await authoriseModel(context.principal, model);
    return json({ totalTokens: read.inputTokens });
  },
);

function geminiModel(entry: CatalogEntry) {
  return {
    name: `models/${entry.id}`,
    baseModelId: entry.id,
    displayName: entry.displayName,
    inputTokenLimit: entry.contextWindow,
    outputTokenLimit: entry.maxOutputTokens,
    supportedGenerationMethods: METHODS,
  };
}

async function textModels(context: GatewayContext): Promise<CatalogEntry[]> {
  return (await allowedModels(context)).filter((entry) => entry.kind === "text");
}

/** `GET /v1beta/models`: the key's text models, paged as Google pages (`pageSize`, default 50, at most 1000, and the
 *  `nextPageToken` to send back as `pageToken`). */
export const listGeminiModels = gatewayRoute({ endpoint: "/v1beta/models", dialect: "google", scheme: "google" }, async (context) => {
  const entries = await textModels(context);
  const query = new URL(context.request.url).searchParams;
  const size = Math.min(Math.max(Math.trunc(Number(query.get("pageSize"))) || 50, 1), 1000);
  const token = query.get("pageToken");
  const start = token && /^\d{1,6}$/.test(token) ? Number(token) : 0;
  const end = Math.min(entries.length, start + size);
  return json({
    models: entries.slice(start, end).map(geminiModel),
    ...(end < entries.length ? { nextPageToken: String(end) } : {}),
  });
});

/** `GET /v1beta/models/{model}`: one of the key's text models, or NOT_FOUND. */
export const getGeminiModel = gatewayRoute({ endpoint: "/v1beta/models/{model}", dialect: "google", scheme: "google" }, async (context) => {
  const id = modelOfPath(context);
  const entry = (await textModels(context)).find((candidate) => candidate.id === id);
  if (!entry) {
    const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
    throw new GatewayError(
      "model_not_found",
      `The model 'models/${shown}' does not exist or this key may not use it; GET /v1beta/models lists the models it may use`,
    );
  }
  return json(geminiModel(entry));
});
