// The bodies of Gemini's API (/v1beta, ./handler.ts) as lib/gateway/text-request.ts reads them: the request counted as
// the Chat request it is served as (the handler makes it again from the body: a small conversion beside the count, and
// the same on every path). The model is in the path, not the body. A worker imports this module for a large body.
import { GatewayError } from "@/lib/platform/errors";
import { parseWith } from "@/lib/platform/http/json";
import { countChatRequestInputTokens, newCountStats } from "@/lib/money/tokens";
import { geminiCountRequestSchema, geminiEndpointRequestSchema } from "@/lib/dialects/gemini/wire";
import { geminiRequestToChat } from "@/lib/dialects/gemini/gemini-to-chat-request";
import { defineBodyKind } from "@/lib/gateway/text-request";

export const geminiBody = defineBodyKind(import.meta.url, "geminiBody", (raw, whole) => {
  const body = parseWith(geminiEndpointRequestSchema, raw);
  const chat = geminiRequestToChat(body, "");
  const stats = newCountStats();
  const inputTokens = countChatRequestInputTokens(chat as never, stats);
  if (whole && stats.exactChars === 0) stats.whole = countChatRequestInputTokens(chat as never);
  return { body, inputTokens, stats, model: "" };
});

/** countTokens: the exact count of `contents`, or of `generateContentRequest`; free. */
export const geminiCountBody = defineBodyKind(import.meta.url, "geminiCountBody", (raw) => {
  const count = parseWith(geminiCountRequestSchema, raw);
  const request = count.generateContentRequest ?? (count.contents ? { contents: count.contents } : null);
  if (!request) throw new GatewayError("invalid_request", "Send 'contents' or 'generateContentRequest' to count", { param: "contents" });
  const chat = geminiRequestToChat(parseWith(geminiEndpointRequestSchema, request), "");
  return { body: raw, inputTokens: countChatRequestInputTokens(chat as never), stats: newCountStats(), model: "" };
});
