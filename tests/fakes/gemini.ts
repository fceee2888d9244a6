// A fake of the Gemini API (generativelanguage.googleapis.com, v1beta) that records every request and checks it as
// Google does: the key in `x-goog-api-key` (or `?key=`), roles user/model only, function responses answering a
// function call turn. Answers follow https://ai.google.dev/api/generate-content, https://ai.google.dev/api/tokens
// (countTokens), https://ai.google.dev/api/embeddings (batchEmbedContents) and https://ai.google.dev/api/models
// (the paged list). Tests script answers with `fake.answers` (see GeminiAnswer in tests/fakes/gemini-wire.ts).
import type http from "node:http";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import {
  checkGenerateRequest,
  type FakeRequest,
  type GeminiAnswer,
  googleError,
  recordRequest,
  sendGenerate,
  sendGoogleError,
  sendGoogleJson,
} from "./gemini-wire.ts";

export const GEMINI_MODELS = [
  { id: "gemini-2.5-pro", methods: ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"] },
  { id: "gemini-2.5-flash", methods: ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"] },
  { id: "gemini-2.5-flash-lite", methods: ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"] },
  { id: "gemini-embedding-001", methods: ["embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent"] },
  { id: "text-embedding-004", methods: ["embedContent"] },
];

/** How a model's supportedGenerationMethods names the wire methods that it does not list by their own name. */
const LISTED_AS: Record<string, string> = { streamGenerateContent: "generateContent", batchEmbedContents: "embedContent" };

export type GeminiFake = {
  url: string;
  received: FakeRequest[];
  /** Answers for the next generate calls, first in first out; the default answer when empty. */
  answers: GeminiAnswer[];
  /** totalTokens that countTokens reports. */
  countTokensTotal: number;
  /** Pause between stream chunks, to let a test act mid-stream. */
  chunkPauseMs: number;
  close: () => Promise<void>;
};

const MISSING_KEY =
  "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
const INVALID_KEY = "API key not valid. Please pass a valid API key.";

function invalidKey() {
  return googleError(400, "INVALID_ARGUMENT", INVALID_KEY, [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    },
    { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: INVALID_KEY },
  ]);
}

function notFound(model: string, method: string) {
  return googleError(
    404,
    "NOT_FOUND",
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

function modelResource(model: (typeof GEMINI_MODELS)[number]) {
  const embedding = model.methods.includes("embedContent");
  return {
    name: `models/${model.id}`,
    version: embedding ? "001" : "2.5",
    displayName: model.id.replace(/-/g, " "),
    description: `Fake of ${model.id}`,
    inputTokenLimit: embedding ? 2048 : 1_048_576,
    outputTokenLimit: embedding ? 1 : 65_536,
    supportedGenerationMethods: model.methods,
    ...(embedding ? {} : { temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: true }),
  };
}

/** An embedding whose values depend on the text, so two inputs never share one. */
function embeddingValues(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let index = 0; index < dimensions; index++) {
    const code = text.charCodeAt(index % Math.max(text.length, 1)) || 7;
    values.push(Number((Math.sin(code * (index + 1)) / 3).toFixed(6)));
  }
  return values;
}

export async function startGeminiFake(options: { apiKey: string; models?: typeof GEMINI_MODELS }): Promise<GeminiFake> {
  const models = options.models ?? GEMINI_MODELS;
  const upstream = await startFakeUpstream();
  const fake: GeminiFake = {
    url: upstream.url,
    received: [],
    answers: [],
    countTokensTotal: 1237,
    chunkPauseMs: 0,
    close: () => upstream.close(),
  };

  const handle = async (request: FakeRequest, response: http.ServerResponse): Promise<void> => {
    const headerKey = request.headers["x-goog-api-key"];
    const key = typeof headerKey === "string" ? headerKey : typeof request.query.key === "string" ? request.query.key : undefined;
    if (key === undefined) return sendGoogleError(response, 403, googleError(403, "PERMISSION_DENIED", MISSING_KEY));
    if (key !== options.apiKey) return sendGoogleError(response, 400, invalidKey());
    request.authorized = true;

    if (request.method === "GET" && request.path === "/v1beta/models") {
      const pageSize = Math.min(Number(request.query.pageSize ?? 50) || 50, 1000);
      const token = typeof request.query.pageToken === "string" ? request.query.pageToken : "";
      const offset = token
        ? Number(
            Buffer.from(token, "base64url")
              .toString("utf8")
              .replace(/^offset:/, ""),
          )
        : 0;
      if (!Number.isInteger(offset) || offset < 0 || offset > models.length)
        return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", "Invalid page token."));
      const page = models.slice(offset, offset + pageSize).map(modelResource);
      const next = offset + pageSize < models.length ? Buffer.from(`offset:${offset + pageSize}`).toString("base64url") : undefined;
      return sendGoogleJson(response, 200, { models: page, ...(next ? { nextPageToken: next } : {}) });
    }

    const match = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/.exec(request.path);
    if (request.method !== "POST" || !match)
      return sendGoogleError(
        response,
        404,
        googleError(404, "NOT_FOUND", `The requested URL ${request.path} was not found on this server.`),
      );
    const [, modelId, method] = match;
    const model = models.find((candidate) => candidate.id === modelId);
    if (!model?.methods.includes(LISTED_AS[method] ?? method)) return sendGoogleError(response, 404, notFound(modelId, method));
    if (request.body === null)
      return sendGoogleError(
        response,
        400,
        googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected end of string."),
      );

    if (method === "generateContent" || method === "streamGenerateContent") {
      const problem = checkGenerateRequest(request.body, false);
      if (problem) return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", problem));
      const answer = fake.answers.shift() ?? {};
      const mode = method === "generateContent" ? "plain" : request.query.alt === "sse" ? "sse" : "array";
      return sendGenerate(response, answer, modelId, mode, fake.chunkPauseMs);
    }
    if (method === "countTokens") {
      const body = request.body;
      if (!body.contents && !body.generateContentRequest)
        return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", "* CountTokensRequest: contents is not specified\n"));
      const problem = body.contents ? checkGenerateRequest({ contents: body.contents }, false) : null;
      if (problem) return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", problem));
      return sendGoogleJson(response, 200, {
        totalTokens: fake.countTokensTotal,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: fake.countTokensTotal }],
      });
    }
    if (method === "batchEmbedContents") {
      const requests = request.body.requests;
      if (!Array.isArray(requests) || requests.length === 0)
        return sendGoogleError(
          response,
          400,
          googleError(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: requests is not specified\n"),
        );
      if (requests.length > 100)
        return sendGoogleError(
          response,
          400,
          googleError(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n"),
        );
      for (const [index, item] of requests.entries()) {
        if (item.model !== `models/${modelId}`)
          return sendGoogleError(
            response,
            400,
            googleError(
              400,
              "INVALID_ARGUMENT",
              `Model name in request (${item.model}) at index ${index} must match the model name in the URL.`,
            ),
          );
        if (!Array.isArray(item.content?.parts) || item.content.parts.length === 0)
          return sendGoogleError(
            response,
            400,
            googleError(400, "INVALID_ARGUMENT", `* BatchEmbedContentsRequest.requests[${index}].content: contents is not specified\n`),
          );
      }
      const embeddings = requests.map((item: any) => {
        const text = item.content.parts.map((part: any) => part.text ?? "").join("");
        return { values: embeddingValues(text, item.outputDimensionality ?? 768) };
      });
      return sendGoogleJson(response, 200, { embeddings });
    }
    return sendGoogleError(response, 404, notFound(modelId, method));
  };

  upstream.respond = (received, response) => {
    const request = recordRequest(received.method, received.path, received.headers, received.raw);
    fake.received.push(request);
    return handle(request, response);
  };
  return fake;
}
