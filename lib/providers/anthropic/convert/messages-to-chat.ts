// A Messages request served by an OpenAI Chat Completions upstream (or the simulator): the request converted to
// Chat Completions, the completion and its chunks converted back to a message and Messages events. Pure.
import { z } from "zod";
import { countTextTokens } from "@/lib/money/tokens";
import { GatewayError } from "@/lib/platform/errors";
import {
  anthropicToolId,
  invalid,
  messagesStopReason,
  randomId,
  requestField,
  type StreamUsage,
  textBlockSchema,
  toolUseBlockSchema,
  upstreamInvalid,
  withoutPrefix,
} from "./common";
import {
  messagesBlockSchema,
  type MessagesContentBlock,
  type MessagesRequestInput,
  type MessagesResponse,
  type MessagesStreamEvent,
} from "@/lib/wire/anthropic-messages";
import {
  chatCompletionChunkSchema,
  type ChatCompletionInput,
  type ChatRequestBody,
  type ChatRequestMessage,
  type ChatRequestPart,
  type ChatToolCall,
} from "@/lib/wire/openai-chat";

// =============================================================================================
// Anthropic Messages request → OpenAI chat request

const imageBlockSchema = z.looseObject({
  type: z.literal("image"),
  source: z.union([
    z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal("url"), url: z.string() }),
  ]),
});
const documentBlockSchema = z.looseObject({
  type: z.literal("document"),
  title: z.string().nullish(),
  source: z.union([
    z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal("text"), data: z.string() }),
    z.looseObject({ type: z.string() }),
  ]),
});
const toolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(messagesBlockSchema)]).nullish(),
  is_error: z.boolean().nullish(),
});

function blockToPart(block: z.infer<typeof messagesBlockSchema>, param: string): ChatRequestPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: requestField(textBlockSchema, block, param, "text block").text };
    case "image": {
      const { source } = requestField(imageBlockSchema, block, param, "image block");
      return {
        type: "image_url",
        image_url: { url: source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url },
      };
    }
    case "document": {
      const document = requestField(documentBlockSchema, block, param, "document block");
      const source = document.source as { type: string; media_type?: string; data?: string };
      if (source.type === "text" && typeof source.data === "string") return { type: "text", text: source.data };
      if (source.type === "base64" && source.media_type === "application/pdf" && typeof source.data === "string") {
        return {
          type: "file",
          file: {
            filename: document.title ? `${document.title}.pdf` : "document.pdf",
            file_data: `data:application/pdf;base64,${source.data}`,
          },
        };
      }
      throw invalid("Only PDF documents sent inline as base64, or plain-text documents, are supported for this model.", `${param}.source`);
    }
    default:
      throw invalid(`Content blocks of type "${block.type}" are not supported for this model.`, `${param}.type`);
  }
}

/**
 * An Anthropic Messages request as an OpenAI chat request: `system` becomes the first message; `tool_result` blocks
 * become `tool` messages placed right after the assistant turn that called them (images in a tool result follow in
 * a user message, since tool messages carry text only); thinking blocks are dropped; `top_k` and `thinking` have no
 * OpenAI equivalent and are ignored. Streaming requests always ask for `stream_options.include_usage`, so usage can
 * be read from the stream. `maxTokensField` picks `max_completion_tokens` (OpenAI's current name; reasoning
 * models reject the other) or `max_tokens` (older OpenAI-compatible servers).
 */
