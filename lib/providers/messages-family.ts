// What Anthropic's family shares (`anthropic`, Vertex AI's Claude, Bedrock's InvokeModel): the Messages body, taken
// natively or converted from Chat Completions, and the betas that may go upstream. Each vendor only wraps it in its
// own envelope and auth (docs/api.md, "Channel types").
import type { TextCall } from "./types";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { chatRequestToMessages } from "@/lib/dialects/convert/chat-to-messages";
import { allowedBetas } from "@/lib/dialects/messages/betas";
import { parseWith } from "@/lib/platform/http/json";

export const DEFAULT_LONG_CONTEXT_BETA = "context-1m-2025-08-07";

/** The Messages request for `call` from a client of `client`'s dialect, naming `model` (the upstream's name). */
export function messagesBody(call: TextCall, client: "chat" | "messages", model: string): Record<string, unknown> {
  if (client === "messages") return { ...call.body, model };
  // The converter reads the fields its own schema types; the gateway's schema is looser (a 400 naming the field here).
  return chatRequestToMessages(parseWith(chatRequestSchema, call.body), model) as unknown as Record<string, unknown>;
}

/** The betas to send: the client's, as far as the allowlist lets them through (lib/dialects/messages/betas.ts), and
 *  the long-context one for a `[1m]` model (settings.longContextBeta, since the vendor may rename or drop it). */
export function upstreamBetas(call: TextCall): string[] {
  const betas = allowedBetas(call.headers.get("anthropic-beta"), call.channel.settings).allowed;
  if (call.longContext) {
    const beta =
      typeof call.channel.settings.longContextBeta === "string" ? call.channel.settings.longContextBeta : DEFAULT_LONG_CONTEXT_BETA;
    if (beta && !betas.includes(beta)) betas.push(beta);
  }
  return betas;
}

/** The Messages body in the envelope of a cloud that names the model in its URL (Vertex AI, Bedrock): no `model`,
 *  the cloud's `anthropic_version`, and the betas in the body (`anthropic_beta`). */
export function cloudMessagesBody(call: TextCall, client: "chat" | "messages", anthropicVersion: string): Record<string, unknown> {
  const { model: _model, stream: _stream, ...body } = messagesBody(call, client, "");
  const betas = upstreamBetas(call);
  return { anthropic_version: anthropicVersion, ...body, ...(betas.length ? { anthropic_beta: betas } : {}) };
}
