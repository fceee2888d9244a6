// OpenAI Chat Completions on the wire: lenient zod schemas for what the gateway reads (unknown fields pass through,
// so a new field upstream does not break the gateway) and the exact types of what it writes.
//   https://platform.openai.com/docs/api-reference/chat/create
//   streaming chunks: https://platform.openai.com/docs/api-reference/chat-streaming
import { z } from "zod";

export const chatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** A content part; only its `type` is checked here, each converter checks the fields it reads. */
export const chatContentPartSchema = z.looseObject({ type: z.string() });

/** The largest output cap a request may ask for (`max_tokens`, `max_completion_tokens`). */
export const MAX_OUTPUT_CAP = 1_000_000;

/** A message as /v1/chat/completions checks it: its role and the shape of its content. */
const chatEndpointMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
    message: "must be one of system, developer, user, assistant, tool",
  }),
  content: z.union([z.string(), z.array(chatContentPartSchema), z.null()]).optional(),
});

/**
 * A chat request as /v1/chat/completions checks it on arrival (lib/gateway/text-request.ts): what the gateway needs
 * to reserve and route, each with the message a client sees; everything else is passed on to the upstream.
 */
export const chatEndpointRequestSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  messages: z.array(chatEndpointMessageSchema, { message: "must be an array of messages" }).min(1, "must hold at least one message"),
  max_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().min(1).max(1, "must be 1: the gateway returns one choice").nullable().optional(),
});

/** A message with the fields a conversion reads besides (tool calls and their results). */
export const chatMessageSchema = chatEndpointMessageSchema.extend({
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

/**
 * A chat request as a conversion reads it (lib/dialects/convert/chat-to-messages.ts): the endpoint's request with the
 * fields the conversion maps checked too (lenient: fields it does not read pass through).
 */
export const chatRequestSchema = chatEndpointRequestSchema.extend({
  messages: z.array(chatMessageSchema, { message: "must be an array of messages" }).min(1, "must hold at least one message"),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  user: z.string().nullish(),
  // The endpoint refuses n > 1 already; the conversion keeps its own refusal for a caller that did not check it.
  n: z.number().int().nullish(),
  tools: z.array(chatToolSchema).nullish(),
  tool_choice: chatToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: z
    .looseObject({ type: z.string(), json_schema: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional() })
    .nullish(),
});
export type ChatRequestInput = z.infer<typeof chatRequestSchema>;
export type ChatMessageInput = z.infer<typeof chatMessageSchema>;

/** Chat usage as an upstream reports it: a count that did not come stays absent (the relay then meters instead). */
export const chatUsageReportSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
});

/** A whole completion's usage, the counts it lacks read as 0. */
const chatUsageSchema = chatUsageReportSchema.extend({ prompt_tokens: z.number().default(0), completion_tokens: z.number().default(0) });

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
  usage: chatUsageReportSchema.nullish(),
  error: z.unknown().optional(),
});
export type ChatCompletionChunkInput = z.infer<typeof chatCompletionChunkSchema>;

// What the gateway writes in the OpenAI dialect (field names and order as OpenAI sends them).

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export type ChatToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

export type ChatUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; audio_tokens?: number };
  completion_tokens_details?: {
    reasoning_tokens: number;
    audio_tokens?: number;
    accepted_prediction_tokens?: number;
    rejected_prediction_tokens?: number;
  };
};

export type ChatCompletion = {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: "assistant";
      content: string | null;
      refusal: string | null;
      tool_calls?: ChatToolCall[];
      annotations?: unknown[];
      /** The reasoning a vendor outside OpenAI showed (Gemini's thoughts, Converse's reasoning): the field
       *  OpenAI-compatible servers use for it, which the meter counts (lib/money/meter.ts). */
      reasoning_content?: string;
    };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }[];
  usage: ChatUsage;
  service_tier?: "default";
  system_fingerprint?: string;
};

export type ChatCompletionChunkDelta = {
  role?: "assistant";
  content?: string | null;
  /** As on the message. */
  reasoning_content?: string;
  refusal?: string | null;
  tool_calls?: { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } }[];
};

export type ChatCompletionChunk = {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  system_fingerprint?: string;
  choices: { index: number; delta: ChatCompletionChunkDelta; logprobs: null; finish_reason: ChatFinishReason | null }[];
  /** `null` on every chunk but the last when the client asked for `stream_options.include_usage`. */
  usage?: ChatUsage | null;
};

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
};

export type ChatRequestPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "file"; file: { filename: string; file_data: string } };

export type ChatRequestMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatRequestPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };
