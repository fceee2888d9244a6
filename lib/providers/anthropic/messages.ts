// `anthropic` channels: the vendor's Messages API. baseUrl is the API root without /v1
// (https://docs.anthropic.com/en/api/messages). Serves Messages natively and Chat Completions by conversion.
// `[1m]` models switch on the 1M-token context with a beta header, configurable per channel
// (settings.longContextBeta) because the vendor may rename or drop it. Client betas pass only by allowlist (lib/dialects/messages/betas.ts).
import { upstreamFetch, joinUrl, channelDeadlines, jsonBody } from "@/lib/providers/http";
import type { Outcome, TextAdapter, TextCall } from "@/lib/providers/types";
import { fetchedAnswer, relayText } from "@/lib/providers/text-relay";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { chatRequestToMessages } from "@/lib/dialects/convert/chat-to-messages";
import { parseWith } from "@/lib/platform/http/json";
import { allowedBetas } from "@/lib/dialects/messages/betas";

export const DEFAULT_VERSION = "2023-06-01";
export const DEFAULT_LONG_CONTEXT_BETA = "context-1m-2025-08-07";

export function anthropicHeaders(call: TextCall): Record<string, string> {
  // The vendor's version header is passed on; the product's `msg-version` alias is accepted as the same thing.
  const version = call.headers.get("anthropic-version") ?? call.headers.get("msg-version") ?? DEFAULT_VERSION;
  const betas = allowedBetas(call.headers.get("anthropic-beta"), call.channel.settings).allowed;
  if (call.longContext) {
    const beta =
      typeof call.channel.settings.longContextBeta === "string" ? call.channel.settings.longContextBeta : DEFAULT_LONG_CONTEXT_BETA;
    if (beta && !betas.includes(beta)) betas.push(beta);
  }
  return {
    "content-type": "application/json",
    accept: "application/json",
    "anthropic-version": version,
    ...(betas.length ? { "anthropic-beta": betas.join(",") } : {}),
    ...(call.channel.apiKey ? { "x-api-key": call.channel.apiKey } : {}),
  };
}

async function postMessages(call: TextCall, body: Record<string, unknown>) {
  return upstreamFetch(
    joinUrl(call.channel.baseUrl, "v1/messages"),
    { method: "POST", headers: anthropicHeaders(call), body: await jsonBody(body, call.bodyBytes) },
    {
      signal: call.signal,
      ...channelDeadlines(call.channel.settings),
    },
  );
}

export const anthropicAdapter: TextAdapter = {
  async messages(call): Promise<Outcome> {
    const result = await postMessages(call, { ...call.body, model: call.upstreamModel });
    return result.ok ? relayText(call, "messages", "messages", fetchedAnswer(call, result)) : result;
  },

  async chat(call): Promise<Outcome> {
    // The converter reads the fields its own schema types; the gateway's schema is looser (a 400 naming the field here).
    const request = chatRequestToMessages(parseWith(chatRequestSchema, call.body), call.upstreamModel) as unknown as Record<
      string,
      unknown
    >;
    const result = await postMessages(call, request);
    return result.ok ? relayText(call, "messages", "chat", fetchedAnswer(call, result)) : result;
  },
};
