// Gemini to Chat Completions: a Gemini upstream's answer, whole or streamed, as Chat Completions, with the usage it
// reported in the gateway's terms (lib/dialects/hub.ts). Pure, but for the random ids of tool calls Gemini did not
// name. Shapes: lib/dialects/gemini/wire.ts; recorded answers: tests/fakes/gemini-wire.ts.
import { GatewayError } from "@/lib/platform/errors";
import { nowSeconds, randomId, upstreamInvalid } from "@/lib/dialects/convert/common";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  ChatFinishReason,
  ChatToolCall,
  ChatUsage,
} from "@/lib/dialects/chat/wire";
import type { HubAnswer, HubUsage, StreamToChat } from "@/lib/dialects/hub";
import { geminiResponseSchema, type GeminiPartInput, type GeminiResponseInput, type GeminiUsageInput } from "./wire";

/**
 * https://ai.google.dev/api/generate-content#FinishReason → Chat's finish_reason. A stop with function calls is
 * `tool_calls`; the filters (safety, recitation, blocklist, prohibited content, personal data, images) are
 * `content_filter`; CONTINUATION (the per-request limit reached mid-answer) is `length`; the rest
 * (MALFORMED_FUNCTION_CALL, LANGUAGE, OTHER, an unknown or unspecified reason) is `stop`, Chat having nothing closer.
 */
export function geminiFinishReason(reason: string | undefined, calledTools: boolean): ChatFinishReason {
  switch (reason) {
    case "MAX_TOKENS":
    case "CONTINUATION":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
    case "IMAGE_PROHIBITED_CONTENT":
    case "IMAGE_RECITATION":
      return "content_filter";
    default:
      return calledTools ? "tool_calls" : "stop";
  }
}

/**
 * Gemini's usage reports, read in order (a stream's are cumulative: a count that comes replaces the one before, one
 * that does not keeps it). Vertex's early chunks carry no count at all, the Gemini API's only the prompt's; the
 * output is reported once a count of it came, or with the final report (proto3 leaves a zero count out).
 */
class UsageTally {
  private prompt: number | undefined;
  private candidates: number | undefined;
  private thoughts: number | undefined;
  private cached: number | undefined;
  private toolUse: number | undefined;
  private outputReported = false;

  read(usage: GeminiUsageInput | undefined, final: boolean): void {
    if (!usage) return;
    if (usage.promptTokenCount !== undefined) this.prompt = usage.promptTokenCount;
    if (usage.candidatesTokenCount !== undefined) this.candidates = usage.candidatesTokenCount;
    if (usage.thoughtsTokenCount !== undefined) this.thoughts = usage.thoughtsTokenCount;
    if (usage.cachedContentTokenCount !== undefined) this.cached = usage.cachedContentTokenCount;
    if (usage.toolUsePromptTokenCount !== undefined) this.toolUse = usage.toolUsePromptTokenCount;
    if (usage.candidatesTokenCount !== undefined || usage.thoughtsTokenCount !== undefined) this.outputReported = true;
    else if (final && usage.promptTokenCount !== undefined) this.outputReported = true;
  }

  get reported(): boolean {
    return this.prompt !== undefined || this.outputReported;
  }

  /** Fresh input apart from cache reads (tool-use prompt tokens are input too), output with thoughts. */
  hub(): HubUsage {
    const usage: HubUsage = {};
    if (this.prompt !== undefined) {
      const cached = Math.min(this.cached ?? 0, this.prompt);
      usage.inputTokens = this.prompt - cached + (this.toolUse ?? 0);
      usage.cacheReadTokens = cached;
    }
    if (this.outputReported) usage.outputTokens = (this.candidates ?? 0) + (this.thoughts ?? 0);
    return usage;
  }

  /** The usage a Chat client sees: prompt tokens with the cached ones, completion tokens with the reasoning ones. */
  chat(): ChatUsage {
    const prompt = (this.prompt ?? 0) + (this.toolUse ?? 0);
    const completion = (this.candidates ?? 0) + (this.thoughts ?? 0);
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: Math.min(this.cached ?? 0, this.prompt ?? 0) },
      completion_tokens_details: { reasoning_tokens: this.thoughts ?? 0 },
    };
  }
}

function toolCall(call: NonNullable<GeminiPartInput["functionCall"]>): ChatToolCall {
  return {
    id: call.id || randomId("call_"),
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
  };
}

function parse(data: unknown, what: string): GeminiResponseInput {
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw upstreamInvalid(what);
  const parsed = geminiResponseSchema.safeParse(data);
  if (!parsed.success) throw upstreamInvalid(what);
  return parsed.data;
}

/** The gateway asks for one candidate; it is index 0. */
function firstCandidate(body: GeminiResponseInput) {
  return body.candidates?.find((candidate) => (candidate.index ?? 0) === 0) ?? body.candidates?.[0];
}

/** A prompt Google refused to answer: no candidate, and promptFeedback.blockReason says why. */
function blockedPrompt(body: GeminiResponseInput): boolean {
  return firstCandidate(body) === undefined && body.promptFeedback?.blockReason !== undefined;
}