export function chatRequestFromMessages(
  body: MessagesRequestInput,
  upstreamModel: string,
  options: { maxTokensField?: "max_completion_tokens" | "max_tokens" } = {},
): ChatRequestBody {
  const messages: ChatRequestMessage[] = [];
  if (body.system !== undefined && body.system !== null) {
    const system = typeof body.system === "string" ? body.system : body.system.map((block) => block.text).join("\n\n");
    if (system !== "") messages.push({ role: "system", content: system });
  }

  body.messages.forEach((message, index) => {
    const param = `messages[${index}].content`;
    if (message.role === "system") {
      const text =
        typeof message.content === "string"
          ? message.content
          : message.content
              .map((block, blockIndex) => requestField(textBlockSchema, block, `${param}[${blockIndex}]`, "text block").text)
              .join("\n\n");
      if (text !== "") messages.push({ role: "system", content: text });
      return;
    }
    if (message.role === "assistant") {
      if (typeof message.content === "string") {
        messages.push({ role: "assistant", content: message.content });
        return;
      }
      let text = "";
      const toolCalls: ChatToolCall[] = [];
      message.content.forEach((block, blockIndex) => {
        const blockParam = `${param}[${blockIndex}]`;
        if (block.type === "text") text += requestField(textBlockSchema, block, blockParam, "text block").text;
        else if (block.type === "tool_use") {
          const call = requestField(toolUseBlockSchema, block, blockParam, "tool_use block");
          toolCalls.push({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } });
        } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
          throw invalid(`Content blocks of type "${block.type}" are not supported for this model.`, `${blockParam}.type`);
        }
      });
      messages.push({
        role: "assistant",
        content: text === "" && toolCalls.length > 0 ? null : text,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
      return;
    }

    if (typeof message.content === "string") {
      messages.push({ role: "user", content: message.content });
      return;
    }
    const parts: ChatRequestPart[] = [];
    message.content.forEach((block, blockIndex) => {
      const blockParam = `${param}[${blockIndex}]`;
      if (block.type !== "tool_result") {
        parts.push(blockToPart(block, blockParam));
        return;
      }
      const result = requestField(toolResultBlockSchema, block, blockParam, "tool_result block");
      let text = "";
      if (typeof result.content === "string") text = result.content;
      else {
        (result.content ?? []).forEach((inner, innerIndex) => {
          const part = blockToPart(inner, `${blockParam}.content[${innerIndex}]`);
          if (part.type === "text") text += (text === "" ? "" : "\n") + part.text;
          else parts.push(part);
        });
      }
      messages.push({ role: "tool", tool_call_id: result.tool_use_id, content: text });
    });
    if (parts.length > 0) messages.push({ role: "user", content: parts });
  });

  const request: ChatRequestBody = { model: upstreamModel, messages };
  request[options.maxTokensField ?? "max_completion_tokens"] = body.max_tokens;
  if (body.temperature !== undefined && body.temperature !== null) request.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) request.top_p = body.top_p;
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (body.stream) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  if (body.tools && body.tools.length > 0) {
    request.tools = body.tools.map((tool, index) => {
      // Anthropic's server tools (web search, code execution, …) run inside Anthropic; no OpenAI equivalent.
      if (tool.type && tool.type !== "custom")
        throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      return {
        type: "function" as const,
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.input_schema ?? { type: "object", properties: {} },
        },
      };
    });
    const choice = body.tool_choice;
    if (choice) {
      if (choice.type === "auto") request.tool_choice = "auto";
      else if (choice.type === "any") request.tool_choice = "required";
      else if (choice.type === "none") request.tool_choice = "none";
      else if (choice.type === "tool" && choice.name) request.tool_choice = { type: "function", function: { name: choice.name } };
      else throw invalid("tool_choice must be auto, any, none or a named tool.", "tool_choice");
      if (choice.disable_parallel_tool_use) request.parallel_tool_calls = false;
    }
  }
  const format = body.output_config?.format;
  if (format?.type === "json_schema" && format.schema)
    request.response_format = { type: "json_schema", json_schema: { name: "output", schema: format.schema } };
  return request;
}

// =============================================================================================
// OpenAI chat.completion → Anthropic message

