// The /v1 endpoints and the playground's session-authenticated copies of them, one definition per endpoint
// (docs/routes.md). The route table, /openapi.json and the answer check are read from these lists. The text
// endpoints parse their bodies with their own parsers (lib/gateway/text.ts); the schemas here describe those bodies.
import { defineRoute } from "@/lib/platform/http/route-definition";
import { imageRequestSchema } from "@/lib/wire/image-request";
import { chatCompletions, chatSchema, messages, messagesSchema } from "./text";
import { imageEdits, imageGenerations } from "./images/handler";
import { imageEditsMultipart } from "./images/openapi";
import { responses } from "./responses/handler";
import { responsesRequestDocumentation } from "./responses/openapi";
import { speechRequestSchema } from "@/lib/wire/audio-request";
import { audioSpeech } from "./audio/speech";
import { audioTranscriptions } from "./audio/transcription";
import { SPEECH_ANSWER_TYPES, transcriptionMultipart } from "./audio/openapi";
import { countTokens, listModels, retrieveModel } from "./models";
import { embeddings } from "./embeddings/handler";
import { embeddingsRequestSchema } from "./embeddings/request";
import { batchEmbedContents, embedContent } from "./embeddings/gemini";
import { geminiBatchEmbedRequestSchema, geminiEmbedContentRequestSchema } from "./embeddings/gemini-request";
import { generateContent, geminiCountTokens, getGeminiModel, listGeminiModels, streamGenerateContent } from "./gemini";
import { geminiCountRequestSchema, geminiEndpointRequestSchema } from "@/lib/dialects/gemini/wire";
import { throughSession } from "./playground";
import * as answers from "./answers";

const chat = {
  summary: "Chat Completions (OpenAI-compatible); stream with `stream: true`",
  dialect: "openai",
  request: { body: chatSchema },
  response: { 200: answers.chatCompletionAnswer },
  stream: true,
} as const;
const messagesCall = {
  summary: "Messages (Anthropic-compatible); the key goes in x-api-key",
  dialect: "anthropic",
  request: { body: messagesSchema },
  response: { 200: answers.messageAnswer },
  stream: true,
} as const;
const generations = {
  summary: "Generate one image (std-image-2). Sizes above 2560x1440 are experimental; background 'transparent' is refused",
  dialect: "openai",
  request: { body: imageRequestSchema },
  response: { 200: answers.imagesAnswer },
} as const;
const edits = {
  summary: "Edit uploaded images (multipart); the mask applies to the first image; each file at most 50 MB",
  dialect: "openai",
  request: { multipart: imageEditsMultipart },
  response: { 200: answers.imagesAnswer },
} as const;
const responsesCall = {
  summary:
    "std-5.5 with the image_generation tool, streamed; several images by asking for them in the prompt (n and previous_response_id are refused)",
  dialect: "openai",
  request: { body: responsesRequestDocumentation },
  response: { 200: answers.responseObjectAnswer },
  stream: true,
} as const;
const speech = {
  summary: "Speak a text (std-tts-1, at most 4,096 characters); the audio file's bytes, or events with stream_format 'sse'",
  dialect: "openai",
  request: { body: speechRequestSchema },
  response: { 200: answers.speechAnswer },
  answerTypes: SPEECH_ANSWER_TYPES,
} as const;
const transcriptions = {
  summary: "Transcribe an uploaded audio file (multipart, at most 25 MB); JSON, or text for text, srt and vtt",
  dialect: "openai",
  request: { multipart: transcriptionMultipart },
  response: { 200: answers.transcriptionAnswer },
  answerTypes: ["application/json", "text/plain"],
} as const;

export const gatewayRoutes = [
  defineRoute({ ...chat, method: "POST", path: "/v1/chat/completions", auth: "bearer", handler: chatCompletions }),
  defineRoute({ ...messagesCall, method: "POST", path: "/v1/messages", auth: "apiKey", handler: messages }),
  defineRoute({ ...generations, method: "POST", path: "/v1/images/generations", auth: "bearer", handler: imageGenerations }),
  defineRoute({ ...edits, method: "POST", path: "/v1/images/edits", auth: "bearer", handler: imageEdits }),
  defineRoute({ ...responsesCall, method: "POST", path: "/v1/responses", auth: "bearer", handler: responses }),
  defineRoute({
    method: "POST",
    path: "/v1/embeddings",
    auth: "bearer",
    dialect: "openai",
    summary: "Embeddings (OpenAI-compatible): up to 2,048 inputs, 8,192 tokens each, 300,000 in all; float or base64",
    request: { body: embeddingsRequestSchema },
    response: { 200: answers.embeddingsAnswer },
    handler: embeddings,
  }),
  defineRoute({ ...speech, method: "POST", path: "/v1/audio/speech", auth: "bearer", handler: audioSpeech }),
  defineRoute({ ...transcriptions, method: "POST", path: "/v1/audio/transcriptions", auth: "bearer", handler: audioTranscriptions }),
  defineRoute({
    method: "GET",
    path: "/v1/models",
    auth: "bearer",
    dialect: "caller",
    summary:
      "The models this key may use: OpenAI's list shape, or Anthropic's (paged with limit, after_id, before_id) when the key is sent in x-api-key or with anthropic-version",
    request: {},
    response: { 200: answers.modelListAnswer },
    handler: listModels,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/models/{id}",
    auth: "bearer",
    dialect: "caller",
    summary: "One model this key may use (404 otherwise), in the caller's shape",
    request: {},
    response: { 200: answers.modelAnswer },
    handler: retrieveModel,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/messages/count_tokens",
    auth: "apiKey",
    dialect: "anthropic",
    summary: "The input tokens a Messages request would read (the gateway's estimate; free)",
    request: { body: messagesSchema.omit({ max_tokens: true }) },
    response: { 200: answers.countTokensAnswer },
    handler: countTokens,
  }),
  ...geminiRoutes(),
];

