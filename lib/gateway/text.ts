// /v1/chat/completions and /v1/messages: validate, authorise the model, reserve (input counted with a real
// tokenizer + the output cap), relay through the channels, settle to the reported usage.
import { z } from "zod";
import { GatewayError } from "../errors";
import { parseWith, readJsonObject } from "../http/json";
import { splitLongContext } from "../models";
import { costOf } from "../billing/prices";
import { countChatRequestInputTokens, countMessagesInputTokens } from "../billing/tokens";
import { authoriseModel, gatewayRoute, requirePrice, reserve, type GatewayContext } from "./pipeline";
import { settleWhenDone, withFailover } from "./relay";
import { upstreamModel, type ChannelType } from "./channels";
import type { TextAdapter, TextCall } from "../providers/types";
import { openaiAdapter } from "../providers/openai/chat";
import { anthropicAdapter } from "../providers/anthropic/messages";
import { simulatorAdapter } from "../providers/simulator/chat";

export const TEXT_ADAPTERS: Record<ChannelType, TextAdapter> = { openai: openaiAdapter, anthropic: anthropicAdapter, simulator: simulatorAdapter };

/** Output cap assumed for the reservation when a Chat Completions request sets none; usage beyond it is still charged at settlement. */
export const DEFAULT_OUTPUT_CAP = 4096;
const MAX_OUTPUT_CAP = 1_000_000;

const content = z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]);

// Lenient schemas: what the gateway needs is checked; everything else is passed on to the upstream.
export const chatSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], { message: "must be one of system, developer, user, assistant, tool" }),
        content: content.optional(),
      }),
      { message: "must be an array of messages" },
    )
    .min(1, "must hold at least one message"),
  max_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().min(1).max(1, "must be 1: the gateway returns one choice").nullable().optional(),
});

const block = z.looseObject({ type: z.string({ message: "each content block needs a type" }) });
export const messagesSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  max_tokens: z.number({ message: "is required and must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(MAX_OUTPUT_CAP),
  messages: z
    .array(z.looseObject({ role: z.enum(["user", "assistant"], { message: "must be user or assistant" }), content: z.union([z.string(), z.array(block)]) }), { message: "must be an array of messages" })
    .min(1, "must hold at least one message"),
  system: z.union([z.string(), z.array(block)]).optional(),
  stream: z.boolean().optional(),
});

async function relayText(context: GatewayContext, kind: "chat" | "messages", body: Record<string, unknown>, model: string, inputTokens: number, outputCap: number, stream: boolean, includeUsage: boolean): Promise<Response> {
  await authoriseModel(context.principal, model);
  const { base, longContext } = splitLongContext(model);
  const price = await requirePrice(model);
  const estimate = costOf({ textInputTokens: inputTokens, textOutputTokens: outputCap, imageInputTokens: 0, imageOutputTokens: 0 }, price);
  const reservation = await reserve(context, model, price, estimate);
  const { channel, result } = await withFailover(context, model, reservation, (candidate) => {
    const call: TextCall = {
      channel: candidate,
      publicModel: model,
      upstreamModel: upstreamModel(candidate, model, base),
      longContext,
      body,
      stream,
      includeUsage,
      headers: context.request.headers,
      signal: context.request.signal,
      inputTokens,
    };
    return TEXT_ADAPTERS[candidate.type][kind](call);
  });
  settleWhenDone(reservation, channel, result, stream, (report) => ({ textInputTokens: report.inputTokens, textOutputTokens: report.outputTokens, imageInputTokens: 0, imageOutputTokens: 0 }));
  return result.response;
}

export const chatCompletions = gatewayRoute({ endpoint: "/v1/chat/completions", dialect: "openai", scheme: "bearer" }, async (context) => {
  const body = parseWith(chatSchema, await readJsonObject(context.request));
  const stream = body.stream === true;
  const outputCap = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_OUTPUT_CAP;
  const inputTokens = countChatRequestInputTokens(body as never);
  return relayText(context, "chat", body, body.model, inputTokens, outputCap, stream, stream && body.stream_options?.include_usage === true);
});

export const messages = gatewayRoute({ endpoint: "/v1/messages", dialect: "anthropic", scheme: "x-api-key" }, async (context) => {
  const raw = await readJsonObject(context.request);
  if (raw.max_tokens === undefined) throw new GatewayError("invalid_request", "max_tokens: Field required", { param: "max_tokens" });
  const body = parseWith(messagesSchema, raw);
  const inputTokens = countMessagesInputTokens(body as never);
  return relayText(context, "messages", body, body.model, inputTokens, body.max_tokens, body.stream === true, false);
});
