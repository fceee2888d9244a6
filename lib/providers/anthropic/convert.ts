// Pure converters between OpenAI Chat Completions and Anthropic Messages, both directions, for requests,
// responses and streams. Nothing here does I/O: handlers parse, call these, and write.
//
// OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create
//   streaming chunks:      https://platform.openai.com/docs/api-reference/chat-streaming
// Anthropic Messages:      https://docs.anthropic.com/en/api/messages
//   streaming events:      https://docs.anthropic.com/en/docs/build-with-claude/streaming
//   Anthropic's own mapping of the OpenAI fields: https://docs.anthropic.com/en/api/openai-sdk
//
// Wire formats are minimal, lenient zod schemas (unknown fields pass through, unknown block and event types
// are handled explicitly), so a new field upstream does not break the gateway.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { countTextTokens } from "@/lib/billing/tokens";
import { GatewayError } from "@/lib/errors";

// =============================================================================================
// Wire formats: OpenAI Chat Completions

const chatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** A content part; only its `type` is checked here, each converter checks the fields it reads. */
const chatContentPartSchema = z.looseObject({ type: z.string() });

export const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(chatContentPartSchema)]).nullish(),
  name: z.string().nullish(),
  tool_calls: z.array(chatToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
});

const chatToolSchema = z.looseObject({
  type: z.string(),
  function: z
    .looseObject({
      name: z.string(),
      description: z.string().nullish(),
      parameters: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    })
    .optional(),
});

const chatToolChoiceSchema = z.union([
  z.string(),
  z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() }),
]);

/** An OpenAI chat request as the gateway accepts it (lenient: fields it does not read pass through). */
export const chatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(chatMessageSchema).min(1),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.number().int().nullish(),
  user: z.string().nullish(),
  tools: z.array(chatToolSchema).nullish(),
  tool_choice: chatToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: z.looseObject({ type: z.string(), json_schema: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional() }).nullish(),
});
export type ChatRequestInput = z.infer<typeof chatRequestSchema>;
export type ChatMessageInput = z.infer<typeof chatMessageSchema>;

const chatUsageSchema = z.looseObject({
  prompt_tokens: z.number().default(0),
  completion_tokens: z.number().default(0),
  total_tokens: z.number().optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
});

/** An OpenAI `chat.completion` from an upstream. */
export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      message: z.looseObject({
        role: z.string().optional(),
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(chatToolCallSchema).nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: chatUsageSchema.nullish(),
});
export type ChatCompletionInput = z.infer<typeof chatCompletionSchema>;

/** An OpenAI `chat.completion.chunk` from an upstream. Every field is optional: providers differ. */
export const chatCompletionChunkSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            role: z.string().nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().optional(),
                  id: z.string().nullish(),
                  type: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
  error: z.unknown().optional(),
});
export type ChatCompletionChunkInput = z.infer<typeof chatCompletionChunkSchema>;

// What the gateway writes in the OpenAI dialect (field names and order as OpenAI sends them).

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export type ChatToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number; audio_tokens?: number; accepted_prediction_tokens?: number; rejected_prediction_tokens?: number };
}

export type ChatCompletion = {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: "assistant"; content: string | null; refusal: string | null; tool_calls?: ChatToolCall[]; annotations?: unknown[] };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }[];
  usage: ChatUsage;
  service_tier?: "default";
  system_fingerprint?: string;
}

export type ChatCompletionChunkDelta = {
  role?: "assistant";
  content?: string | null;
  refusal?: string | null;
  tool_calls?: { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } }[];
}

export type ChatCompletionChunk = {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  system_fingerprint?: string;
  choices: { index: number; delta: ChatCompletionChunkDelta; logprobs: null; finish_reason: ChatFinishReason | null }[];
  /** `null` on every chunk but the last when the client asked for `stream_options.include_usage`. */
  usage?: ChatUsage | null;
}

/** An OpenAI chat request as the gateway sends it to an OpenAI-compatible upstream. */
export type ChatRequestBody = {
  model: string;
  messages: ChatRequestMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  user?: string;
  tools?: { type: "function"; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  tool_choice?: "none" | "auto" | "required" | { type: "function"; function: { name: string } };
  parallel_tool_calls?: boolean;
  response_format?: { type: "json_schema"; json_schema: { name: string; schema: Record<string, unknown> } };
}

export type ChatRequestPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "file"; file: { filename: string; file_data: string } };

export type ChatRequestMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatRequestPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

// =============================================================================================
// Wire formats: Anthropic Messages

/** A content block; only its `type` is checked here, each converter checks the fields it reads. */
const messagesBlockSchema = z.looseObject({ type: z.string() });

const messagesTextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });

