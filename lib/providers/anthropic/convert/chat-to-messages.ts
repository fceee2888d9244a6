// A Chat Completions request served by an Anthropic Messages upstream: the request converted to Messages, the
// message and its stream converted back to chat.completion and chunks. Pure: handlers parse, call these, and write.
// Anthropic's own mapping of the OpenAI fields: https://docs.anthropic.com/en/api/openai-sdk
import type { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import {
  ANTHROPIC_IMAGE_TYPES,
  type StreamUsage,
  textBlockSchema,
  toolUseBlockSchema,
  anthropicToolId,
  DEFAULT_MAX_TOKENS,
  filePartSchema,
  imagePartSchema,
  invalid,
  nowSeconds,
  parseDataUri,
  randomId,
  requestField,
  textOfChatContent,
  textPartSchema,
  upstreamInvalid,
  withoutPrefix,
} from "./common";
import {
  type MessagesRequestBlock,
  type MessagesRequestBody,
  type MessagesResponseInput,
  messagesStreamEventSchemas,
  type messagesUsageSchema,
} from "@/lib/wire/anthropic-messages";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  chatContentPartSchema,
  ChatFinishReason,
  ChatRequestInput,
  ChatToolCall,
  chatToolCallSchema,
  ChatUsage,
} from "@/lib/wire/openai-chat";

// =============================================================================================
// OpenAI chat request → Anthropic Messages request

function userPartToBlock(part: z.infer<typeof chatContentPartSchema>, param: string): MessagesRequestBlock | null {
  switch (part.type) {
    case "text": {
      const { text } = requestField(textPartSchema, part, param, "text part");
      return text === "" ? null : { type: "text", text };
    }
    case "image_url": {
      const { url } = requestField(imagePartSchema, part, param, "image part").image_url;
      const dataUri = parseDataUri(url);
      if (dataUri) {
        if (!ANTHROPIC_IMAGE_TYPES.has(dataUri.mediaType)) {
          throw invalid(`Images must be JPEG, PNG, GIF or WebP; got "${dataUri.mediaType}".`, `${param}.image_url.url`);
        }
        return { type: "image", source: { type: "base64", media_type: dataUri.mediaType, data: dataUri.data } };
      }
      // The upstream fetches an http(s) image itself; the gateway never does (security rule 21).
      if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
      throw invalid("An image URL must be a base64 data URI or an http(s) URL.", `${param}.image_url.url`);
    }
    case "file": {
      const { file } = requestField(filePartSchema, part, param, "file part");
      const dataUri = file.file_data ? parseDataUri(file.file_data) : null;
      if (dataUri?.mediaType === "application/pdf")
        return { type: "document", source: { type: "base64", media_type: "application/pdf", data: dataUri.data } };
      throw invalid("Only PDF files sent inline as a base64 data URI are supported for this model.", `${param}.file`);
    }
    default:
      throw invalid(`Content parts of type "${part.type}" are not supported for this model.`, `${param}.type`);
  }
}

function toolCallToBlock(call: z.infer<typeof chatToolCallSchema>, param: string): MessagesRequestBlock {
  let input: unknown = {};
  if (call.function.arguments.trim() !== "") {
    try {
      input = JSON.parse(call.function.arguments);
    } catch {
      throw invalid("Tool call arguments must be a JSON object.", `${param}.function.arguments`);
    }
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalid("Tool call arguments must be a JSON object.", `${param}.function.arguments`);
  }
  return { type: "tool_use", id: anthropicToolId(call.id), name: call.function.name, input: input as Record<string, unknown> };
}

function mapToolChoice(
  choice: ChatRequestInput["tool_choice"],
  parallel: boolean | null | undefined,
): MessagesRequestBody["tool_choice"] | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null) return parallel === false ? { type: "auto", disable_parallel_tool_use: true } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...noParallel };
  if (choice === "required") return { type: "any", ...noParallel };
  if (typeof choice === "object" && choice.type === "function" && choice.function)
    return { type: "tool", name: choice.function.name, ...noParallel };
  throw invalid("tool_choice must be none, auto, required or a named function.", "tool_choice");
}

