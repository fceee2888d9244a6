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
  response_format: z
    .looseObject({ type: z.string(), json_schema: z.looseObject({ schema: z.record(z.string(), z.unknown()).optional() }).optional() })
    .nullish(),
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
    message: { role: "assistant"; content: string | null; refusal: string | null; tool_calls?: ChatToolCall[]; annotations?: unknown[] };
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
