// The text adapter of every upstream that speaks OpenAI's Chat Completions (https://platform.openai.com/docs/api-reference/chat):
// `openai` and `azure` channels, each with its own Endpoint (./endpoint.ts). Serves Chat Completions natively and
// Anthropic Messages by conversion.
import { upstreamFetch, channelDeadlines, jsonBody } from "@/lib/providers/http";
import type { Outcome, TextAdapter, TextCall } from "@/lib/providers/types";
import type { Endpoint } from "@/lib/providers/endpoint";
import { fetchedAnswer, relayText } from "@/lib/providers/text-relay";
import { chatRequestFromMessages } from "@/lib/dialects/convert/messages-to-chat";
import { messagesRequestSchema } from "@/lib/dialects/messages/wire";
import { parseWith } from "@/lib/platform/http/json";

/** The field this channel's upstream reads the output cap from: `max_completion_tokens` unless set otherwise. */
function maxTokensField(call: TextCall): "max_completion_tokens" | "max_tokens" {
  return call.channel.settings.maxTokensField === "max_tokens" ? "max_tokens" : "max_completion_tokens";
}

/**
 * The upstream's chat request: the client's body with the upstream model, the output cap the gateway reserved for in
 * the field this upstream reads (the gateway has put it in `max_completion_tokens`), and usage asked for when streaming
 * (unless the channel's upstream sends it unasked).
 */
function upstreamChatBody(call: TextCall): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.body, model: call.upstreamModel };
  if (maxTokensField(call) === "max_tokens" && body.max_completion_tokens !== undefined) {
    body.max_tokens = body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  // An upstream that reports a stream's usage unasked and refuses `stream_options` (Mistral) is told nothing
  // (`settings.streamUsage: "unasked"`); either way a stream without usage is charged by the meter (docs/billing.md).
  if (call.stream && call.channel.settings.streamUsage === "unasked") delete body.stream_options;
  else if (call.stream) body.stream_options = { ...(call.body.stream_options as object | undefined), include_usage: true };
  return body;
}

export function chatCompletionsAdapter(endpoint: Endpoint): TextAdapter {
  async function postChat(call: TextCall, body: Record<string, unknown>) {
    const headers = { "content-type": "application/json", accept: "application/json", ...endpoint.auth(call.channel) };
    return upstreamFetch(
      endpoint.url(call.channel, "chat/completions", call.upstreamModel),
      { method: "POST", headers, body: await jsonBody(body, call.bodyBytes) },
      { signal: call.signal, ...channelDeadlines(call.channel.settings) },
    );
  }

  return {
    async chat(call): Promise<Outcome> {
      const result = await postChat(call, upstreamChatBody(call));
      return result.ok ? relayText(call, "chat", "chat", fetchedAnswer(call, result)) : result;
    },

    async messages(call): Promise<Outcome> {
      // The converter reads the fields its own schema types; the gateway's schema is looser (a 400 naming the field here).
      const request = chatRequestFromMessages(parseWith(messagesRequestSchema, call.body), call.upstreamModel, {
        maxTokensField: maxTokensField(call),
      }) as unknown as Record<string, unknown>;
      const result = await postChat(call, request);
      return result.ok ? relayText(call, "chat", "messages", fetchedAnswer(call, result)) : result;
    },
  };
}
