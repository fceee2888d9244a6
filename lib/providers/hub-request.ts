// A client's request as the hub's (Chat Completions) for a vendor outside Anthropic's family (lib/dialects/hub.ts):
// a Chat request as it is, a Messages request through the Messages ⇄ Chat pair. The vendor's converter takes it
// from there.
import type { TextCall } from "./types";
import { chatRequestSchema, type ChatRequestInput } from "@/lib/dialects/chat/wire";
import { chatRequestFromMessages } from "@/lib/dialects/convert/messages-to-chat";
import { messagesRequestSchema } from "@/lib/dialects/messages/wire";
import { parseWith } from "@/lib/platform/http/json";

export function hubRequest(call: TextCall, client: "chat" | "messages"): ChatRequestInput {
  if (client === "chat") return parseWith(chatRequestSchema, call.body);
  const chat = chatRequestFromMessages(parseWith(messagesRequestSchema, call.body), call.upstreamModel, {
    maxTokensField: "max_completion_tokens",
  });
  return parseWith(chatRequestSchema, chat);
}
