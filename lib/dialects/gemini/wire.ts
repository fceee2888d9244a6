// Gemini's generateContent on the wire (the Gemini API's v1beta and Vertex AI's Google publisher speak the same
// bodies): lenient zod schemas for what the gateway reads (unknown fields pass through, so a new field upstream does
// not break the gateway) and the exact types of the request it writes. Google does the reverse for requests: it
// refuses a field it does not know, so the request types hold only what the converter writes.
//   https://ai.google.dev/api/generate-content (GenerateContentResponse, Candidate, FinishReason, PromptFeedback,
//     UsageMetadata, GenerationConfig, ThinkingConfig)
//   https://ai.google.dev/api/caching#Content (Content, Part, FunctionCall, FunctionResponse, Blob, FileData,
//     FunctionDeclaration, ToolConfig)
// Recorded answer shapes: tests/fakes/gemini-wire.ts (proven with Google's @google/genai SDK).
import { z } from "zod";
import { MAX_OUTPUT_CAP } from "@/lib/dialects/chat/wire";

/** A token count: Google's proto3 JSON leaves a zero out, so an absent count on a final report means 0. */
const tokenCount = z.number().int().nonnegative().optional();

export const geminiUsageSchema = z.looseObject({
  /** Every input token, cached ones included; tool-use prompt tokens are apart. */
  promptTokenCount: tokenCount,
  /** The answer's visible tokens; thoughts are apart. */
  candidatesTokenCount: tokenCount,
  /** Thinking tokens, billed as output. */
  thoughtsTokenCount: tokenCount,
  /** The part of promptTokenCount read from a cache. */
  cachedContentTokenCount: tokenCount,
  /** Tokens of server-side tool results fed back to the model, not part of promptTokenCount. */
  toolUsePromptTokenCount: tokenCount,
  totalTokenCount: tokenCount,
});
export type GeminiUsageInput = z.infer<typeof geminiUsageSchema>;

export const geminiFunctionCallSchema = z.looseObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).nullish(),
  /** The Gemini API leaves it out on most models; Vertex never sends one. */
  id: z.string().nullish(),
});

/** A part of an answer. Only what the gateway reads is checked; a part of another kind passes and is skipped. */
export const geminiPartSchema = z.looseObject({
  text: z.string().optional(),
  /** The part is a thought summary (asked for with thinkingConfig.includeThoughts). */
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: geminiFunctionCallSchema.optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
});
export type GeminiPartInput = z.infer<typeof geminiPartSchema>;

const safetyRatingSchema = z.looseObject({
  category: z.string().optional(),
  probability: z.string().optional(),
  blocked: z.boolean().optional(),
});

export const geminiCandidateSchema = z.looseObject({
  /** Absent when the candidate was blocked (finishReason SAFETY and the like). */
  content: z.looseObject({ role: z.string().optional(), parts: z.array(geminiPartSchema).optional() }).optional(),
  /** Set on the candidate's last chunk only; a string, as Google adds reasons over time. */
  finishReason: z.string().optional(),
  safetyRatings: z.array(safetyRatingSchema).optional(),
  index: z.number().int().optional(),
});

/** A whole `:generateContent` answer, and each chunk of `:streamGenerateContent` (the same message, in pieces). */
export const geminiResponseSchema = z.looseObject({
  candidates: z.array(geminiCandidateSchema).optional(),
  /** A blocked prompt: no candidates, blockReason says why. */
  promptFeedback: z.looseObject({ blockReason: z.string().optional(), safetyRatings: z.array(safetyRatingSchema).optional() }).optional(),
  /** Cumulative in a stream: each chunk's report replaces the one before. Vertex's early chunks carry none of the counts. */
  usageMetadata: geminiUsageSchema.optional(),
  responseId: z.string().optional(),
  modelVersion: z.string().optional(),
});
export type GeminiResponseInput = z.infer<typeof geminiResponseSchema>;

// What the gateway writes (https://ai.google.dev/api/generate-content#request-body).

export type GeminiRequestPart =
  | { text: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } }
  /** `thoughtSignature` rides on the part, beside the call (https://ai.google.dev/gemini-api/docs/thought-signatures). */
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export type GeminiContent = { role: "user" | "model"; parts: GeminiRequestPart[] };

export type GeminiFunctionDeclaration = {
  name: string;
  description?: string;
  /** Full JSON Schema (v1beta and Vertex v1); exclusive with `parameters`, the OpenAPI subset the gateway does not write. */
  parametersJsonSchema?: Record<string, unknown>;
};

export type GeminiFunctionCallingMode = "AUTO" | "ANY" | "NONE";

export type GeminiThinkingConfig = {
  /** Tokens the model may think: 0 turns thinking off where the model allows it, -1 lets the model choose. */
  thinkingBudget?: number;
  /** Send thought summaries back as `thought: true` parts. */
  includeThoughts?: boolean;
  /** Gemini 3's coarse setting; exclusive with thinkingBudget. */
  thinkingLevel?: "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";
};

export type GeminiGenerationConfig = {
  /** Caps thoughts and the answer together: the output cap the gateway reserved, exactly. */
  maxOutputTokens: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  candidateCount?: number;
  responseMimeType?: "application/json" | "text/plain";
  /** The OpenAPI-subset schema; the gateway writes `responseJsonSchema` instead (full JSON Schema). */
  responseSchema?: Record<string, unknown>;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
};

/** A GenerateContentRequest as the gateway sends it (the model goes in the URL, streaming in the method name). */
export type GeminiRequest = {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: GeminiFunctionCallingMode; allowedFunctionNames?: string[] } };
  generationConfig: GeminiGenerationConfig;
};

// A Gemini client's request (the gateway's /v1beta endpoints, docs/api.md): lenient, as the gateway reads requests
// (a field it does not know passes and is not sent on), with the fields the conversion to Chat reads checked
// (lib/dialects/gemini/gemini-to-chat-request.ts). A part holds one kind; the converter refuses the kinds it cannot
// carry, naming the part.

const inboundPartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
  fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z
    .looseObject({ id: z.string().nullish(), name: z.string().min(1), args: z.record(z.string(), z.unknown()).nullish() })
    .optional(),
  functionResponse: z
    .looseObject({ id: z.string().nullish(), name: z.string().min(1), response: z.record(z.string(), z.unknown()).nullish() })
    .optional(),
});
export type GeminiInboundPart = z.infer<typeof inboundPartSchema>;

const inboundContentSchema = z.looseObject({
  role: z.string().optional(),
  parts: z.array(inboundPartSchema, { message: "must be a list of parts" }).min(1, "must hold at least one part"),
});

const functionDeclarationSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  /** Google's OpenAPI-subset Schema (upper-case types). */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** Full JSON Schema; exclusive with `parameters`. */
  parametersJsonSchema: z.record(z.string(), z.unknown()).optional(),
});

const generationConfigSchema = z.looseObject({
  maxOutputTokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().optional(),
  candidateCount: z.number().int().optional(),
  stopSequences: z.array(z.string()).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: z.record(z.string(), z.unknown()).optional(),
  responseJsonSchema: z.record(z.string(), z.unknown()).optional(),
  responseModalities: z.array(z.string()).optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  seed: z.number().int().optional(),
  thinkingConfig: z
    .looseObject({
      thinkingBudget: z.number().int().optional(),
      includeThoughts: z.boolean().optional(),
      thinkingLevel: z.string().optional(),
    })
    .optional(),
});

/** A GenerateContentRequest as `:generateContent` and `:streamGenerateContent` take it (the model is in the path). */
export const geminiEndpointRequestSchema = z.looseObject({
  contents: z.array(inboundContentSchema, { message: "must be a list of contents" }).min(1, "must hold at least one content"),
  systemInstruction: z.looseObject({ role: z.string().optional(), parts: z.array(inboundPartSchema) }).optional(),
  tools: z.array(z.looseObject({ functionDeclarations: z.array(functionDeclarationSchema).optional() })).optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({ mode: z.string().optional(), allowedFunctionNames: z.array(z.string()).optional() })
        .optional(),
    })
    .optional(),
  generationConfig: generationConfigSchema.optional(),
  safetySettings: z.array(z.unknown()).optional(),
  cachedContent: z.string().optional(),
});
export type GeminiEndpointRequest = z.infer<typeof geminiEndpointRequestSchema>;

/** `:countTokens`: the contents alone, or a whole request in `generateContentRequest` (its `model` is not read). */
export const geminiCountRequestSchema = z.looseObject({
  contents: z.array(inboundContentSchema).optional(),
  generateContentRequest: geminiEndpointRequestSchema.optional(),
});

// What the gateway writes to a Gemini client (https://ai.google.dev/api/generate-content#generatecontentresponse).

export type GeminiResponsePart =
  | { text: string; thought?: true }
  | { functionCall: { id?: string; name: string; args: Record<string, unknown> } };

export type GeminiFinishReason = "STOP" | "MAX_TOKENS" | "SAFETY";

export type GeminiUsageMetadata = {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
};

/** A whole answer, or one chunk of a stream (finishReason on the last candidate, usageMetadata on the last chunk). */
export type GeminiResponse = {
  candidates: { content: { role: "model"; parts: GeminiResponsePart[] }; finishReason?: GeminiFinishReason; index: 0 }[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
};