/**
 * An OpenAI chat request as an Anthropic Messages request (https://docs.anthropic.com/en/api/openai-sdk lists the
 * same mapping). System and developer messages become `system`; tool results become `tool_result` blocks in a user
 * turn; consecutive turns of one role are merged, as Anthropic expects alternating turns; `temperature` is capped
 * at 1 (Anthropic's range) and `top_p` is dropped when `temperature` is set (recent Claude models reject both).
 * Fields with no Anthropic equivalent (seed, penalties, logprobs, json_object) are ignored; `n` above 1 is refused.
 */
export function chatRequestToMessages(body: ChatRequestInput, upstreamModel: string): MessagesRequestBody {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw invalid("Only n=1 is supported for this model.", "n");

  const system: string[] = [];
  const turns: { role: "user" | "assistant"; content: MessagesRequestBlock[] }[] = [];
  const addTurn = (role: "user" | "assistant", blocks: MessagesRequestBlock[]) => {
    if (blocks.length === 0) return; // Anthropic rejects empty turns
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };

  body.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOfChatContent(message.content, `${param}.content`);
        if (text !== "") system.push(text);
        return;
      }
      case "user": {
        const content = message.content ?? "";
        const blocks =
          typeof content === "string"
            ? content === ""
              ? []
              : [{ type: "text" as const, text: content }]
            : content.map((part, partIndex) => userPartToBlock(part, `${param}.content[${partIndex}]`)).filter((block) => block !== null);
        addTurn("user", blocks);
        return;
      }
      case "assistant": {
        const text = textOfChatContent(message.content, `${param}.content`);
        const blocks: MessagesRequestBlock[] = text === "" ? [] : [{ type: "text", text }];
        for (const [callIndex, call] of (message.tool_calls ?? []).entries())
          blocks.push(toolCallToBlock(call, `${param}.tool_calls[${callIndex}]`));
        addTurn("assistant", blocks);
        return;
      }
      case "tool": {
        if (!message.tool_call_id) throw invalid("A tool message needs tool_call_id.", `${param}.tool_call_id`);
        const content = message.content ?? "";
        const result: MessagesRequestBlock = {
          type: "tool_result",
          tool_use_id: anthropicToolId(message.tool_call_id),
          content:
            typeof content === "string"
              ? content
              : content.map((part, partIndex) => ({
                  type: "text" as const,
                  text: requestField(textPartSchema, part, `${param}.content[${partIndex}]`, "text part").text,
                })),
        };
        addTurn("user", [result]);
        return;
      }
      default:
        throw invalid(`Messages with role "${message.role}" are not supported for this model.`, `${param}.role`);
    }
  });
  if (turns.length === 0) throw invalid("At least one message must have non-empty content.", "messages");

  const request: MessagesRequestBody = {
    model: upstreamModel,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
    // A single text block is sent as a plain string: shorter, and what every Anthropic version accepts.
    messages: turns.map((turn) => {
      const only = turn.content.length === 1 ? turn.content[0] : undefined;
      return { role: turn.role, content: only?.type === "text" ? only.text : turn.content };
    }),
  };
  if (system.length > 0) request.system = system.join("\n\n");
  if (body.temperature !== undefined && body.temperature !== null) request.temperature = Math.min(1, Math.max(0, body.temperature));
  else if (body.top_p !== undefined && body.top_p !== null) request.top_p = body.top_p;
  if (body.stop !== undefined && body.stop !== null) {
    // Anthropic rejects stop sequences that are only whitespace.
    const stops = (typeof body.stop === "string" ? [body.stop] : body.stop).filter((stop) => stop.trim() !== "");
    if (stops.length > 0) request.stop_sequences = stops;
  }
  if (body.stream) request.stream = true;
  if (body.user) request.metadata = { user_id: body.user };
  if (body.tools && body.tools.length > 0) {
    request.tools = body.tools.map((tool, index) => {
      if (tool.type !== "function" || !tool.function)
        throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      return {
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        input_schema: tool.function.parameters ?? { type: "object", properties: {} },
      };
    });
    const toolChoice = mapToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (toolChoice) request.tool_choice = toolChoice;
  }
  // Structured outputs (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs). json_object has no
  // equivalent and is ignored, as Anthropic's own OpenAI compatibility layer does.
  const schema = body.response_format?.type === "json_schema" ? body.response_format.json_schema?.schema : undefined;
  if (schema) request.output_config = { format: { type: "json_schema", schema } };
  return request;
}

