// What /v1/chat/completions, /v1/messages and /v1/messages/count_tokens take and answer, for /openapi.json and the
// answer check (docs/routes.md). The bodies are the very schemas the handlers validate with (lib/dialects/, read by
// ./body.ts). The answers are lenient on purpose: an upstream's extra fields pass through to the client, so only the
// fields every client reads are named. Streams (server-sent events) are not described here.
import { z } from "zod";

export { chatEndpointRequestSchema as chatSchema } from "@/lib/dialects/chat/wire";
export { messagesEndpointRequestSchema as messagesSchema } from "@/lib/dialects/messages/wire";

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

export const countTokensAnswer = z.object({ input_tokens: z.number().int() });
