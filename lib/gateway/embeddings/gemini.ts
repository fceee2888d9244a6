// Gemini's embedding methods (docs/api.md, "Gemini's API"): POST /v1beta/models/{model}:batchEmbedContents, which
// @google/genai's `models.embedContent` calls for the Gemini API, and :embedContent, one content. The body is checked
// in Google's shape (lib/gateway/embeddings/gemini-request.ts), every request's `model` held to the path's as Google
// holds it; the money path is /v1/embeddings' (lib/gateway/embeddings/core.ts); the answer is Google's,
// `{embeddings: [{values}]}` or `{embedding: {values}}`. `taskType` and `title` go on to the channels that take them
// (lib/providers/gemini/embeddings.ts, lib/providers/vertex/embeddings.ts).
import { GatewayError } from "@/lib/platform/errors";
import type { CatalogEntry } from "@/lib/catalog";
import { gatewayRoute } from "@/lib/gateway/pipeline";
import { modelOfPath } from "@/lib/gateway/gemini/handler";
import { answerOf, embed, readEmbeddingsBody } from "./core";
import { countInputs } from "./request";
import { geminiBatchEmbedBody, geminiEmbedOneBody, parseGeminiEmbed, type GeminiEmbedMethod } from "./gemini-request";

function shown(model: string): string {
  return model.length > 100 ? `${model.slice(0, 100)}…` : model;
}

/** A text model is served here by :generateContent; any other by its own endpoints. */
function servedBy(entry: CatalogEntry): string {
  return entry.kind === "text" ? `/v1beta/models/${entry.id}:generateContent and :streamGenerateContent` : entry.endpoints.join(" and ");
}

function values(vector: Float32Array): string {
  return `{"values":${JSON.stringify(Array.from(vector))}}`;
}

function geminiEmbed(method: GeminiEmbedMethod) {
  const endpoint = `:${method}`;
  return gatewayRoute(
    { endpoint: `/v1beta/models/{model}:${method}`, dialect: "google", scheme: "google", operation: "embeddings" },
    async (context) => {
      const model = modelOfPath(context, method);
      const read = await readEmbeddingsBody(context, method === "embedContent" ? geminiEmbedOneBody : geminiBatchEmbedBody, endpoint);
      const request = parseGeminiEmbed(read.body, method);
      const other = request.models.findIndex((named) => named !== undefined && named !== model);
      if (other >= 0) {
        const param = method === "embedContent" ? "model" : `requests[${other}].model`;
        throw new GatewayError(
          "invalid_request",
          `Invalid '${param}': the model in the request (models/${shown(request.models[other]!)}) must match the model in the URL (models/${shown(model)})`,
          { param },
        );
      }
      const names = { ...request.names, endpoint, servedBy };
      const { vectors } = await embed(context, {
        model,
        input: request.input,
        dimensions: request.dimensions,
        user: undefined,
        tasks: request.tasks,
        inputCounts: read.inputCounts ?? countInputs(request.input, names),
        inputTokens: read.inputTokens,
        bodyBytes: read.bytes,
        names,
      });
      if (method === "embedContent") return answerOf(vectors, '{"embedding":', values, "}");
      return answerOf(vectors, '{"embeddings":[', (vector, index) => `${index ? "," : ""}${values(vector)}`, "]}");
    },
  );
}

export const batchEmbedContents = geminiEmbed("batchEmbedContents");
export const embedContent = geminiEmbed("embedContent");
