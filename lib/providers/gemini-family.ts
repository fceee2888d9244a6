// What Google's Gemini models share, on the Gemini API (`gemini`) and on Vertex AI (`vertex`): the request in
// Gemini's dialect, converted from the hub (Chat Completions), and the hub dialect the relay reads the answer with
// (lib/dialects/gemini/). Each channel type only adds its URL and its auth.
import type { TextCall } from "./types";
import type { HubDialect } from "./text-relay";
import { hubRequest } from "./hub-request";
import { chatRequestToGemini } from "@/lib/dialects/gemini/chat-to-gemini";
import { geminiResponseToChat, GeminiStreamToChat } from "@/lib/dialects/gemini/gemini-to-chat";

export const GEMINI_DIALECT: HubDialect = {
  lastEvent: "a candidate with a finishReason",
  answer: (body, publicModel) => geminiResponseToChat(body, publicModel),
  stream: (publicModel) => new GeminiStreamToChat({ publicModel }),
};

/** The generateContent body for `call`; the output cap reserved is the cap sent (`maxOutputTokens`). */
export function geminiBody(call: TextCall, client: "chat" | "messages"): Record<string, unknown> {
  return chatRequestToGemini(hubRequest(call, client), { outputCap: call.outputCap }) as unknown as Record<string, unknown>;
}

/** The method path of a Gemini call: `:generateContent`, or `:streamGenerateContent?alt=sse` (SSE, not a JSON array). */
export function geminiMethod(stream: boolean): string {
  return stream ? ":streamGenerateContent?alt=sse" : ":generateContent";
}
