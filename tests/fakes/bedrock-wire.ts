// What the Bedrock runtime fake (tests/fakes/bedrock.ts) answers: the bodies of InvokeModel (Anthropic Messages
// shape) and Converse, their streams as `application/vnd.amazon.eventstream` frames, and Bedrock's error shapes.
//
// Sources of the shapes:
// - Invoke (Anthropic Claude Messages on Bedrock), body and stream events:
//   https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html
//   (a stream's `message_stop` event carries `amazon-bedrock-invocationMetrics`, as Bedrock adds it).
// - Converse: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
// - ConverseStream events: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.md
//   (messageStart, contentBlockStart for tool use, contentBlockDelta, contentBlockStop, messageStop, then metadata
//   with usage and metrics: usage arrives last, after messageStop).
// - Usage: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
//
// Converse `inputTokens` and cache tokens. The API reference (TokenUsage above) says `inputTokens` is "the number of
// tokens sent in the request to the model", `totalTokens` "the total of input tokens and tokens generated", and lists
// `cacheReadInputTokens` / `cacheWriteInputTokens` as separate optional fields without saying whether they overlap
// with `inputTokens`. Peers that first read `inputTokens` as inclusive corrected it to non-cached input, citing
// https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html (opencode's "normalize Bedrock cache
// usage", https://github.com/anomalyco/opencode/pull/38427). Decision: this fake reports `inputTokens` WITHOUT the
// cache tokens (as Anthropic's `input_tokens` is on Invoke) and `totalTokens` as inputTokens + outputTokens +
// cacheReadInputTokens + cacheWriteInputTokens, so a ledger that ignores the cache fields under-counts and is caught.
import { EventStreamCodec, type MessageHeaders } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

export type BedrockUsage = { input: number; output: number; cacheRead?: number; cacheWrite?: number };
export type BedrockToolCall = { id: string; name: string; input: Record<string, unknown> };

/** Non-round by design, so a ledger check that passes cannot be a coincidence. */
export const defaultUsage: BedrockUsage = { input: 1237, output: 389 };

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function stringHeaders(values: Record<string, string>): MessageHeaders {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { type: "string" as const, value }]));
}

/** One event frame (`:message-type: event`) whose payload is `body` as JSON. */
export function eventFrame(eventType: string, body: unknown): Uint8Array {
  return codec.encode({
    headers: stringHeaders({ ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" }),
    body: fromUtf8(JSON.stringify(body)),
  });
}

/** One exception frame (`:message-type: exception`), e.g. `throttlingException`, as Bedrock ends a broken stream. */
export function exceptionFrame(exceptionType: string, body: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: stringHeaders({ ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" }),
    body: fromUtf8(JSON.stringify(body)),
  });
}

/** Decodes frames back (for tests that read the raw stream, as the gateway will). */
export function decodeFrames(bytes: Uint8Array): { headers: Record<string, unknown>; body: unknown }[] {
  const frames: { headers: Record<string, unknown>; body: unknown }[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(offset, offset + length));
    const headers = Object.fromEntries(Object.entries(message.headers).map(([name, header]) => [name, header.value]));
    frames.push({ headers, body: JSON.parse(toUtf8(message.body)) });
    offset += length;
  }
  return frames;
}

// Bedrock pads each stream event with a `p` field of random length so sizes leak nothing; clients must ignore it.
function padding(index: number): string {
  return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ".slice(0, 3 + ((index * 7) % 30));
}

// ---------------------------------------------------------------------------------------------------------------
// Invoke: Anthropic Messages bodies.

export function messagesBody(model: string, answer: { text: string; toolCall?: BedrockToolCall; usage: BedrockUsage | null }) {
  const content: unknown[] = [{ type: "text", text: answer.text }];
  if (answer.toolCall) content.push({ type: "tool_use", ...answer.toolCall });
  return {
    id: "msg_bdrk_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: answer.toolCall ? "tool_use" : "end_turn",
    stop_sequence: null,
    ...(answer.usage ? { usage: messagesUsage(answer.usage) } : {}),
  };
}

function messagesUsage(usage: BedrockUsage) {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead ?? 0,
    output_tokens: usage.output,
  };
}

/** The Messages stream events in Anthropic's order; Invoke streams carry each one base64'd in a `chunk` frame. */
export function messagesEvents(model: string, answer: { text: string; toolCall?: BedrockToolCall; usage: BedrockUsage | null }) {
  const words = answer.text.match(/\S+\s*/g) ?? [answer.text];
  const usage = answer.usage;
  const events: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        ...messagesBody(model, { text: "", usage: null }),
        content: [],
        stop_reason: null,
        ...(usage ? { usage: { ...messagesUsage(usage), output_tokens: 1 } } : {}),
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...words.map((word) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: word } })),
    { type: "content_block_stop", index: 0 },
  ];
  if (answer.toolCall) {
    const json = JSON.stringify(answer.toolCall.input);
    const half = Math.ceil(json.length / 2);
    events.push(
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: answer.toolCall.id, name: answer.toolCall.name, input: {} },
      },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: json.slice(half) } },
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push({
    type: "message_delta",
    delta: { stop_reason: answer.toolCall ? "tool_use" : "end_turn", stop_sequence: null },
    ...(usage ? { usage: { output_tokens: usage.output } } : {}),
  });
  events.push({
    type: "message_stop",
    ...(usage
      ? {
          "amazon-bedrock-invocationMetrics": {
            inputTokenCount: usage.input,
            outputTokenCount: usage.output,
            invocationLatency: 2317,
            firstByteLatency: 643,
            cacheReadInputTokenCount: usage.cacheRead ?? 0,
            cacheWriteInputTokenCount: usage.cacheWrite ?? 0,
          },
        }
      : {}),
  });
  return events;
}