/**
 * A whole generateContent answer as a `chat.completion`: text parts joined into `content`, thought parts into
 * `reasoning_content`, function calls as `tool_calls` (Gemini's id when it gave one, else `call_<random>`), other
 * parts (inline images, code execution) dropped. A blocked prompt is an empty answer with finish_reason
 * `content_filter`. An answer without usageMetadata shows zeros to the client and reports no usage to the relay
 * (which then meters it, docs/billing.md).
 */
export function geminiResponseToChat(body: unknown, publicModel: string): HubAnswer {
  const response = parse(body, "generateContent response");
  const candidate = firstCandidate(response);
  const blocked = blockedPrompt(response);
  if (!candidate && !blocked) throw upstreamInvalid("generateContent response (no candidates)");

  let text = "";
  let reasoning = "";
  const toolCalls: ChatToolCall[] = [];
  for (const part of candidate?.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCall(part.functionCall));
    else if (typeof part.text === "string") {
      if (part.thought) reasoning += part.text;
      else text += part.text;
    }
  }
  const usage = new UsageTally();
  usage.read(response.usageMetadata, true);
  const message: ChatCompletion["choices"][number]["message"] = {
    role: "assistant",
    // OpenAI sends null content when the reply is only tool calls.
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
    ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  const completion: ChatCompletion = {
    id: response.responseId ? `chatcmpl-${response.responseId}` : randomId("chatcmpl-"),
    object: "chat.completion",
    created: nowSeconds(),
    model: publicModel,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: blocked ? "content_filter" : geminiFinishReason(candidate?.finishReason, toolCalls.length > 0),
      },
    ],
    usage: usage.chat(),
  };
  return { completion, usage: usage.hub() };
}

/** Only Google's status name (`INTERNAL`, `UNAVAILABLE`, …) is passed on: its messages may name the channel's project. */
function streamError(error: unknown): GatewayError {
  const status = typeof error === "object" && error !== null ? (error as { status?: unknown }).status : undefined;
  const name = typeof status === "string" && /^[A-Z_]{1,40}$/.test(status) ? status : "error";
  return new GatewayError("upstream_error", `The upstream failed mid-stream (${name}).`);
}

/**
 * A streamGenerateContent answer, chunk by chunk, as `chat.completion.chunk`s (lib/dialects/hub.ts). The first
 * chunk opens with `{role: "assistant", content: ""}` as OpenAI's do; each part follows in order as its own chunk
 * (text as `content`, thoughts as `reasoning_content`, each function call whole as one `tool_calls` entry with its
 * index); the chunk whose candidate has a finishReason, or a blocked prompt, brings the finish chunk at once and makes the
 * stream complete. `finish()` adds the usage chunk (`choices: []`) when usage was reported.
 */
export class GeminiStreamToChat implements StreamToChat {
  private readonly publicModel: string;
  private readonly created = nowSeconds();
  private id: string | undefined;
  private started = false;
  private finishReason: ChatFinishReason | null = null;
  private toolCalls = 0;
  private readonly tally = new UsageTally();

  constructor(options: { publicModel: string }) {
    this.publicModel = options.publicModel;
  }

  get complete(): boolean {
    return this.finishReason !== null;
  }

  get usage(): HubUsage {
    return this.tally.hub();
  }

  push(data: unknown, _eventType?: string): ChatCompletionChunk[] {
    if (typeof data === "object" && data !== null && (data as { error?: unknown }).error !== undefined)
      throw streamError((data as { error: unknown }).error);
    const body = parse(data, "streamGenerateContent chunk");
    this.id ??= body.responseId ? `chatcmpl-${body.responseId}` : randomId("chatcmpl-");
    const chunks: ChatCompletionChunk[] = [];
    if (!this.started) {
      this.started = true;
      chunks.push(this.chunk({ role: "assistant", content: "" }, null));
    }
    const candidate = firstCandidate(body);
    const blocked = blockedPrompt(body);
    this.tally.read(body.usageMetadata, blocked || candidate?.finishReason !== undefined);

    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        const call = toolCall(part.functionCall);
        chunks.push(this.chunk({ tool_calls: [{ index: this.toolCalls++, ...call }] }, null));
      } else if (typeof part.text === "string" && part.text !== "") {
        chunks.push(this.chunk(part.thought ? { reasoning_content: part.text } : { content: part.text }, null));
      }
    }
    if (this.finishReason === null && (blocked || candidate?.finishReason !== undefined)) {
      this.finishReason = blocked ? "content_filter" : geminiFinishReason(candidate?.finishReason, this.toolCalls > 0);
      chunks.push(this.chunk({}, this.finishReason));
    }
    return chunks;
  }

  /** The finish chunk went out with the terminal event already (so a client cut right after it still has it). */
  finish(): ChatCompletionChunk[] {
    return this.tally.reported ? [{ ...this.chunk({}, null), choices: [], usage: this.tally.chat() }] : [];
  }

  private chunk(delta: ChatCompletionChunkDelta, finishReason: ChatFinishReason | null): ChatCompletionChunk {
    return {
      id: this.id ?? randomId("chatcmpl-"),
      object: "chat.completion.chunk",
      created: this.created,
      model: this.publicModel,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }
}