function parseToolInput(argumentsText: string): Record<string, unknown> {
  try {
    const input: unknown = JSON.parse(argumentsText === "" ? "{}" : argumentsText);
    if (typeof input === "object" && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  } catch {
    // Models occasionally emit invalid JSON; Anthropic clients expect an object, so an empty one stands in.
  }
  return {};
}

/**
 * An OpenAI `chat.completion` as an Anthropic message: content and refusal as a text block, tool calls as
 * `tool_use` blocks, finish_reason mapped back (see `messagesStopReason`). Anthropic's `input_tokens` excludes
 * cache reads, so cached tokens move to `cache_read_input_tokens`.
 */
export function chatResponseToMessage(completion: ChatCompletionInput, publicModel: string): MessagesResponse {
  const choice = completion.choices[0];
  if (!choice) throw upstreamInvalid("chat completion (no choices)");
  const content: MessagesContentBlock[] = [];
  const text = choice.message.content ?? choice.message.refusal ?? "";
  if (text !== "") content.push({ type: "text", text });
  for (const call of choice.message.tool_calls ?? []) {
    content.push({
      type: "tool_use",
      id: anthropicToolId(call.id),
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    });
  }
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    id: `msg_${withoutPrefix(completion.id, "chatcmpl-")}`,
    type: "message",
    role: "assistant",
    model: publicModel,
    content,
    stop_reason: messagesStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: {
      input_tokens: Math.max(0, (completion.usage?.prompt_tokens ?? 0) - cached),
      output_tokens: completion.usage?.completion_tokens ?? 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    },
  };
}

// =============================================================================================
// OpenAI chunks → Anthropic stream

/**
 * Turns OpenAI `chat.completion.chunk`s into Anthropic stream events, in the order Anthropic sends them:
 * message_start, then per content block content_block_start, content_block_delta…, content_block_stop, then
 * message_delta (stop_reason, usage) and message_stop. Write each event as `event: <type>\ndata: <json>\n\n`.
 *
 * Feed `push()` each parsed `data:` payload (not `[DONE]`). The closing events come as soon as both the finish
 * reason and the usage are known (OpenAI sends usage in a last chunk with empty choices when asked with
 * `stream_options.include_usage`); call `finish()` when the upstream stream ends cleanly to close a message whose
 * upstream never sent usage (output tokens are then counted from the text). A stream that was cut should not be
 * finished: send an error event instead. `inputTokens` is the estimate shown in message_start (OpenAI reports
 * input only at the end); message_delta carries the real count.
 */
export class ChatStreamToMessages {
  private readonly publicModel: string;
  private readonly id: string;
  private readonly estimatedInputTokens: number;
  private inputTokens: number | null = null;
  private outputTokens: number | null = null;
  private cachedTokens = 0;
  private started = false;
  private closed = false;
  private finishReason: string | null = null;
  private nextBlockIndex = 0;
  private openBlock: { index: number; kind: "text" } | { index: number; kind: "tool"; toolIndex: number } | null = null;
  /** OpenAI tool_calls index → Anthropic block index and the call's id. */
  private readonly toolBlocks = new Map<number, { blockIndex: number; id: string | null }>();
  /** Text and tool arguments generated, to count output tokens when the upstream reports none. */
  private generated = "";

  /** The closing events wait for `finish()` (the upstream's [DONE]) rather than going out with the usage. */
  private readonly holdEnd: boolean;

  constructor(options: { publicModel: string; inputTokens?: number; id?: string; holdEnd?: boolean }) {
    this.publicModel = options.publicModel;
    this.holdEnd = options.holdEnd ?? false;
    this.estimatedInputTokens = options.inputTokens ?? 0;
    this.id = options.id ?? randomId("msg_");
  }

  /** True once message_stop was produced. */
  get completed(): boolean {
    return this.closed;
  }

  /** Upstream-reported usage when it came; otherwise the input estimate and the output counted from the text. */
  usage(): StreamUsage {
    return { inputTokens: this.inputTokens ?? this.estimatedInputTokens, outputTokens: this.outputTokens ?? this.countGenerated() };
  }

