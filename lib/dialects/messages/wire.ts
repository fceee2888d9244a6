// Anthropic Messages on the wire: lenient zod schemas for what the gateway reads and the exact types of what it
// writes (unknown block and event types are handled by the converters explicitly).
//   https://docs.anthropic.com/en/api/messages
//   streaming events: https://docs.anthropic.com/en/docs/build-with-claude/streaming
import { z } from "zod";

/** A content block; only its `type` is checked here, each converter checks the fields it reads. */
export const messagesBlockSchema = z.looseObject({ type: z.string() });

const messagesTextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });

/** The largest output cap a request may ask for. */
const MAX_OUTPUT_CAP = 1_000_000;

const endpointBlockSchema = z.looseObject({ type: z.string({ message: "each content block needs a type" }) });

/**
 * A Messages request as /v1/messages checks it on arrival (lib/gateway/text-request.ts): what the gateway needs to
 * reserve and route, each with the message a client sees; everything else is passed on to the upstream.
 */
export const messagesEndpointRequestSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  max_tokens: z
    .number({ message: "is required and must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_OUTPUT_CAP),
  messages: z
    // `system` turns inside `messages` are the vendor's mid-conversation system messages (Claude Code sends them).
    .array(
      z.looseObject({
        role: z.enum(["user", "assistant", "system"], { message: "must be user, assistant or system" }),
        content: z.union([z.string(), z.array(endpointBlockSchema)]),
      }),
      { message: "must be an array of messages" },
    )
    .min(1, "must hold at least one message"),
  system: z.union([z.string(), z.array(endpointBlockSchema)]).optional(),
  stream: z.boolean().optional(),
});

/** /v1/messages/count_tokens: a Messages request without max_tokens; the count reads what it knows and the rest as JSON. */
export const messagesCountRequestSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  messages: z
    .array(z.looseObject({ role: z.string(), content: z.unknown() }), { message: "must be an array of messages" })
    .min(1, "must hold at least one message"),
});

/**
 * A Messages request as a conversion reads it (lib/dialects/convert/messages-to-chat.ts): the endpoint's request with
 * the fields the conversion maps checked too (lenient: fields it does not read pass through).
 */
export const messagesRequestSchema = messagesEndpointRequestSchema.extend({
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
  output_config: z
    .looseObject({ format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).optional() }).nullish() })
    .nullish(),
});
export type MessagesRequestInput = z.infer<typeof messagesRequestSchema>;

export const messagesUsageSchema = z.looseObject({
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

export const messagesStreamEventSchemas = {
  message_start: z.looseObject({
    type: z.literal("message_start"),
    message: z.looseObject({ id: z.string(), model: z.string().optional(), usage: messagesUsageSchema.nullish() }),
  }),
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
  error: z.looseObject({
    type: z.literal("error"),
    error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).nullish(),
  }),
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
};

export type MessagesResponse = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: MessagesContentBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
};

/** The events of an Anthropic stream, each written as `event: <type>\ndata: <json>\n\n`. */
export type MessagesStreamEvent =
  | { type: "message_start"; message: MessagesResponse }
  | {
      type: "content_block_start";
      index: number;
      content_block: { type: "text"; text: "" } | { type: "tool_use"; id: string; name: string; input: Record<string, never> };
    }
  | { type: "ping" }
  | {
      type: "content_block_delta";
      index: number;
      delta: { type: "text_delta"; text: string } | { type: "input_json_delta"; partial_json: string };
    }
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
  tool_choice?:
    | { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean }
    | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };
  output_config?: { format: { type: "json_schema"; schema: Record<string, unknown> } };
};
