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

/** The documented value; Anthropic's Vertex SDK 1.x sends its own dated version instead, which Vertex also takes. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

export function anthropicError(type: string, message: string) {
  return { type: "error", error: { type, message } };
}

/** Checks a rawPredict body as Vertex does; returns the invalid_request_error message or null. */
export function checkClaudeRequest(body: any): string | null {
  if (!body || typeof body !== "object") return "body: Input should be a valid dictionary";
  if ("model" in body) return "model: Extra inputs are not permitted";
  if (body.anthropic_version === undefined) return "anthropic_version: Field required";
  if (body.anthropic_version !== VERTEX_ANTHROPIC_VERSION && !/^\d{4}-\d{2}-\d{2}$/.test(String(body.anthropic_version)))
    return `anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`;
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: at least one message is required";
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== "user" && message.role !== "assistant") return `messages.${index}.role: Input should be 'user' or 'assistant'`;
  }
  if (body.messages[0].role !== "user") return 'messages: first message must use the "user" role';
  return null;
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
    usage: answer.usage ?? DEFAULT_CLAUDE_USAGE,
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
          usage: { ...usage, output_tokens: 1 },
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
