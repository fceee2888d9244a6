// Helpers shared by the converters between Chat Completions and Messages (each direction, whole and streamed). Nothing here does I/O.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import type { ChatFinishReason, ChatMessageInput, ChatUsage } from "@/lib/dialects/chat/wire";
import type { MessagesStopReason, messagesUsageSchema } from "@/lib/dialects/messages/wire";

/** Default `max_tokens` when an OpenAI request sets none (Anthropic requires one). */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic accepts these image types (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
export const ANTHROPIC_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

export function withoutPrefix(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; other providers' ids may not. Applied the same way to
 * tool_use ids and tool_result references, so the pair still matches. */
export function anthropicToolId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "toolu_empty" : cleaned;
}

export function invalid(message: string, param: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

export function upstreamInvalid(what: string): GatewayError {
  return new GatewayError("upstream_error", `The upstream sent a malformed ${what}.`);
}

/** Parses `value` with `schema` or throws a 400 naming the field, for request parts checked lazily. */
export function requestField<T extends z.ZodType>(schema: T, value: unknown, param: string, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(`Invalid ${what} at ${param}.`, param);
  return result.data;
}

/** Splits a `data:` URI into its media type and base64 payload, without copying the payload twice. */
export function parseDataUri(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma === -1) return null;
  const header = url.slice(5, comma).split(";");
  if (!header.includes("base64")) return null;
  const mediaType = (header[0] ?? "").toLowerCase();
  return { mediaType: mediaType === "image/jpg" ? "image/jpeg" : mediaType, data: url.slice(comma + 1) };
}

export function textOfChatContent(content: ChatMessageInput["content"], param: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, index) => {
      if (part.type === "text") return requestField(textPartSchema, part, `${param}[${index}]`, "text part").text;
      if (part.type === "refusal") return requestField(refusalPartSchema, part, `${param}[${index}]`, "refusal part").refusal;
      throw invalid(`Content parts of type "${part.type}" are not supported here.`, `${param}[${index}].type`);
    })
    .join("");
}

export const textPartSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const refusalPartSchema = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
export const imagePartSchema = z.looseObject({ type: z.literal("image_url"), image_url: z.looseObject({ url: z.string() }) });
export const filePartSchema = z.looseObject({
  type: z.literal("file"),
  file: z.looseObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});

/** The inverse of `chatFinishReason`. OpenAI does not say whether a stop sequence matched, so "stop" is end_turn. */
export function messagesStopReason(finishReason: string | null | undefined): MessagesStopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

export const textBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
export const toolUseBlockSchema = z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() });

/** Token usage read from a stream, for settlement. `inputTokens` includes cached input. */
export type StreamUsage = {
  inputTokens: number;
  outputTokens: number;
};

/** https://docs.anthropic.com/en/api/handling-stop-reasons → https://platform.openai.com/docs/api-reference/chat/object */
export function chatFinishReason(stopReason: string | null | undefined): ChatFinishReason {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default: // end_turn, stop_sequence, pause_turn, or none
      return "stop";
  }
}

/** Every input token, cached or not, is a prompt token in OpenAI's accounting. */
export function anthropicInputTotal(usage: z.infer<typeof messagesUsageSchema> | null | undefined): number {
  if (!usage) return 0;
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

export function chatUsage(promptTokens: number, completionTokens: number, cachedTokens: number): ChatUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/** A Chat tool call's `arguments` as the object every other dialect takes (empty means `{}`); a 400 naming the field
 *  when they are not a JSON object. */
export function toolCallArguments(argumentsText: string, param: string): Record<string, unknown> {
  let input: unknown = {};
  if (argumentsText.trim() !== "") {
    try {
      input = JSON.parse(argumentsText);
    } catch {
      throw invalid("Tool call arguments must be a JSON object.", `${param}.function.arguments`);
    }
  }
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw invalid("Tool call arguments must be a JSON object.", `${param}.function.arguments`);
  return input as Record<string, unknown>;
}

/** Chat's `n`: the gateway serves one choice, whatever the upstream (a 400 naming the field otherwise). */
export function refuseSeveralChoices(n: number | null | undefined): void {
  if (n !== undefined && n !== null && n !== 1) throw invalid("Only n=1 is supported for this model.", "n");
}

/** Turns that alternate, as Anthropic's Messages and Bedrock's Converse want them: a turn of the role before it is
 *  merged into that one, and a turn without content is dropped (both vendors refuse one). */
export function alternatingTurns<Block>(): {
  turns: { role: "user" | "assistant"; content: Block[] }[];
  add: (role: "user" | "assistant", blocks: Block[]) => void;
} {
  const turns: { role: "user" | "assistant"; content: Block[] }[] = [];
  return {
    turns,
    add(role, blocks) {
      if (blocks.length === 0) return;
      const last = turns.at(-1);
      if (last && last.role === role) last.content.push(...blocks);
      else turns.push({ role, content: blocks });
    },
  };
}
