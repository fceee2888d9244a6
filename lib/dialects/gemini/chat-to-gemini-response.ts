// Chat Completions to Gemini, for a Gemini client: the Chat answer that served a /v1beta request (its request made by
// lib/dialects/gemini/gemini-to-chat-request.ts), whole or streamed, as Gemini's GenerateContentResponse. Pure. The
// relay hands it Chat whatever the channel spoke (lib/providers/text-relay.ts), and meters what it writes.
//   https://ai.google.dev/api/generate-content#generatecontentresponse (Candidate, FinishReason, UsageMetadata)
import { randomId, upstreamInvalid, withoutPrefix } from "@/lib/dialects/convert/common";
import { chatCompletionChunkSchema, chatCompletionSchema, type chatUsageReportSchema } from "@/lib/dialects/chat/wire";
import type { z } from "zod";
import type { GeminiFinishReason, GeminiResponse, GeminiResponsePart, GeminiUsageMetadata } from "./wire";

type Json = Record<string, unknown>;

/** Chat's finish_reason as Gemini's: a length cut is MAX_TOKENS, a filter SAFETY, anything else (tool calls
 *  included: Gemini ends a turn of function calls with STOP) STOP. */
export function geminiFinishReasonOf(reason: string | null | undefined): GeminiFinishReason {
  if (reason === "length") return "MAX_TOKENS";
  if (reason === "content_filter") return "SAFETY";
  return "STOP";
}

/**
 * Chat usage as usageMetadata: prompt tokens with the cached ones (as Google counts them), the reasoning tokens apart
 * as thoughts (Google's candidatesTokenCount leaves them out). Null when the answer reported no count.
 */
export function geminiUsageOf(usage: z.infer<typeof chatUsageReportSchema> | null | undefined): GeminiUsageMetadata | null {
  if (!usage) return null;
  const prompt = usage.prompt_tokens ?? undefined;
  const completion = usage.completion_tokens ?? undefined;
  if (prompt === undefined && completion === undefined) return null;
  const details = (usage as { completion_tokens_details?: { reasoning_tokens?: unknown } | null }).completion_tokens_details;
  const reasoning = typeof details?.reasoning_tokens === "number" ? Math.min(details.reasoning_tokens, completion ?? 0) : 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: prompt ?? 0,
    candidatesTokenCount: (completion ?? 0) - reasoning,
    totalTokenCount: (prompt ?? 0) + (completion ?? 0),
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
  };
}

/** A call's arguments as the object Gemini's `args` is; arguments that are not a JSON object (a call cut at the
 *  output cap) come as `{}`, Gemini having no place for text there. */
function argsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || "{}");
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: see above
  }
  return {};
}

function functionCallPart(id: string | null | undefined, name: string, args: string): GeminiResponsePart {
  return { functionCall: { ...(id ? { id } : {}), name, args: argsOf(args) } };
}

function responseIdOf(id: string | null | undefined): string {
  return id ? withoutPrefix(id, "chatcmpl-") : randomId("");
}

function answer(
  parts: GeminiResponsePart[],
  finishReason: GeminiFinishReason | undefined,
  model: string,
  responseId: string,
  usage?: GeminiUsageMetadata | null,
): GeminiResponse {
  return {
    candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId,
  };
}

/**
 * A whole `chat.completion` as a GenerateContentResponse: reasoning as a `thought` part, the text (or a refusal) as a
 * text part, each tool call as a functionCall part with its id; an answer with none of these has one empty text
 * part, as Google's have. usageMetadata only when the completion reported usage (an answer without it is billed by
 * the meter, docs/billing.md, and shows none).
 */
export function chatCompletionToGemini(body: unknown, publicModel: string): GeminiResponse {
  const parsed = chatCompletionSchema.safeParse(body);
  if (!parsed.success) throw upstreamInvalid("chat completion");
  const choice = parsed.data.choices.find((candidate) => (candidate.index ?? 0) === 0) ?? parsed.data.choices[0];
  if (!choice) throw upstreamInvalid("chat completion (no choices)");
  const parts: GeminiResponsePart[] = [];
  const reasoning = (choice.message as Json).reasoning_content;
  if (typeof reasoning === "string" && reasoning !== "") parts.push({ text: reasoning, thought: true });
  const text = choice.message.content || choice.message.refusal;
  if (text) parts.push({ text });
  for (const call of choice.message.tool_calls ?? []) parts.push(functionCallPart(call.id, call.function.name, call.function.arguments));
  if (!parts.length) parts.push({ text: "" });
  const usage = geminiUsageOf(parsed.data.usage);
  return answer(parts, geminiFinishReasonOf(choice.finish_reason), publicModel, responseIdOf(parsed.data.id), usage);
}

/**
 * A Chat chunk stream as `:streamGenerateContent` chunks: each chunk's reasoning and text go out at once as thought
 * and text parts; tool calls, streamed in pieces in Chat, are gathered and go out whole (as Gemini sends them) in the
 * last chunk, which `finish()` writes after the Chat stream's clean end, with the finishReason and the usageMetadata
 * (when the stream reported usage).
 */
export class ChatStreamToGemini {
  private readonly publicModel: string;
  private responseId: string | undefined;
  private finishReason: GeminiFinishReason | null = null;
  private usage: GeminiUsageMetadata | null = null;
  private readonly calls = new Map<number, { id?: string; name: string; args: string }>();

  constructor(options: { publicModel: string }) {
    this.publicModel = options.publicModel;
  }

  /** The Gemini chunks for one Chat chunk (none is fine). */
  push(data: unknown): GeminiResponse[] {
    const parsed = chatCompletionChunkSchema.safeParse(data);
    if (!parsed.success) throw upstreamInvalid("chat completion chunk");
    const chunk = parsed.data;
    this.responseId ??= responseIdOf(chunk.id);
    this.usage = geminiUsageOf(chunk.usage) ?? this.usage;
    const parts: GeminiResponsePart[] = [];
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      const reasoning = (delta as Json | null | undefined)?.reasoning_content;
      if (typeof reasoning === "string" && reasoning !== "") parts.push({ text: reasoning, thought: true });
      const text = delta?.content || delta?.refusal;
      if (text) parts.push({ text });
      for (const piece of delta?.tool_calls ?? []) {
        const index = piece.index ?? 0;
        const call = this.calls.get(index) ?? { name: "", args: "" };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name = piece.function.name;
        call.args += piece.function?.arguments ?? "";
        this.calls.set(index, call);
      }
      if (choice.finish_reason) this.finishReason = geminiFinishReasonOf(choice.finish_reason);
    }
    return parts.length ? [answer(parts, undefined, this.publicModel, this.responseId)] : [];
  }

  /** The last chunk: the gathered function calls (or an empty text part), the finishReason and the usage. */
  finish(): GeminiResponse[] {
    const parts = [...this.calls.values()].map((call) => functionCallPart(call.id, call.name, call.args));
    if (!parts.length) parts.push({ text: "" });
    return [answer(parts, this.finishReason ?? "STOP", this.publicModel, this.responseId ?? randomId(""), this.usage)];
  }
}
