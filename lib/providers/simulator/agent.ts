// What makes the offline simulator usable for agents and structured output (docs/simulator.md):
// - a tool call when the request forces one (tool_choice) or the last user turn names a tool, with arguments that
//   are a minimal valid instance of the tool's JSON schema; once a tool result came back, the answer is text again;
// - structured output: a JSON schema response format is answered with a minimal valid instance of the schema;
// - each model's context window (lib/catalog/index.ts) is enforced with the vendors' own refusal.
// All deterministic: the same request gives the same call.
import { createHash } from "node:crypto";
import type { TextAdapter, UpstreamFailure } from "@/lib/providers/types";
import { instanceOf, SchemaLimitError, type Schema } from "./schema-value";

export { instanceOf } from "./schema-value";

/** The simulator's refusal of a schema past its limits, in the endpoint's dialect (as contextRefusal below). */
export function schemaRefusal(dialect: "chat" | "messages", error: unknown): UpstreamFailure {
  if (!(error instanceof SchemaLimitError)) throw error;
  return {
    ok: false,
    retryable: false,
    status: 400,
    message: error.message,
    cause: "schema_too_large",
    vendor: dialect === "messages" ? { type: "invalid_request_error" } : { type: "invalid_request_error", code: "invalid_schema" },
  };
}

/** The adapter, with each schema past the simulator's limits answered as the upstream's 400 (never a thrown error). */
export function withSchemaLimits(adapter: TextAdapter): TextAdapter {
  return {
    chat: (call) => adapter.chat(call).catch((error: unknown) => schemaRefusal("chat", error)),
    messages: (call) => adapter.messages(call).catch((error: unknown) => schemaRefusal("messages", error)),
  };
}

/** A tool call the simulator makes: its arguments, and their JSON as written (cut at the output cap when it is reached). */
export type SimulatedToolCall = { id: string; name: string; arguments: Record<string, unknown>; json: string };

/** A tool the request offers; `where` names its schema in the request, for the simulator's refusals. */
type ToolLike = { name: string; schema: Schema | undefined; where: string };

/** A call id that is stable for the request (so a retried request reads the same), in the vendor's shape. */
export function toolCallId(prefix: "call_" | "toolu_", seed: string): string {
  return `${prefix}sim${createHash("sha256").update(seed).digest("base64url").replace(/[-_]/g, "x").slice(0, 22)}`;
}

/** The tool the last user turn names ("use the get_weather tool", "call get_weather"), if any. */
function namedIn(text: string, tools: ToolLike[]): ToolLike | undefined {
  const lower = text.toLowerCase();
  return tools.find((tool) => {
    const escaped = tool.name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`(^|[^a-z0-9_])${escaped}([^a-z0-9_]|$)`).test(lower);
  });
}

/**
 * The tool to call: a forced one (a named choice, or "required"/"any": the first), else one the last user turn names;
 * none with `tool_choice` "none", or when the conversation ends with a tool result (the model answers it in text).
 */
export function chooseTool(options: {
  tools: ToolLike[];
  forced: string | "first" | "none" | null;
  lastUserText: string;
  endsWithToolResult: boolean;
}): ToolLike | undefined {
  const { tools, forced } = options;
  if (!tools.length || forced === "none" || options.endsWithToolResult) return undefined;
  if (forced === "first") return tools[0];
  if (forced) return tools.find((tool) => tool.name === forced);
  return namedIn(options.lastUserText, tools);
}

// ---------------------------------------------------------------------------------------------- OpenAI Chat

type ChatBody = {
  messages?: { role?: string; content?: unknown }[];
  tools?: { type?: string; function?: { name?: string; parameters?: Schema } }[] | null;
  functions?: { name?: string; parameters?: Schema }[] | null;
  tool_choice?: unknown;
  response_format?: { type?: string; json_schema?: { schema?: Schema } } | null;
};

export function chatTools(body: ChatBody): ToolLike[] {
  return (body.tools ?? []).flatMap((tool, index) =>
    tool?.type === "function" && typeof tool.function?.name === "string"
      ? [{ name: tool.function.name, schema: tool.function.parameters, where: `tools[${index}].function.parameters` }]
      : [],
  );
}

export function chatForcedTool(body: ChatBody): string | "first" | "none" | null {
  const choice = body.tool_choice;
  if (choice === "none") return "none";
  if (choice === "required") return "first";
  if (choice && typeof choice === "object") {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name === "string") return name;
  }
  return null;
}

export function chatEndsWithToolResult(body: ChatBody): boolean {
  const last = body.messages?.at(-1);
  return last?.role === "tool" || last?.role === "function";
}

/** The content a JSON response format asks for, as text; null when the request asks for plain text. */
export function chatStructuredContent(body: ChatBody, answer: string): string | null {
  const format = body.response_format;
  if (format?.type === "json_schema")
    return JSON.stringify(instanceOf(format.json_schema?.schema ?? { type: "object" }, "value", "response_format.json_schema.schema"));
  if (format?.type === "json_object") return JSON.stringify({ answer, simulated: true });
  return null;
}

// -------------------------------------------------------------------------------------------- Anthropic

type MessagesBody = {
  messages?: { role?: string; content?: unknown }[];
  tools?: { name?: string; type?: string; input_schema?: Schema }[] | null;
  tool_choice?: { type?: string; name?: string } | null;
  output_format?: { type?: string; schema?: Schema } | null;
};

export function messagesTools(body: MessagesBody): ToolLike[] {
  // Custom tools only: server tools (web search, code execution) have a `type` and no input schema.
  return (body.tools ?? []).flatMap((tool, index) =>
    typeof tool?.name === "string" && tool.input_schema
      ? [{ name: tool.name, schema: tool.input_schema, where: `tools[${index}].input_schema` }]
      : [],
  );
}

export function messagesForcedTool(body: MessagesBody): string | "first" | "none" | null {
  const choice = body.tool_choice;
  if (!choice) return null;
  if (choice.type === "none") return "none";
  if (choice.type === "any") return "first";
  if (choice.type === "tool" && typeof choice.name === "string") return choice.name;
  return null;
}

export function messagesEndsWithToolResult(body: MessagesBody): boolean {
  const last = body.messages?.at(-1);
  return Array.isArray(last?.content) && (last.content as { type?: string }[]).some((block) => block?.type === "tool_result");
}

export function messagesStructuredContent(body: MessagesBody): string | null {
  return body.output_format?.type === "json_schema"
    ? JSON.stringify(instanceOf(body.output_format.schema ?? { type: "object" }, "value", "output_format.schema"))
    : null;
}

// ------------------------------------------------------------------------------------------ context window

/** The vendors' refusal of a request beyond the model's context window, or null when it fits. */
export function contextRefusal(dialect: "chat" | "messages", input: number, output: number, window: number): UpstreamFailure | null {
  if (input + output <= window) return null;
  const message =
    dialect === "messages"
      ? `prompt is too long: ${input + output} tokens > ${window} maximum`
      : `This model's maximum context length is ${window} tokens. However, you requested ${input + output} tokens (${input} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`;
  return {
    ok: false,
    retryable: false,
    status: 400,
    message,
    cause: "context_length_exceeded",
    vendor: dialect === "messages" ? { type: "invalid_request_error" } : { type: "invalid_request_error", code: "context_length_exceeded" },
  };
}
