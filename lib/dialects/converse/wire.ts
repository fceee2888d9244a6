// Amazon Bedrock's Converse API on the wire (JSON over HTTP, the model id in the URL, not in the body): lenient zod
// schemas for what the gateway reads (unknown fields pass through) and the exact types of what it writes.
//   Converse:        https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
//   ConverseStream:  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
//   stream events:   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
//   usage:           https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
// Converse unions (a content block, a delta, a tool choice) are objects with exactly one member set, named by its key
// (`{"text": …}`, `{"toolUse": {…}}`), not by a `type` field. Binary members (image bytes) travel as base64 strings.
import { z } from "zod";

// =============================================================================================
// What the gateway reads

const tokenCount = z.number().int().min(0);

/**
 * TokenUsage. `inputTokens` is the input read fresh, without `cacheReadInputTokens` and `cacheWriteInputTokens`
 * (Bedrock's prompt caching reports them apart, https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html;
 * the fake bills so too, tests/fakes/bedrock-wire.ts). The cache fields come only when caching was used.
 */
export const converseUsageSchema = z.looseObject({
  inputTokens: tokenCount.optional(),
  outputTokens: tokenCount.optional(),
  totalTokens: tokenCount.optional(),
  cacheReadInputTokens: tokenCount.optional(),
  cacheWriteInputTokens: tokenCount.optional(),
});
export type ConverseUsageInput = z.infer<typeof converseUsageSchema>;

const converseToolUseSchema = z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown() });

/** An answer's content block: the members read here; others (citations, images, redacted reasoning) pass unread. */
export const converseContentBlockSchema = z.looseObject({
  text: z.string().optional(),
  toolUse: converseToolUseSchema.optional(),
  reasoningContent: z
    .looseObject({ reasoningText: z.looseObject({ text: z.string(), signature: z.string().optional() }).optional() })
    .optional(),
});

/** A whole Converse answer. */
export const converseResponseSchema = z.looseObject({
  output: z.looseObject({
    message: z.looseObject({ role: z.string().optional(), content: z.array(converseContentBlockSchema) }),
  }),
  stopReason: z.string().optional(),
  usage: converseUsageSchema.optional(),
  metrics: z.looseObject({ latencyMs: z.number().optional() }).optional(),
});
export type ConverseResponseInput = z.infer<typeof converseResponseSchema>;

const blockIndex = z.number().int().min(0);

/**
 * The payload of each ConverseStream event, by its `:event-type` header. Bedrock pads every payload with a `p`
 * field of random length, which passes unread. Errors mid-stream arrive as exception frames
 * (`throttlingException`, `modelStreamErrorException`, …), read by their type alone.
 */
export const converseStreamEventSchemas = {
  messageStart: z.looseObject({ role: z.string() }),
  contentBlockStart: z.looseObject({
    contentBlockIndex: blockIndex,
    start: z.looseObject({ toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).optional() }),
  }),
  contentBlockDelta: z.looseObject({
    contentBlockIndex: blockIndex,
    delta: z.looseObject({
      text: z.string().optional(),
      toolUse: z.looseObject({ input: z.string() }).optional(),
      reasoningContent: z.looseObject({ text: z.string().optional(), signature: z.string().optional() }).optional(),
    }),
  }),
  contentBlockStop: z.looseObject({ contentBlockIndex: blockIndex }),
  messageStop: z.looseObject({ stopReason: z.string(), additionalModelResponseFields: z.unknown().optional() }),
  metadata: z.looseObject({
    usage: converseUsageSchema.optional(),
    metrics: z.looseObject({ latencyMs: z.number().optional() }).optional(),
  }),
};
export type ConverseStreamEventType = keyof typeof converseStreamEventSchemas;

// =============================================================================================
// What the gateway writes

export type ConverseImageFormat = "png" | "jpeg" | "gif" | "webp";

export type ConverseToolResultContent = { text: string } | { json: Record<string, unknown> };

/** A content block of a request message (only `user` messages may carry images or tool results). */
export type ConverseRequestBlock =
  | { text: string }
  | { image: { format: ConverseImageFormat; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: ConverseToolResultContent[]; status?: "success" | "error" } };

export type ConverseMessage = { role: "user" | "assistant"; content: ConverseRequestBlock[] };

export type ConverseTool = {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
};

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

/** A Converse (or ConverseStream: the same body, another path) request as the gateway sends it. */
export type ConverseRequest = {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig: { maxTokens: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  /** Structured output (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_OutputConfig.html);
   *  the schema goes as a JSON string. */
  outputConfig?: {
    textFormat: { type: "json_schema"; structure: { jsonSchema: { schema: string; name?: string; description?: string } } };
  };
  /** The model's own fields beyond `inferenceConfig` (a Claude thinking budget, …), passed as they are. */
  additionalModelRequestFields?: Record<string, unknown>;
};
