// What /v1/embeddings and Gemini's embedContent and batchEmbedContents answer, for /openapi.json and the answer check
// (docs/routes.md). The bodies are the very schemas the handlers validate with (./request.ts, ./gemini-request.ts).
import { z } from "zod";

/** /v1/embeddings: a vector per input, as numbers (`encoding_format: "float"`) or base64 float32 bytes. */
export const embeddingsAnswer = z.object({
  object: z.literal("list"),
  data: z.array(
    z.object({ object: z.literal("embedding"), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

const geminiEmbedding = z.object({ values: z.array(z.number()) });
export const geminiEmbedAnswer = z.object({ embedding: geminiEmbedding });
export const geminiBatchEmbedAnswer = z.object({ embeddings: z.array(geminiEmbedding) });
