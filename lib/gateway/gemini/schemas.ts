// What Gemini's API (/v1beta) answers: a GenerateContentResponse (whole, or each chunk of a stream), countTokens and
// the model list, for /openapi.json and the answer check (docs/routes.md). The bodies are the very schemas the
// handlers validate with (lib/dialects/gemini/wire.ts, read by ./body.ts).
import { z } from "zod";

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