  push(input: unknown): MessagesStreamEvent[] {
    if (this.closed) return [];
    const parsed = chatCompletionChunkSchema.safeParse(input);
    if (!parsed.success) throw upstreamInvalid("chat completion chunk");
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) throw new GatewayError("upstream_error", "The upstream failed mid-stream.");

    const events: MessagesStreamEvent[] = [];
    this.start(events);
    if (chunk.usage) {
      this.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.inputTokens = chunk.usage.prompt_tokens;
      this.outputTokens = chunk.usage.completion_tokens;
    }
    // Only the first choice is converted; Anthropic has no `n`.
    const choice = (chunk.choices ?? []).find((candidate) => (candidate.index ?? 0) === 0);
    const delta = choice?.delta;
    const text = delta?.content || delta?.refusal || "";
    if (text !== "") {
      if (this.openBlock?.kind !== "text") {
        this.closeBlock(events);
        this.openBlock = { index: this.nextBlockIndex++, kind: "text" };
        events.push({ type: "content_block_start", index: this.openBlock.index, content_block: { type: "text", text: "" } });
      }
      this.generated += text;
      events.push({ type: "content_block_delta", index: this.openBlock.index, delta: { type: "text_delta", text } });
    }
    for (const call of delta?.tool_calls ?? []) {
      const toolIndex = call.index ?? 0;
      let known = this.toolBlocks.get(toolIndex);
      // A new call: an unseen index, or (some providers reuse index 0) a different id.
      if (!known || (call.id && known.id && call.id !== known.id)) {
        this.closeBlock(events);
        const id = call.id ? anthropicToolId(call.id) : randomId("toolu_");
        known = { blockIndex: this.nextBlockIndex++, id: call.id ?? null };
        this.toolBlocks.set(toolIndex, known);
        this.openBlock = { index: known.blockIndex, kind: "tool", toolIndex };
        const name = call.function?.name ?? "";
        this.generated += name;
        events.push({ type: "content_block_start", index: known.blockIndex, content_block: { type: "tool_use", id, name, input: {} } });
      }
      const argumentsText = call.function?.arguments ?? "";
      if (argumentsText !== "") {
        this.generated += argumentsText;
        events.push({
          type: "content_block_delta",
          index: known.blockIndex,
          delta: { type: "input_json_delta", partial_json: argumentsText },
        });
      }
    }
    if (choice?.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.closeBlock(events);
    }
    if (this.finishReason !== null && this.outputTokens !== null && !this.holdEnd) this.close(events);
    return events;
  }

  /** Closes the message when the upstream stream ended cleanly ([DONE]) without usage or without a finish reason. */
  finish(): MessagesStreamEvent[] {
    if (this.closed) return [];
    const events: MessagesStreamEvent[] = [];
    this.start(events);
    this.closeBlock(events);
    this.close(events);
    return events;
  }

  private start(events: MessagesStreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({
      type: "message_start",
      message: {
        id: this.id,
        type: "message",
        role: "assistant",
        model: this.publicModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: this.estimatedInputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
  }

  private closeBlock(events: MessagesStreamEvent[]): void {
    if (this.openBlock === null) return;
    events.push({ type: "content_block_stop", index: this.openBlock.index });
    this.openBlock = null;
  }

  private close(events: MessagesStreamEvent[]): void {
    this.closeBlock(events);
    const usage = this.usage();
    events.push({
      type: "message_delta",
      delta: { stop_reason: messagesStopReason(this.finishReason), stop_sequence: null },
      usage: {
        output_tokens: usage.outputTokens,
        // Anthropic's SDK replaces the message_start estimate with these when present.
        ...(this.inputTokens !== null
          ? { input_tokens: Math.max(0, this.inputTokens - this.cachedTokens), cache_read_input_tokens: this.cachedTokens }
          : {}),
      },
    });
    events.push({ type: "message_stop" });
    this.closed = true;
  }

  private countGenerated(): number {
    return countTextTokens(this.generated);
  }
}