// =============================================================================================
// Anthropic message → OpenAI chat.completion

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
function anthropicInputTotal(usage: z.infer<typeof messagesUsageSchema> | null | undefined): number {
  if (!usage) return 0;
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

function chatUsage(promptTokens: number, completionTokens: number, cachedTokens: number): ChatUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/**
 * An Anthropic message as an OpenAI `chat.completion`: text blocks joined into `content`, `tool_use` blocks as
 * `tool_calls`, thinking blocks dropped (Chat Completions has no place for them). `prompt_tokens` counts cached
 * input too, as OpenAI's does.
 */
export function messagesResponseToChat(
  message: MessagesResponseInput,
  publicModel: string,
  options: { created?: number } = {},
): ChatCompletion {
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      const parsed = textBlockSchema.safeParse(block);
      if (!parsed.success) throw upstreamInvalid("text block");
      text += parsed.data.text;
    } else if (block.type === "tool_use") {
      const parsed = toolUseBlockSchema.safeParse(block);
      if (!parsed.success) throw upstreamInvalid("tool_use block");
      toolCalls.push({
        id: parsed.data.id,
        type: "function",
        function: { name: parsed.data.name, arguments: JSON.stringify(parsed.data.input ?? {}) },
      });
    }
  }
  const promptTokens = anthropicInputTotal(message.usage);
  const completionTokens = message.usage.output_tokens ?? 0;
  return {
    id: `chatcmpl-${withoutPrefix(message.id, "msg_")}`,
    object: "chat.completion",
    created: options.created ?? nowSeconds(),
    model: publicModel,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          // OpenAI sends null content when the reply is only tool calls.
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: chatFinishReason(message.stop_reason),
      },
    ],
    usage: chatUsage(promptTokens, completionTokens, message.usage.cache_read_input_tokens ?? 0),
  };
}

// =============================================================================================
// Anthropic stream → OpenAI chunks

/**
 * Turns Anthropic stream events into OpenAI `chat.completion.chunk`s, one event at a time.
 * Feed `push()` each parsed `data:` payload (JSON.parse of the SSE data) in order; write each returned chunk as
 * `data: <json>\n\n`, then `data: [DONE]\n\n` once `completed` is true. With `includeUsage` (the client's
 * `stream_options.include_usage`), every chunk carries `usage: null` and a final chunk with empty `choices`
 * carries the usage, as OpenAI does. An `error` event throws a GatewayError("upstream_error").
 */
export class MessagesStreamToChat {
  private readonly publicModel: string;
  private readonly includeUsage: boolean;
  private readonly created: number;
  private id = randomId("chatcmpl-");
  private inputTokens = 0;
  private outputTokens = 0;
  private cachedTokens = 0;
  /** Anthropic block index → OpenAI tool_calls index, for tool_use blocks. */
  private readonly toolIndexes = new Map<number, number>();
  private started = false;
  private finished = false;

  constructor(options: { publicModel: string; includeUsage?: boolean; created?: number }) {
    this.publicModel = options.publicModel;
    this.includeUsage = options.includeUsage ?? false;
    this.created = options.created ?? nowSeconds();
  }

  /** True once `message_stop` arrived: the upstream finished the message. */
  get completed(): boolean {
    return this.finished;
  }

  usage(): StreamUsage {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
  }