/** An Anthropic Messages request as the gateway accepts it (lenient: fields it does not read pass through). */
export const messagesRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  // "system" turns inside `messages` are newer than the top-level `system` field; both are accepted.
  messages: z.array(z.looseObject({ role: z.enum(["user", "assistant", "system"]), content: z.union([z.string(), z.array(messagesBlockSchema)]) })),
  system: z.union([z.string(), z.array(messagesTextBlockSchema)]).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  tools: z
    .array(
      z.looseObject({
        type: z.string().nullish(),
        name: z.string(),
        description: z.string().nullish(),
        input_schema: z.record(z.string(), z.unknown()).nullish(),
      }),
    )
    .nullish(),
  tool_choice: z.looseObject({ type: z.string(), name: z.string().optional(), disable_parallel_tool_use: z.boolean().nullish() }).nullish(),
  output_config: z.looseObject({ format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).optional() }).nullish() }).nullish(),
});
export type MessagesRequestInput = z.infer<typeof messagesRequestSchema>;

const messagesUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

/** An Anthropic `message` from an upstream. */
export const messagesResponseSchema = z.looseObject({
  id: z.string(),
  model: z.string().optional(),
  content: z.array(messagesBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: messagesUsageSchema,
});
export type MessagesResponseInput = z.infer<typeof messagesResponseSchema>;

const messagesStreamEventSchemas = {
  message_start: z.looseObject({ type: z.literal("message_start"), message: z.looseObject({ id: z.string(), model: z.string().optional(), usage: messagesUsageSchema.nullish() }) }),
  content_block_start: z.looseObject({ type: z.literal("content_block_start"), index: z.number(), content_block: messagesBlockSchema }),
  content_block_delta: z.looseObject({ type: z.literal("content_block_delta"), index: z.number(), delta: messagesBlockSchema }),
  content_block_stop: z.looseObject({ type: z.literal("content_block_stop"), index: z.number() }),
  message_delta: z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: messagesUsageSchema.nullish(),
  }),
  message_stop: z.looseObject({ type: z.literal("message_stop") }),
  ping: z.looseObject({ type: z.literal("ping") }),
  error: z.looseObject({ type: z.literal("error"), error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).nullish() }),
};

// What the gateway writes in the Anthropic dialect.

export type MessagesStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

export type MessagesContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type MessagesUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  service_tier?: "standard";
}

export type MessagesResponse = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: MessagesContentBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

/** The events of an Anthropic stream, each written as `event: <type>\ndata: <json>\n\n`. */
export type MessagesStreamEvent =
  | { type: "message_start"; message: MessagesResponse }
  | { type: "content_block_start"; index: number; content_block: { type: "text"; text: "" } | { type: "tool_use"; id: string; name: string; input: Record<string, never> } }
  | { type: "ping" }
  | { type: "content_block_delta"; index: number; delta: { type: "text_delta"; text: string } | { type: "input_json_delta"; partial_json: string } }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: MessagesStopReason; stop_sequence: string | null };
      usage: { output_tokens: number; input_tokens?: number; cache_read_input_tokens?: number };
    }
  | { type: "message_stop" };

type MessagesImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };

export type MessagesRequestBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: MessagesImageSource }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string | { type: "text"; text: string }[] };

/** An Anthropic Messages request as the gateway sends it to an Anthropic upstream. */
export type MessagesRequestBody = {
  model: string;
  max_tokens: number;
  messages: { role: "user" | "assistant"; content: string | MessagesRequestBlock[] }[];
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  metadata?: { user_id: string };
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean } | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };
  output_config?: { format: { type: "json_schema"; schema: Record<string, unknown> } };
}

// =============================================================================================
// Shared helpers

/** Default `max_tokens` when an OpenAI request sets none (Anthropic requires one). */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic accepts these image types (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
const ANTHROPIC_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

function withoutPrefix(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; other providers' ids may not. Applied the same way to
 * tool_use ids and tool_result references, so the pair still matches. */
function anthropicToolId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "toolu_empty" : cleaned;
}

function invalid(message: string, param: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

function upstreamInvalid(what: string): GatewayError {
  return new GatewayError("upstream_error", `The upstream sent a malformed ${what}.`);
}

/** Parses `value` with `schema` or throws a 400 naming the field, for request parts checked lazily. */
function requestField<T extends z.ZodType>(schema: T, value: unknown, param: string, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(`Invalid ${what} at ${param}.`, param);
  return result.data;
}

/** Splits a `data:` URI into its media type and base64 payload, without copying the payload twice. */
function parseDataUri(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma === -1) return null;
  const header = url.slice(5, comma).split(";");
  if (!header.includes("base64")) return null;
  const mediaType = (header[0] ?? "").toLowerCase();
  return { mediaType: mediaType === "image/jpg" ? "image/jpeg" : mediaType, data: url.slice(comma + 1) };
}

function textOfChatContent(content: ChatMessageInput["content"], param: string): string {
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

const textPartSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const refusalPartSchema = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
const imagePartSchema = z.looseObject({ type: z.literal("image_url"), image_url: z.looseObject({ url: z.string() }) });
const filePartSchema = z.looseObject({
  type: z.literal("file"),
  file: z.looseObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});

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
      if (dataUri?.mediaType === "application/pdf") return { type: "document", source: { type: "base64", media_type: "application/pdf", data: dataUri.data } };
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
  if (typeof choice === "object" && choice.type === "function" && choice.function) return { type: "tool", name: choice.function.name, ...noParallel };
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
        (message.tool_calls ?? []).forEach((call, callIndex) => blocks.push(toolCallToBlock(call, `${param}.tool_calls[${callIndex}]`)));
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
              : content.map((part, partIndex) => ({ type: "text" as const, text: requestField(textPartSchema, part, `${param}.content[${partIndex}]`, "text part").text })),
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
      if (tool.type !== "function" || !tool.function) throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
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

const textBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
const toolUseBlockSchema = z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() });

