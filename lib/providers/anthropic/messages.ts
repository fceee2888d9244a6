// `anthropic` channels: the vendor's Messages API. baseUrl is the API root without /v1
// (https://docs.anthropic.com/en/api/messages). Serves Messages natively and Chat Completions by conversion.
// `[1m]` models switch on the 1M-token context with a beta header, configurable per channel
// (settings.longContextBeta) because the vendor may rename or drop it. Client betas pass only by allowlist (lib/dialects/messages/betas.ts).
import { upstreamFetch, joinUrl, channelDeadlines, jsonBody } from "@/lib/providers/http";
import type { Outcome, TextAdapter, TextCall } from "@/lib/providers/types";
import { fetchedAnswer, relayText } from "@/lib/providers/text-relay";
import { messagesBody, upstreamBetas } from "@/lib/providers/messages-family";

export const DEFAULT_VERSION = "2023-06-01";

export function anthropicHeaders(call: TextCall): Record<string, string> {
  // The vendor's version header is passed on; the product's `msg-version` alias is accepted as the same thing.
  const version = call.headers.get("anthropic-version") ?? call.headers.get("msg-version") ?? DEFAULT_VERSION;
  const betas = upstreamBetas(call);
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
    const result = await postMessages(call, messagesBody(call, "messages", call.upstreamModel));
    return result.ok ? relayText(call, "messages", "messages", fetchedAnswer(call, result)) : result;
  },

  async chat(call): Promise<Outcome> {
    const result = await postMessages(call, messagesBody(call, "chat", call.upstreamModel));
    return result.ok ? relayText(call, "messages", "chat", fetchedAnswer(call, result)) : result;
  },
};
