// Gemini's own API for Google's @google/genai SDK (./handler.ts): the key in x-goog-api-key or `?key=`. One definition
// per endpoint (docs/routes.md); its embedding methods are lib/gateway/embeddings/routes.ts'.
import { defineRoute } from "@/lib/platform/http/route-definition";
import { geminiCountRequestSchema, geminiEndpointRequestSchema } from "@/lib/dialects/gemini/wire";
import { generateContent, geminiCountTokens, getGeminiModel, listGeminiModels, streamGenerateContent } from "./handler";
import { geminiCountTokensAnswer, geminiModelAnswer, geminiModelListAnswer, geminiResponseAnswer } from "./schemas";

const google = { auth: "googleKey", dialect: "google" } as const;

export const routes = [
  defineRoute({
    ...google,
    method: "POST",
    path: "/v1beta/models/{model}:generateContent",
    summary: "Gemini's generateContent, served over any text channel (converted through Chat Completions)",
    request: { body: geminiEndpointRequestSchema },
    response: { 200: geminiResponseAnswer },
    handler: generateContent,
  }),
  defineRoute({
    ...google,
    method: "POST",
    path: "/v1beta/models/{model}:streamGenerateContent",
    summary: "Gemini's streamGenerateContent: server-sent events with ?alt=sse, else one JSON array written as it goes",
    request: { body: geminiEndpointRequestSchema },
    response: { 200: geminiResponseAnswer },
    stream: true,
    handler: streamGenerateContent,
  }),
  defineRoute({
    ...google,
    method: "POST",
    path: "/v1beta/models/{model}:countTokens",
    summary: "The input tokens a generateContent request would read (the gateway's estimate; free)",
    request: { body: geminiCountRequestSchema },
    response: { 200: geminiCountTokensAnswer },
    handler: geminiCountTokens,
  }),
  defineRoute({
    ...google,
    method: "GET",
    path: "/v1beta/models",
    summary: "The text models this key may use, in Gemini's list shape (pageSize, pageToken)",
    request: {},
    response: { 200: geminiModelListAnswer },
    handler: listGeminiModels,
  }),
  defineRoute({
    ...google,
    method: "GET",
    path: "/v1beta/models/{model}",
    summary: "One text model this key may use (404 otherwise), in Gemini's shape",
    request: {},
    response: { 200: geminiModelAnswer },
    handler: getGeminiModel,
  }),
];
