// Claude on Vertex AI: the checks and answers of `publishers/anthropic/models/{m}:rawPredict` / `:streamRawPredict`
// for the fake in tests/fakes/vertex.ts. The body is Anthropic's Messages body without `model` and with
// `anthropic_version` (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude);
// answers and stream events follow https://docs.anthropic.com/en/api/messages and
// https://docs.anthropic.com/en/docs/build-with-claude/streaming (message_start carries the input usage,
// message_delta the output count, message_stop ends). Usage numbers are non-round so a ledger check means something.

export type ClaudeUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};

export const DEFAULT_CLAUDE_USAGE: ClaudeUsage = {
  input_tokens: 1237,
  output_tokens: 389,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 512,
};

/** What the next Claude call answers. Every field is optional; the default is a short text answer. */
export type ClaudeAnswer = {
  text?: string[];
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
  stopReason?: "end_turn" | "max_tokens" | "tool_use" | "refusal" | "stop_sequence";
  usage?: ClaudeUsage;
  /** In a stream, send this many events then drop the connection. */
  cutAfterEvents?: number;
  error?: { status: number; body: unknown };
};

/** The value Vertex documents for the body; the dated versions of Anthropic's own API are not taken there. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** Anthropic's error body as Vertex relays it, with Vertex's request id. */
export function anthropicError(type: string, message: string) {
  return { type: "error", error: { type, message }, request_id: `req_vrtx_011${Math.random().toString(36).slice(2, 16)}` };
}

export type ClaudeRequestProblem = { status: number; type: string; message: string };

/**
 * Checks a rawPredict body as Vertex does; returns the refusal or null. A dated anthropic_version such as
 * "2023-06-01" (what Anthropic's Vertex SDK 1.x copies from its header) is refused with a 404, the status reported in
 * https://github.com/clawvisor/clawvisor/pull/156; the message is the fake's own.
 */
export function checkClaudeRequest(body: any): ClaudeRequestProblem | null {
  const invalid = (message: string) => ({ status: 400, type: "invalid_request_error", message });
  if (!body || typeof body !== "object") return invalid("body: Input should be a valid dictionary");
  if ("model" in body) return invalid("model: Extra inputs are not permitted");
  if (body.anthropic_version === undefined) return invalid("anthropic_version: Field required");
  if (body.anthropic_version !== VERTEX_ANTHROPIC_VERSION)
    return {
      status: 404,
      type: "not_found_error",
      message: `anthropic_version ${JSON.stringify(body.anthropic_version)} is not served on Vertex AI; send "${VERTEX_ANTHROPIC_VERSION}".`,
    };
  if (typeof body.max_tokens !== "number") return invalid("max_tokens: Field required");
  if (!Array.isArray(body.messages) || body.messages.length === 0) return invalid("messages: at least one message is required");
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== "user" && message.role !== "assistant")
      return invalid(`messages.${index}.role: Input should be 'user' or 'assistant'`);
  }
  if (body.messages[0].role !== "user") return invalid('messages: first message must use the "user" role');
  return null;
}

/** Usage as the Messages API reports it, cache writes split by lifetime. */
function usageBlock(usage: ClaudeUsage) {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens ?? 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: usage.output_tokens,
  };
}

function contentOf(answer: ClaudeAnswer) {
  if (answer.toolUse) return [{ type: "tool_use", id: answer.toolUse.id, name: answer.toolUse.name, input: answer.toolUse.input }];
  return [{ type: "text", text: (answer.text ?? ["Claude on Vertex says hello."]).join("") }];
}

function stopReasonOf(answer: ClaudeAnswer) {
  return answer.stopReason ?? (answer.toolUse ? "tool_use" : "end_turn");
}

function messageId() {
  return `msg_vrtx_01${Math.random().toString(36).slice(2, 14)}`;
}

export function claudeMessage(answer: ClaudeAnswer, model: string) {
  return {
    id: messageId(),
    type: "message",
    role: "assistant",
    model,
    content: contentOf(answer),
    stop_reason: stopReasonOf(answer),
    stop_sequence: null,
    usage: usageBlock(answer.usage ?? DEFAULT_CLAUDE_USAGE),
  };
}

export function claudeEvents(answer: ClaudeAnswer, model: string): { event: string; data: unknown }[] {
  const usage = answer.usage ?? DEFAULT_CLAUDE_USAGE;
  const events: { event: string; data: unknown }[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id: messageId(),
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usageBlock(usage), output_tokens: 1 },
        },
      },
    },
  ];
  if (answer.toolUse) {
    const { id, name, input } = answer.toolUse;
    const json = JSON.stringify(input);
    const half = Math.floor(json.length / 2);
    events.push(
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 0, content_block: { type: "tool_use", id, name, input: {} } },
      },
      { event: "ping", data: { type: "ping" } },
      ...[json.slice(0, half), json.slice(half)].map((partial_json) => ({
        event: "content_block_delta",
        data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } },
      })),
    );
  } else {
    events.push(
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      { event: "ping", data: { type: "ping" } },
      ...(answer.text ?? ["Claude on Vertex ", "says hello."]).map((text) => ({
        event: "content_block_delta",
        data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
      })),
    );
  }
  events.push(
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stopReasonOf(answer), stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}