  push(event: unknown): ChatCompletionChunk[] {
    const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
    switch (type) {
      case "message_start": {
        const parsed = this.parse("message_start", event);
        this.id = `chatcmpl-${withoutPrefix(parsed.message.id, "msg_")}`;
        this.readUsage(parsed.message.usage);
        this.started = true;
        return [this.chunk({ role: "assistant", content: "", refusal: null }, null)];
      }
      case "content_block_start": {
        const parsed = this.parse("content_block_start", event);
        if (parsed.content_block.type === "text") {
          const block = textBlockSchema.safeParse(parsed.content_block);
          // The opening text is almost always empty; send it only when it is not.
          return block.success && block.data.text !== "" ? [this.chunk({ content: block.data.text }, null)] : [];
        }
        if (parsed.content_block.type === "tool_use") {
          const block = toolUseBlockSchema.safeParse(parsed.content_block);
          if (!block.success) throw upstreamInvalid("tool_use block");
          const toolIndex = this.toolIndexes.size;
          this.toolIndexes.set(parsed.index, toolIndex);
          return [
            this.chunk(
              {
                tool_calls: [{ index: toolIndex, id: block.data.id, type: "function", function: { name: block.data.name, arguments: "" } }],
              },
              null,
            ),
          ];
        }
        return []; // thinking, server tool results: nothing a Chat Completions client can show
      }
      case "content_block_delta": {
        const parsed = this.parse("content_block_delta", event);
        const delta = parsed.delta as { type: string; text?: unknown; partial_json?: unknown };
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "")
          return [this.chunk({ content: delta.text }, null)];
        if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json !== "") {
          const toolIndex = this.toolIndexes.get(parsed.index);
          if (toolIndex === undefined) return [];
          return [this.chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] }, null)];
        }
        return [];
      }
      case "message_delta": {
        const parsed = this.parse("message_delta", event);
        this.readUsage(parsed.usage);
        // message_delta comes once, at the end, with the final usage: the finish chunk and the usage chunk follow.
        const chunks = [this.chunk({}, chatFinishReason(parsed.delta.stop_reason))];
        if (this.includeUsage)
          chunks.push({ ...this.chunk({}, null), choices: [], usage: chatUsage(this.inputTokens, this.outputTokens, this.cachedTokens) });
        return chunks;
      }
      case "message_stop":
        this.finished = true;
        return [];
      case "error": {
        const parsed = this.parse("error", event);
        // Only the error type is passed on: upstream messages may carry details of the channel's account.
        throw new GatewayError("upstream_error", `The upstream failed mid-stream (${parsed.error?.type ?? "error"}).`);
      }
      default: // content_block_stop, ping, and event types added after this was written
        return [];
    }
  }

  private parse<K extends keyof typeof messagesStreamEventSchemas>(
    type: K,
    event: unknown,
  ): z.infer<(typeof messagesStreamEventSchemas)[K]> {
    const parsed = messagesStreamEventSchemas[type].safeParse(event);
    if (!parsed.success) throw upstreamInvalid(`${type} event`);
    if (!this.started && type !== "message_start" && type !== "error") throw upstreamInvalid("stream (an event before message_start)");
    return parsed.data as z.infer<(typeof messagesStreamEventSchemas)[K]>;
  }

  /** Usage counters are cumulative totals; a field that is absent keeps its earlier value. */
  private readUsage(usage: z.infer<typeof messagesUsageSchema> | null | undefined): void {
    if (!usage) return;
    if (usage.input_tokens !== undefined && usage.input_tokens !== null) this.inputTokens = anthropicInputTotal(usage);
    if (usage.cache_read_input_tokens !== undefined && usage.cache_read_input_tokens !== null)
      this.cachedTokens = usage.cache_read_input_tokens;
    if (usage.output_tokens !== undefined && usage.output_tokens !== null) this.outputTokens = usage.output_tokens;
  }

  private chunk(delta: ChatCompletionChunkDelta, finishReason: ChatFinishReason | null): ChatCompletionChunk {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.publicModel,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.includeUsage ? { usage: null } : {}),
    };
  }
}