/** A `chunk` frame as InvokeModelWithResponseStream sends it: `{"bytes": base64(event JSON)}`. */
export function chunkFrame(event: unknown, index: number): Uint8Array {
  return eventFrame("chunk", { bytes: Buffer.from(JSON.stringify(event)).toString("base64"), p: padding(index) });
}

// ---------------------------------------------------------------------------------------------------------------
// Converse.

export function converseUsage(usage: BedrockUsage) {
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    totalTokens: usage.input + usage.output + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
    ...(usage.cacheRead !== undefined ? { cacheReadInputTokens: usage.cacheRead } : {}),
    ...(usage.cacheWrite !== undefined ? { cacheWriteInputTokens: usage.cacheWrite } : {}),
  };
}

export function converseBody(answer: { text: string; toolCall?: BedrockToolCall; usage: BedrockUsage | null }) {
  const content: unknown[] = [{ text: answer.text }];
  if (answer.toolCall)
    content.push({ toolUse: { toolUseId: answer.toolCall.id, name: answer.toolCall.name, input: answer.toolCall.input } });
  return {
    output: { message: { role: "assistant", content } },
    stopReason: answer.toolCall ? "tool_use" : "end_turn",
    ...(answer.usage ? { usage: converseUsage(answer.usage) } : {}),
    metrics: { latencyMs: 1873 },
  };
}

/** ConverseStream events as [eventType, body] in Bedrock's order; metadata (usage) comes last. */
export function converseEvents(answer: { text: string; toolCall?: BedrockToolCall; usage: BedrockUsage | null }): [string, unknown][] {
  const words = answer.text.match(/\S+\s*/g) ?? [answer.text];
  const events: [string, unknown][] = [["messageStart", { role: "assistant" }]];
  for (const word of words) events.push(["contentBlockDelta", { contentBlockIndex: 0, delta: { text: word } }]);
  events.push(["contentBlockStop", { contentBlockIndex: 0 }]);
  if (answer.toolCall) {
    const json = JSON.stringify(answer.toolCall.input);
    const half = Math.ceil(json.length / 2);
    events.push(
      ["contentBlockStart", { contentBlockIndex: 1, start: { toolUse: { toolUseId: answer.toolCall.id, name: answer.toolCall.name } } }],
      ["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: json.slice(0, half) } } }],
      ["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: json.slice(half) } } }],
      ["contentBlockStop", { contentBlockIndex: 1 }],
    );
  }
  events.push(["messageStop", { stopReason: answer.toolCall ? "tool_use" : "end_turn" }]);
  events.push(["metadata", { ...(answer.usage ? { usage: converseUsage(answer.usage) } : {}), metrics: { latencyMs: 1873 } }]);
  return events;
}

export function converseFrame(eventType: string, body: unknown, index: number): Uint8Array {
  return eventFrame(eventType, { ...(body as object), p: padding(index) });
}

// ---------------------------------------------------------------------------------------------------------------
// Errors. Non-stream errors are JSON `{"message": …}` with the type in `x-amzn-errortype` (restJson1), as in
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors

export type BedrockErrorType =
  | "ValidationException"
  | "AccessDeniedException"
  | "ResourceNotFoundException"
  | "ThrottlingException"
  | "ServiceQuotaExceededException"
  | "ModelTimeoutException"
  | "ModelNotReadyException"
  | "ModelErrorException"
  | "ModelStreamErrorException"
  | "InternalServerException"
  | "ServiceUnavailableException"
  | "InvalidSignatureException"
  | "UnrecognizedClientException"
  | "MissingAuthenticationTokenException"
  | "IncompleteSignatureException";

export const errorStatus: Record<BedrockErrorType, number> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  ResourceNotFoundException: 404,
  ThrottlingException: 429,
  ServiceQuotaExceededException: 400,
  ModelTimeoutException: 408,
  ModelNotReadyException: 429,
  ModelErrorException: 424,
  ModelStreamErrorException: 424,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
  InvalidSignatureException: 403,
  UnrecognizedClientException: 403,
  MissingAuthenticationTokenException: 403,
  IncompleteSignatureException: 403,
};

export const errorMessage: Partial<Record<BedrockErrorType, string>> = {
  ThrottlingException: "Too many requests, please wait before trying again.",
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  ServiceUnavailableException: "Bedrock is unable to process your request.",
  InternalServerException: "The server encountered an internal error while processing the request.",
  ModelTimeoutException: "The request took too long to process. Processing time exceeded the model timeout length.",
  ModelStreamErrorException: "The model encountered an error while streaming the response.",
  ValidationException: "The provided request is not valid.",
};

/** Stream exceptions are lowerCamel event names (`throttlingException`, `modelStreamErrorException`, …). */
export type BedrockStreamExceptionType =
  | "throttlingException"
  | "modelStreamErrorException"
  | "internalServerException"
  | "validationException"
  | "modelTimeoutException"
  | "serviceUnavailableException";