/** Gemini's own API for Google's @google/genai SDK (lib/gateway/gemini.ts); the key in x-goog-api-key or `?key=`. */
function geminiRoutes() {
  const google = { auth: "googleKey", dialect: "google" } as const;
  return [
    defineRoute({
      ...google,
      method: "POST",
      path: "/v1beta/models/{model}:generateContent",
      summary: "Gemini's generateContent, served over any text channel (converted through Chat Completions)",
      request: { body: geminiEndpointRequestSchema },
      response: { 200: answers.geminiResponseAnswer },
      handler: generateContent,
    }),
    defineRoute({
      ...google,
      method: "POST",
      path: "/v1beta/models/{model}:streamGenerateContent",
      summary: "Gemini's streamGenerateContent: server-sent events with ?alt=sse, else one JSON array written as it goes",
      request: { body: geminiEndpointRequestSchema },
      response: { 200: answers.geminiResponseAnswer },
      stream: true,
      handler: streamGenerateContent,
    }),
    defineRoute({
      ...google,
      method: "POST",
      path: "/v1beta/models/{model}:countTokens",
      summary: "The input tokens a generateContent request would read (the gateway's estimate; free)",
      request: { body: geminiCountRequestSchema },
      response: { 200: answers.geminiCountTokensAnswer },
      handler: geminiCountTokens,
    }),
    defineRoute({
      ...google,
      method: "POST",
      path: "/v1beta/models/{model}:batchEmbedContents",
      summary:
        "Gemini's batchEmbedContents (what @google/genai's embedContent calls), over any embedding channel: limits and billing as /v1/embeddings'",
      request: { body: geminiBatchEmbedRequestSchema },
      response: { 200: answers.geminiBatchEmbedAnswer },
      handler: batchEmbedContents,
    }),
    defineRoute({
      ...google,
      method: "POST",
      path: "/v1beta/models/{model}:embedContent",
      summary: "Gemini's embedContent: one content's vector, billed as /v1/embeddings",
      request: { body: geminiEmbedContentRequestSchema },
      response: { 200: answers.geminiEmbedAnswer },
      handler: embedContent,
    }),
    defineRoute({
      ...google,
      method: "GET",
      path: "/v1beta/models",
      summary: "The text models this key may use, in Gemini's list shape (pageSize, pageToken)",
      request: {},
      response: { 200: answers.geminiModelListAnswer },
      handler: listGeminiModels,
    }),
    defineRoute({
      ...google,
      method: "GET",
      path: "/v1beta/models/{model}",
      summary: "One text model this key may use (404 otherwise), in Gemini's shape",
      request: {},
      response: { 200: answers.geminiModelAnswer },
      handler: getGeminiModel,
    }),
  ];
}

/**
 * The portal's playground: the /v1 endpoint itself, authenticated by the session cookie and billed through the user's
 * playground key (lib/gateway/playground.ts). `?group=` picks the group for a first key.
 */
export const playgroundRoutes = [
  defineRoute({
    ...chat,
    method: "POST",
    path: "/api/user/playground/v1/chat/completions",
    auth: "session",
    handler: throughSession(chatCompletions, "openai"),
  }),
  defineRoute({
    ...messagesCall,
    method: "POST",
    path: "/api/user/playground/v1/messages",
    auth: "session",
    handler: throughSession(messages, "anthropic"),
  }),
  defineRoute({
    ...responsesCall,
    method: "POST",
    path: "/api/user/playground/v1/responses",
    auth: "session",
    handler: throughSession(responses, "openai"),
  }),
  defineRoute({
    ...generations,
    method: "POST",
    path: "/api/user/playground/v1/images/generations",
    auth: "session",
    handler: throughSession(imageGenerations, "openai"),
  }),
  // Multipart (the images and the mask), with the x-gateway-portal header in place of the JSON content type.
  defineRoute({
    ...edits,
    method: "POST",
    path: "/api/user/playground/v1/images/edits",
    auth: "session",
    handler: throughSession(imageEdits, "openai", { multipart: true }),
  }),
  defineRoute({
    ...speech,
    method: "POST",
    path: "/api/user/playground/v1/audio/speech",
    auth: "session",
    handler: throughSession(audioSpeech, "openai"),
  }),
  // Multipart (the audio file), with the x-gateway-portal header, as image edits.
  defineRoute({
    ...transcriptions,
    method: "POST",
    path: "/api/user/playground/v1/audio/transcriptions",
    auth: "session",
    handler: throughSession(audioTranscriptions, "openai", { multipart: true }),
  }),
];
