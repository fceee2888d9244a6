// `anthropic` channels: the vendor's Messages API. baseUrl is the API root without /v1
// (https://docs.anthropic.com/en/api/messages). Serves Messages natively and Chat Completions by conversion.
// `[1m]` models switch on the 1M-token context with a beta header, configurable per channel
// (settings.longContextBeta) because the vendor may rename or drop it. Client betas pass only by allowlist (./betas.ts).
import { upstreamFetch, upstreamBody, joinUrl, readUpstreamJson, channelDeadlines } from "@/lib/providers/http";
import { jsonText } from "@/lib/platform/http/json";
import type { Outcome, TextAdapter, TextCall, UsageReport } from "@/lib/providers/types";
import { relayedOutcome } from "@/lib/providers/sse-relay";
import { encodeSse } from "@/lib/platform/sse";
import { countTextTokens } from "@/lib/money/tokens";
import { chatRequestSchema } from "@/lib/wire/openai-chat";
import { chatRequestToMessages, messagesResponseToChat, MessagesStreamToChat } from "./convert/chat-to-messages";
import { parseWith } from "@/lib/platform/http/json";
import { allowedBetas } from "./betas";

export const DEFAULT_VERSION = "2023-06-01";
export const DEFAULT_LONG_CONTEXT_BETA = "context-1m-2025-08-07";

type MessageUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  server_tool_use?: Record<string, number> | null;
};

/** Input as the vendor bills it: fresh input, cache reads and cache writes (of which 1-hour ones) apart. */
function inputOf(
  usage: MessageUsage | undefined,
): Pick<UsageReport, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "cacheWrite1hTokens"> | undefined {
  if (!usage || usage.input_tokens === undefined) return undefined;
  return {
    inputTokens: usage.input_tokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    cacheWrite1hTokens: usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
  };
}

/** Server tool uses (`server_tool_use: { web_search_requests: 2 }`) by tool name (`web_search`). */
function toolUsesOf(usage: MessageUsage | undefined): Record<string, number> | undefined {
  if (!usage?.server_tool_use) return undefined;
  const uses: Record<string, number> = {};
  for (const [field, count] of Object.entries(usage.server_tool_use)) {
    if (typeof count === "number" && count > 0) uses[field.replace(/_requests$/, "")] = count;
  }
  return Object.keys(uses).length ? uses : undefined;
}

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
    { method: "POST", headers: anthropicHeaders(call), body: JSON.stringify(body) },
    {
      signal: call.signal,
      ...channelDeadlines(call.channel.settings),
    },
  );
}

export const anthropicAdapter: TextAdapter = {
  async messages(call): Promise<Outcome> {
    const result = await postMessages(call, { ...call.body, model: call.upstreamModel });
    if (!result.ok) return result;
    const { response, abort } = result;
    if (!call.stream) {
      const read = await readUpstreamJson(response, call.signal);
      if (!read.ok) return read;
      const message = read.value as Record<string, unknown> & { usage?: MessageUsage };
      message.model = call.publicModel;
      return {
        ok: true,
        response: jsonText(JSON.stringify(message)),
        usage: Promise.resolve({
          ...(inputOf(message.usage) ?? { inputTokens: call.inputTokens }),
          outputTokens: message.usage?.output_tokens ?? 0,
          toolUses: toolUsesOf(message.usage),
          complete: true,
        }),
      };
    }
    let input: ReturnType<typeof inputOf>;
    let toolUses: Record<string, number> | undefined;
    let outputTokens: number | undefined;
    let delivered = "";
    return relayedOutcome({
      body: upstreamBody(response),
      abort,
      dialect: "anthropic",
      onEvent(event) {
        const data = JSON.parse(event.data) as {
          type?: string;
          message?: { usage?: MessageUsage; model?: string };
          usage?: MessageUsage;
          delta?: { type?: string; text?: string };
        };
        if (data.type === "message_start" && data.message) {
          input = inputOf(data.message.usage);
          outputTokens = data.message.usage?.output_tokens;
          data.message.model = call.publicModel;
          return encodeSse({ event: event.event ?? data.type, data: JSON.stringify(data) });
        }
        if (data.type === "message_delta" && data.usage) {
          // The final delta carries cumulative usage, server tool uses included (and input when tools ran).
          if (data.usage.output_tokens !== undefined) outputTokens = data.usage.output_tokens;
          if (data.usage.input_tokens !== undefined) input = inputOf(data.usage);
          toolUses = toolUsesOf(data.usage) ?? toolUses;
        }
        if (data.type === "content_block_delta" && data.delta?.type === "text_delta") delivered += data.delta.text ?? "";
        // Unchanged events go out byte for byte.
        return encodeSse({ event: event.event, data: event.data });
      },
      usage(end) {
        return {
          ...(input ?? { inputTokens: call.inputTokens }),
          toolUses,
          outputTokens: end.complete
            ? (outputTokens ?? countTextTokens(delivered))
            : Math.max(outputTokens ?? 0, countTextTokens(delivered)),
          complete: end.complete,
          error: end.error,
          clientGone: end.clientGone,
        };
      },
    });
  },

  async chat(call): Promise<Outcome> {
    // The converter reads the fields its own schema types; the gateway's schema is looser (a 400 naming the field here).
    const request = chatRequestToMessages(parseWith(chatRequestSchema, call.body), call.upstreamModel) as unknown as Record<
      string,
      unknown
    >;
    const result = await postMessages(call, request);
    if (!result.ok) return result;
    const { response, abort } = result;
    if (!call.stream) {
      const read = await readUpstreamJson(response, call.signal);
      if (!read.ok) return read;
      const message = read.value as { usage?: MessageUsage };
      const completion = messagesResponseToChat(message as never, call.publicModel);
      return {
        ok: true,
        response: jsonText(JSON.stringify(completion)),
        usage: Promise.resolve({
          ...(inputOf(message.usage) ?? { inputTokens: call.inputTokens }),
          outputTokens: message.usage?.output_tokens ?? 0,
          complete: true,
        }),
      };
    }
    const converter = new MessagesStreamToChat({ publicModel: call.publicModel, includeUsage: call.includeUsage });
    let delivered = "";
    return relayedOutcome({
      body: upstreamBody(response),
      abort,
      dialect: "openai",
      onEvent(event) {
        const data = JSON.parse(event.data) as { type?: string; delta?: { type?: string; text?: string } };
        if (data.type === "content_block_delta" && data.delta?.type === "text_delta") delivered += data.delta.text ?? "";
        return converter.push(data).map((chunk) => encodeSse({ data: JSON.stringify(chunk) }));
      },
      onEnd: () => encodeSse({ data: "[DONE]" }),
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
