// /v1/embeddings, and Gemini's embedContent and batchEmbedContents (the key as Gemini's API takes it,
// lib/gateway/gemini/routes.ts): one definition per endpoint (docs/routes.md).
import { defineRoute } from "@/lib/platform/http/route-definition";
import { embeddings } from "./handler";
import { batchEmbedContents, embedContent } from "./gemini";
import { embeddingsRequestSchema } from "./request";
import { geminiBatchEmbedRequestSchema, geminiEmbedContentRequestSchema } from "./gemini-request";
import { embeddingsAnswer, geminiBatchEmbedAnswer, geminiEmbedAnswer } from "./schemas";

const google = { auth: "googleKey", dialect: "google" } as const;

export const routes = [
  defineRoute({
    method: "POST",
    path: "/v1/embeddings",
    auth: "bearer",
    dialect: "openai",
    summary: "Embeddings (OpenAI-compatible): up to 2,048 inputs, 8,192 tokens each, 300,000 in all; float or base64",
    request: { body: embeddingsRequestSchema },
    response: { 200: embeddingsAnswer },
    handler: embeddings,
  }),
  defineRoute({
    ...google,
    method: "POST",
    path: "/v1beta/models/{model}:batchEmbedContents",
    summary:
      "Gemini's batchEmbedContents (what @google/genai's embedContent calls), over any embedding channel: limits and billing as /v1/embeddings'",
    request: { body: geminiBatchEmbedRequestSchema },
    response: { 200: geminiBatchEmbedAnswer },
    handler: batchEmbedContents,
  }),
  defineRoute({
    ...google,
    method: "POST",
    path: "/v1beta/models/{model}:embedContent",
    summary: "Gemini's embedContent: one content's vector, billed as /v1/embeddings",
    request: { body: geminiEmbedContentRequestSchema },
    response: { 200: geminiEmbedAnswer },
    handler: embedContent,
  }),
];
