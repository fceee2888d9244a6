// /v1/chat/completions and /v1/messages: validate, authorise the model, reserve an upper bound (docs/billing.md:
// every priced input counted, the output cap that is then sent, server tools per use), relay through the channels,
// settle to the reported usage.
import type { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { ALL_MODELS, LONG_CONTEXT_SUFFIX, splitLongContext } from "@/lib/catalog/models";
import { textRates, textReservation, type Price } from "@/lib/money/prices";
import {
  countChatRequestInputTokens,
  countForCharge,
  countMessagesInputTokens,
  countTextTokens,
  type CountStats,
} from "@/lib/money/tokens";
import {
  inputMultiplier,
  outputCapHint,
  planServerTools,
  SERVER_TOOL_RESULT_TOKENS,
  textInputBound,
  type ServerToolPlan,
} from "@/lib/money/reservation";
import { catalogEntryOrGeneric } from "@/lib/catalog";
import { isLongContextBeta, splitBetas } from "@/lib/dialects/messages/betas";
import { authoriseModel, gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { requirePrice, reserve } from "@/lib/money/reserve";
import { settleWhenDone, withFailover } from "@/lib/gateway/relay";
import { modifiedPrice } from "@/lib/gateway/modified-price";
import { upstreamModel } from "@/lib/channels";
import type { TextCall } from "@/lib/providers/types";
import { providerOf } from "@/lib/providers";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { readTextRequest } from "@/lib/gateway/text-request";
import { chatBody, messagesBody } from "./body";
import type { chatEndpointRequestSchema } from "@/lib/dialects/chat/wire";
import type { messagesEndpointRequestSchema } from "@/lib/dialects/messages/wire";

type TextRequest = {
  kind: "chat" | "messages";
  body: Record<string, unknown>;
  /** The dialect's input count of the body as the client sent it, and what the count saw. */
  inputTokens: number;
  stats: CountStats;
  /** The body's size as the client sent it (the reservation's size bound; the upstream request's size hint). */
  bytes: number;
  /** The client's own output cap, if it set one. */
  explicitCap: number | undefined;
  stream: boolean;
  includeUsage: boolean;
  /** A Gemini client's request, made a Chat one (lib/gateway/gemini/handler.ts): the answer is written as Gemini's, and the
   *  cap is named as the client named it. */
  gemini?: { sse: boolean; capField: string };
};

/** The model a request is served and billed as: a base model named with the client's 1M-context beta is its `[1m]` model. */
function billedModel(context: GatewayContext, model: string): string {
  if (splitLongContext(model).longContext || !ALL_MODELS.includes(`${model}${LONG_CONTEXT_SUFFIX}`)) return model;
  return splitBetas(context.request.headers.get("anthropic-beta")).some(isLongContextBeta) ? `${model}${LONG_CONTEXT_SUFFIX}` : model;
}

async function relayText(context: GatewayContext, request: TextRequest): Promise<Response> {
  const { kind, body, stream } = request;
  const model = billedModel(context, body.model as string);
  await authoriseModel(context.principal, model);
  const entry = await catalogEntryOrGeneric(model);
  if (entry.kind !== "text") {
    // A Gemini client is pointed at Gemini's own embedding methods (lib/gateway/embeddings/gemini.ts).
    const geminiEmbedding = request.gemini && entry.kind === "embedding";
    const servedBy = geminiEmbedding ? `/v1beta/models/${model}:batchEmbedContents and :embedContent` : entry.endpoints.join(" and ");
    throw new GatewayError(
      "invalid_request",
      `'${model}' is ${entry.kind === "image" || entry.kind === "embedding" ? "an" : "a"} ${entry.kind} model: it is served by ${servedBy}, not by ${context.endpoint}`,
      { param: "model" },
    );
  }
  const capField = request.gemini?.capField ?? (kind === "chat" ? "max_completion_tokens" : "max_tokens");
  if (request.explicitCap !== undefined && request.explicitCap > entry.maxOutputTokens) {
    throw new GatewayError(
      "invalid_request",
      `Invalid '${capField}': '${model}' writes at most ${entry.maxOutputTokens} output tokens; got ${request.explicitCap}`,
      { param: capField },
    );
  }
  // The cap reserved for is the cap the upstream receives (docs/billing.md): the client's, or the catalog's default
  // sent on its behalf. Chat requests carry it in max_completion_tokens; the openai adapter renames it for an
  // upstream that reads max_tokens.
  const outputCap = request.explicitCap ?? entry.defaultOutputTokens;
  if (kind === "chat") {
    delete body.max_tokens;
    body.max_completion_tokens = outputCap;
  } else {
    body.max_tokens = outputCap;
    if (!entry.systemInMessages) systemTurnsToUser(body);
    const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
    if (thinking?.type === "enabled" && typeof thinking.budget_tokens === "number" && thinking.budget_tokens >= outputCap) {
      throw new GatewayError(
        "invalid_request",
        `Invalid 'thinking.budget_tokens': must be less than max_tokens (${outputCap}); thinking counts toward max_tokens`,
        { param: "thinking.budget_tokens" },
      );
    }
  }

  const price = await requirePrice(model);
  // Price modifiers (service_tier, speed, inference_geo, the operator's own): refused unless priced, else reserved and
  // charged at the multiplied rates, served by the channels that pass them on (lib/gateway/modified-price.ts).
  const modified = await modifiedPrice(kind, body, context.request.headers.get("anthropic-beta"), price);
  const tools = kind === "messages" ? planServerTools(body.tools, price, model) : chatServerTools(body, price, model);
  const items = (Array.isArray(body.messages) ? body.messages.length : 0) + (Array.isArray(body.tools) ? body.tools.length : 0);
  const inputBound =
    (textInputBound(request.inputTokens, { bytes: request.bytes, items }, request.stats) + tools.inputTokens) * tools.passes;
  // A predicted output's rejected tokens are billed as output, beyond the cap (OpenAI "predicted outputs").
  const prediction = kind === "chat" && body.prediction ? predictionTokens(body.prediction) : 0;
  const bound = {
    inputTokens: inputBound,
    outputTokens: outputCap + prediction,
    inputMultiplier: inputMultiplier(price, request.stats),
    toolUses: tools.uses,
  };
  const fixed = textReservation(modified.reservePrice, { ...bound, outputTokens: prediction });
  const reservation = await reserve(
    context,
    model,
    modified.chargePrice,
    textReservation(modified.reservePrice, bound),
    (left) => outputCapHint(capField, left, fixed, textRates(modified.reservePrice, inputBound).output),
    modified.held,
  );

  const countInput = countForCharge(request.inputTokens, request.stats, () =>
    kind === "chat" ? countChatRequestInputTokens(body as never) : countMessagesInputTokens(body as never),
  );
  const { base, longContext } = splitLongContext(model);
  const { channel, result } = await withFailover(context, model, reservation, (candidate) => {
    const call: TextCall = {
      channel: candidate,
      publicModel: model,
      upstreamModel: upstreamModel(candidate, model, base),
      longContext,
      body,
      stream,
      outputCap,
      bodyBytes: request.bytes,
      includeUsage: request.includeUsage,
      ...(request.gemini ? { geminiClient: { sse: request.gemini.sse } } : {}),
      headers: context.request.headers,
      signal: context.request.signal,
      get inputTokens() {
        return countInput();
      },
    };
    return providerOf(candidate.type).text[kind](call);
  });
  settleWhenDone(reservation, channel, result, stream, (report) => ({
    textInputTokens: report.inputTokens,
    textOutputTokens: report.outputTokens,
    imageInputTokens: 0,
    imageOutputTokens: 0,
    cacheReadTokens: report.cacheReadTokens,
    cacheWriteTokens: report.cacheWriteTokens,
    cacheWrite1hTokens: report.cacheWrite1hTokens,
    toolUses: report.toolUses,
  }));
  return result.response;
}

/**
 * For a model the catalog says does not read `system` turns inside `messages`: each becomes a user turn in place (not
 * hoisted into `system`, which would change the prompt-cache prefix), its text marked as the system's.
 */
function systemTurnsToUser(body: Record<string, unknown>): void {
  const turns = body.messages as { role: string; content: unknown }[];
  body.messages = turns.map((turn) => {
    if (turn.role !== "system") return turn;
    const text =
      typeof turn.content === "string"
        ? turn.content
        : (turn.content as { type?: string; text?: string }[]).map((part) => part.text ?? "").join("\n\n");
    return { role: "user", content: `[system] ${text}` };
  });
}

/**
 * A predicted output's tokens (OpenAI "predicted outputs": `{type: "content", content: string | text parts}`), counted
 * from its texts rather than from its serialisation, which a large prediction would make costly.
 */
function predictionTokens(prediction: unknown): number {
  const content = (prediction as { content?: unknown } | null)?.content;
  if (typeof content === "string") return countTextTokens(content);
  if (!Array.isArray(content)) return countTextTokens(JSON.stringify(prediction ?? null).slice(0, 64 * 1024));
  return content.reduce((total: number, part) => total + countTextTokens(String((part as { text?: unknown })?.text ?? "")) + 4, 0);
}

/** Chat Completions' one server tool, `web_search_options`: one search per request at the model's per-use price. */
function chatServerTools(body: Record<string, unknown>, price: Price, model: string): ServerToolPlan {
  if (body.web_search_options === undefined || body.web_search_options === null) return { uses: {}, inputTokens: 0, passes: 1 };
  if (price.toolPrices.web_search === undefined) {
    throw new GatewayError(
      "invalid_request",
      `'web_search_options' is not available for '${model}': the vendor bills web search per use and no per-use price is set for it here`,
      { param: "web_search_options" },
    );
  }
  return { uses: { web_search: 1 }, inputTokens: SERVER_TOOL_RESULT_TOKENS, passes: 2 };
}

/** What relaying a Chat Completions body built by another endpoint needs besides it: its input count and its size,
 *  made with the body it came from (lib/gateway/text-request.ts). */
export type ChatRelayCount = { inputTokens: number; stats: CountStats; bytes: number };

/** A Chat Completions body built by another endpoint (lib/gateway/responses/text.ts), streamed with usage. */
export function relayTextRequest(
  context: GatewayContext,
  kind: "chat",
  body: Record<string, unknown>,
  explicitCap: number | undefined,
  count: ChatRelayCount,
): Promise<Response> {
  return relayText(context, { kind, body, ...count, explicitCap, stream: true, includeUsage: true });
}

/** A Gemini client's request as the Chat body it became (lib/gateway/gemini/handler.ts): served and billed as chat is, the
 *  answer written as Gemini's, streamed in the framing `sse` says, with usage asked for. */
export function relayGeminiText(
  context: GatewayContext,
  body: Record<string, unknown>,
  explicitCap: number | undefined,
  count: ChatRelayCount,
  options: { stream: boolean; sse: boolean },
): Promise<Response> {
  const gemini = { sse: options.sse, capField: "generationConfig.maxOutputTokens" };
  return relayText(context, { kind: "chat", body, ...count, explicitCap, stream: options.stream, includeUsage: true, gemini });
}

export const chatCompletions = gatewayRoute(
  { endpoint: "/v1/chat/completions", dialect: "openai", scheme: "bearer", operation: "chat" },
  async (context) => {
    const read = await readTextRequest(context.request, chatBody, { watch: paidBodyWatch(context) });
    const body = read.body as z.infer<typeof chatEndpointRequestSchema>;
    const { inputTokens, stats } = read;
    const stream = body.stream === true;
    const explicitCap = body.max_completion_tokens ?? body.max_tokens ?? undefined;
    return relayText(context, {
      kind: "chat",
      body,
      bytes: read.bytes,
      inputTokens,
      stats,
      explicitCap,
      stream,
      includeUsage: stream && body.stream_options?.include_usage === true,
    });
  },
);

export const messages = gatewayRoute(
  { endpoint: "/v1/messages", dialect: "anthropic", scheme: "x-api-key", operation: "chat" },
  async (context) => {
    const read = await readTextRequest(context.request, messagesBody, { watch: paidBodyWatch(context) });
    const body = read.body as z.infer<typeof messagesEndpointRequestSchema>;
    const { inputTokens, stats } = read;
    return relayText(context, {
      kind: "messages",
      body,
      bytes: read.bytes,
      inputTokens,
      stats,
      explicitCap: body.max_tokens,
      stream: body.stream === true,
      includeUsage: false,
    });
  },
);
