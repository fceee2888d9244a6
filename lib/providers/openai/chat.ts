// `openai` channels: any OpenAI-compatible upstream. baseUrl is the API root including /v1
// (https://platform.openai.com/docs/api-reference/chat). Serves Chat Completions natively and Anthropic
// Messages by conversion.
import { upstreamFetch, upstreamBody, joinUrl, readUpstreamJson, channelDeadlines } from "@/lib/providers/http";
import { jsonText } from "@/lib/platform/http/json";
import type { Outcome, TextAdapter, TextCall, UsageReport } from "@/lib/providers/types";
import { relayedOutcome, type StreamEnd } from "@/lib/providers/sse-relay";
import { encodeSse } from "@/lib/platform/sse";
import { countTextTokens } from "@/lib/money/tokens";
import { chatRequestFromMessages, chatResponseToMessage, ChatStreamToMessages } from "@/lib/providers/anthropic/convert/messages-to-chat";
import { messagesRequestSchema } from "@/lib/wire/anthropic-messages";
import { parseWith } from "@/lib/platform/http/json";

type ChatUsage =
  | { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null }
  | null
  | undefined;

/** Input as billed: prompt tokens served from the vendor's cache are priced apart (prompt_tokens includes them). */
function inputOf(usage: ChatUsage, fallback: number): Pick<UsageReport, "inputTokens" | "cacheReadTokens"> {
  if (usage?.prompt_tokens === undefined) return { inputTokens: fallback };
  const cached = Math.min(usage.prompt_tokens, usage.prompt_tokens_details?.cached_tokens ?? 0);
  return { inputTokens: usage.prompt_tokens - cached, cacheReadTokens: cached };
}

/** The field this channel's upstream reads the output cap from: `max_completion_tokens` unless set otherwise. */
function maxTokensField(call: TextCall): "max_completion_tokens" | "max_tokens" {
  return call.channel.settings.maxTokensField === "max_tokens" ? "max_tokens" : "max_completion_tokens";
}

function headersFor(call: TextCall): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json",
    ...(call.channel.apiKey ? { authorization: `Bearer ${call.channel.apiKey}` } : {}),
  };
}

async function postChat(call: TextCall, body: Record<string, unknown>) {
  return upstreamFetch(
    joinUrl(call.channel.baseUrl, "chat/completions"),
    { method: "POST", headers: headersFor(call), body: JSON.stringify(body) },
    {
      signal: call.signal,
      ...channelDeadlines(call.channel.settings),
    },
  );
}

function settled(call: TextCall, usage: ChatUsage, deliveredText: string, end: StreamEnd): UsageReport {
  return {
    ...inputOf(usage, call.inputTokens),
    // Without the upstream's count (a cut stream), bill what reached the client.
    outputTokens: usage?.completion_tokens ?? countTextTokens(deliveredText),
    complete: end.complete,
    error: end.error,
    clientGone: end.clientGone,
  };
}

/**
 * The upstream's chat request: the client's body with the upstream model, the output cap the gateway reserved for in
 * the field this upstream reads (the gateway has put it in `max_completion_tokens`), and usage asked for when streaming.
 */
function upstreamChatBody(call: TextCall): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.body, model: call.upstreamModel };
  if (maxTokensField(call) === "max_tokens" && body.max_completion_tokens !== undefined) {
    body.max_tokens = body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  if (call.stream) body.stream_options = { ...(call.body.stream_options as object | undefined), include_usage: true };
  return body;
}

export const openaiAdapter: TextAdapter = {
  async chat(call): Promise<Outcome> {
    const result = await postChat(call, upstreamChatBody(call));
    if (!result.ok) return result;
    const { response, abort } = result;
    if (!call.stream) {
      const read = await readUpstreamJson(response, call.signal);
      if (!read.ok) return read;
      const completion = read.value as Record<string, unknown> & { usage?: ChatUsage };
      completion.model = call.publicModel;
      return {
        ok: true,
        response: jsonText(JSON.stringify(completion)),
        usage: Promise.resolve({
          ...inputOf(completion.usage, call.inputTokens),
          outputTokens: completion.usage?.completion_tokens ?? 0,
          complete: true,
        }),
      };
    }
    let usage: ChatUsage = null;
    let delivered = "";
    return relayedOutcome({
      body: upstreamBody(response),
      abort,
      dialect: "openai",
      onEvent(event) {
        if (event.data === "[DONE]") return encodeSse({ data: "[DONE]" });
        const chunk = JSON.parse(event.data) as { usage?: ChatUsage; choices?: { delta?: { content?: string | null } }[]; model?: string };
        if (chunk.usage) usage = chunk.usage;
        for (const choice of chunk.choices ?? []) if (choice.delta?.content) delivered += choice.delta.content;
        if (!call.includeUsage) {
          // We asked for usage for billing; a client that did not ask does not get the extra chunk.
          if (chunk.usage && (chunk.choices?.length ?? 0) === 0) return "";
          delete chunk.usage;
        }
        chunk.model = call.publicModel;
        return encodeSse({ data: JSON.stringify(chunk) });
      },
      usage: (end) => settled(call, usage, delivered, end),
    });
  },

  async messages(call): Promise<Outcome> {
    // The converter reads the fields its own schema types; the gateway's schema is looser (a 400 naming the field here).
    const request = chatRequestFromMessages(parseWith(messagesRequestSchema, call.body), call.upstreamModel, {
      maxTokensField: maxTokensField(call),
    }) as unknown as Record<string, unknown>;
    const result = await postChat(call, request);
    if (!result.ok) return result;
    const { response, abort } = result;
    if (!call.stream) {
      const read = await readUpstreamJson(response, call.signal);
      if (!read.ok) return read;
      const completion = read.value as { usage?: ChatUsage };
      const message = chatResponseToMessage(completion as never, call.publicModel);
      return {
        ok: true,
        response: jsonText(JSON.stringify(message)),
        usage: Promise.resolve({
          ...inputOf(completion.usage, call.inputTokens),
          outputTokens: completion.usage?.completion_tokens ?? 0,
          complete: true,
        }),
      };
    }
    const converter = new ChatStreamToMessages({ publicModel: call.publicModel, inputTokens: call.inputTokens });
    let delivered = "";
    return relayedOutcome({
      body: upstreamBody(response),
      abort,
      dialect: "anthropic",
      onEvent(event) {
        if (event.data === "[DONE]") return "";
        const chunk = JSON.parse(event.data) as { choices?: { delta?: { content?: string | null } }[] };
        for (const choice of chunk.choices ?? []) if (choice.delta?.content) delivered += choice.delta.content;
        return converter.push(chunk).map((out) => encodeSse({ event: out.type, data: JSON.stringify(out) }));
      },
      onEnd: () => converter.finish().map((out) => encodeSse({ event: out.type, data: JSON.stringify(out) })),
      usage(end) {
        const counted = converter.usage();
        return {
          inputTokens: counted.inputTokens || call.inputTokens,
          outputTokens: counted.outputTokens || countTextTokens(delivered),
          complete: end.complete,
          error: end.error,
          clientGone: end.clientGone,
        };
      },
    });
  },
};
