// The body of /v1/responses as lib/gateway/text-request.ts reads it: the image tool's request
// (lib/wire/responses-request.ts) counted as its tool loop sends it, or, without the tool, the chat request it is served
// as (./chat-request.ts), counted as chat is. A worker imports this module for a large body.
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { countChatRequestInputTokens, newCountStats } from "@/lib/money/tokens";
import { checkSpecRules, parseResponsesRequest } from "@/lib/wire/responses-request";
import { defineBodyKind } from "@/lib/gateway/text-request";
import { asksForImageTool, chatBodyOf } from "./chat-request";
import { countResponsesInputTokens, responsesRequestBytes } from "./tool";

export const responsesBody = defineBodyKind(import.meta.url, "responsesBody", (raw, whole) => {
  const stats = newCountStats();
  if (asksForImageTool(raw) || raw.model === IMAGE_MODEL) {
    const request = parseResponsesRequest(raw);
    const inputTokens = countResponsesInputTokens(request, stats);
    if (whole && stats.exactChars === 0) stats.whole = countResponsesInputTokens(request);
    return { body: raw, inputTokens, stats, model: request.model, imageTool: true, sizeBytes: responsesRequestBytes(request) };
  }
  checkSpecRules(raw);
  const chat = chatBodyOf(raw).body;
  const inputTokens = countChatRequestInputTokens(chat as never, stats);
  if (whole && stats.exactChars === 0) stats.whole = countChatRequestInputTokens(chat as never);
  return {
    body: raw,
    inputTokens,
    stats,
    model: chat.model as string,
    imageTool: false,
    sizeBytes: Buffer.byteLength(JSON.stringify(chat)),
  };
});