/**
 * An Anthropic message as an OpenAI `chat.completion`: text blocks joined into `content`, `tool_use` blocks as
 * `tool_calls`, thinking blocks dropped (Chat Completions has no place for them). `prompt_tokens` counts cached
 * input too, as OpenAI's does.
 */
export function messagesResponseToChat(message: MessagesResponseInput, publicModel: string, options: { created?: number } = {}): ChatCompletion {
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
      toolCalls.push({ id: parsed.data.id, type: "function", function: { name: parsed.data.name, arguments: JSON.stringify(parsed.data.input ?? {}) } });
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

/** Token usage read from a stream, for settlement. `inputTokens` includes cached input. */
export type StreamUsage = {
  inputTokens: number;
  outputTokens: number;
}

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
          return [this.chunk({ tool_calls: [{ index: toolIndex, id: block.data.id, type: "function", function: { name: block.data.name, arguments: "" } }] }, null)];
        }
        return []; // thinking, server tool results: nothing a Chat Completions client can show
      }
      case "content_block_delta": {
        const parsed = this.parse("content_block_delta", event);
        const delta = parsed.delta as { type: string; text?: unknown; partial_json?: unknown };
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") return [this.chunk({ content: delta.text }, null)];
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
        if (this.includeUsage) chunks.push({ ...this.chunk({}, null), choices: [], usage: chatUsage(this.inputTokens, this.outputTokens, this.cachedTokens) });
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

  private parse<K extends keyof typeof messagesStreamEventSchemas>(type: K, event: unknown): z.infer<(typeof messagesStreamEventSchemas)[K]> {
    const parsed = messagesStreamEventSchemas[type].safeParse(event);
    if (!parsed.success) throw upstreamInvalid(`${type} event`);
    if (!this.started && type !== "message_start" && type !== "error") throw upstreamInvalid("stream (an event before message_start)");
    return parsed.data as z.infer<(typeof messagesStreamEventSchemas)[K]>;
  }

  /** Usage counters are cumulative totals; a field that is absent keeps its earlier value. */
  private readUsage(usage: z.infer<typeof messagesUsageSchema> | null | undefined): void {
    if (!usage) return;
    if (usage.input_tokens !== undefined && usage.input_tokens !== null) this.inputTokens = anthropicInputTotal(usage);
    if (usage.cache_read_input_tokens !== undefined && usage.cache_read_input_tokens !== null) this.cachedTokens = usage.cache_read_input_tokens;
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
      return { type: "image_url", image_url: { url: source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url } };
    }
    case "document": {
      const document = requestField(documentBlockSchema, block, param, "document block");
      const source = document.source as { type: string; media_type?: string; data?: string };
      if (source.type === "text" && typeof source.data === "string") return { type: "text", text: source.data };
      if (source.type === "base64" && source.media_type === "application/pdf" && typeof source.data === "string") {
        return { type: "file", file: { filename: document.title ? `${document.title}.pdf` : "document.pdf", file_data: `data:application/pdf;base64,${source.data}` } };
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
      const text = typeof message.content === "string" ? message.content : message.content.map((block, blockIndex) => requestField(textBlockSchema, block, `${param}[${blockIndex}]`, "text block").text).join("\n\n");
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
      messages.push({ role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
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
      if (tool.type && tool.type !== "custom") throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      return {
        type: "function" as const,
        function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.input_schema ?? { type: "object", properties: {} } },
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
  if (format?.type === "json_schema" && format.schema) request.response_format = { type: "json_schema", json_schema: { name: "output", schema: format.schema } };
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
    content.push({ type: "tool_use", id: anthropicToolId(call.id), name: call.function.name, input: parseToolInput(call.function.arguments) });
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

  constructor(options: { publicModel: string; inputTokens?: number; id?: string }) {
    this.publicModel = options.publicModel;
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
        events.push({ type: "content_block_delta", index: known.blockIndex, delta: { type: "input_json_delta", partial_json: argumentsText } });
      }
    }
    if (choice?.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.closeBlock(events);
    }
    if (this.finishReason !== null && this.outputTokens !== null) this.close(events);
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
        ...(this.inputTokens !== null ? { input_tokens: Math.max(0, this.inputTokens - this.cachedTokens), cache_read_input_tokens: this.cachedTokens } : {}),
      },
    });
    events.push({ type: "message_stop" });
    this.closed = true;
  }

  private countGenerated(): number {
    return countTextTokens(this.generated);
  }
}
