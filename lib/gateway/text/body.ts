// The bodies of /v1/chat/completions, /v1/messages and /v1/messages/count_tokens as lib/gateway/text-request.ts reads
// them: the endpoint's schema, then the input count the reservation starts from. A worker imports this module for a
// large body, so it holds schemas and counts only.
import { GatewayError } from "@/lib/platform/errors";
import { parseWith } from "@/lib/platform/http/json";
import { countChatRequestInputTokens, countMessagesInputTokens, newCountStats } from "@/lib/money/tokens";
import { chatEndpointRequestSchema } from "@/lib/dialects/chat/wire";
import { messagesCountRequestSchema, messagesEndpointRequestSchema } from "@/lib/dialects/messages/wire";
import { defineBodyKind } from "@/lib/gateway/text-request";

export const chatBody = defineBodyKind(import.meta.url, "chatBody", (raw, whole) => {
  const body = parseWith(chatEndpointRequestSchema, raw);
  const stats = newCountStats();
  const inputTokens = countChatRequestInputTokens(body as never, stats);
  if (whole && stats.exactChars === 0) stats.whole = countChatRequestInputTokens(body as never);
  return { body, inputTokens, stats, model: body.model };
});

export const messagesBody = defineBodyKind(import.meta.url, "messagesBody", (raw, whole) => {
  if (raw.max_tokens === undefined) throw new GatewayError("invalid_request", "max_tokens: Field required", { param: "max_tokens" });
  const body = parseWith(messagesEndpointRequestSchema, raw);
  const stats = newCountStats();
  const inputTokens = countMessagesInputTokens(body as never, stats);
  if (whole && stats.exactChars === 0) stats.whole = countMessagesInputTokens(body as never);
  return { body, inputTokens, stats, model: body.model };
});

/** count_tokens: the exact count, free; the body itself is not kept. */
export const countBody = defineBodyKind(import.meta.url, "countBody", (raw) => {
  const body = parseWith(messagesCountRequestSchema, raw);
  return { body, inputTokens: countMessagesInputTokens(body as never), stats: newCountStats(), model: body.model };
});
