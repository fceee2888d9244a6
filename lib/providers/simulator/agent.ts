// What makes the offline simulator usable for agents and structured output (issue "real clients", item 8):
// - a tool call when the request forces one (tool_choice) or the last user turn names a tool, with arguments that
//   are a minimal valid instance of the tool's JSON schema; once a tool result came back, the answer is text again;
// - structured output: a JSON schema response format is answered with a minimal valid instance of the schema;
// - each model's context window (lib/catalog/index.ts) is enforced with the vendors' own refusal.
// All deterministic: the same request gives the same call.
import { createHash } from "node:crypto";
import type { UpstreamFailure } from "@/lib/providers/types";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  prefixItems?: Schema[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
};

/** Deepest nesting followed; below it, a nullable-friendly empty value. */
const MAX_DEPTH = 12;

function resolveRef(ref: string, root: Schema): Schema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  return (match[1] === "$defs" ? root.$defs : root.definitions)?.[decodeURIComponent(match[2]!)];
}

function stringFor(schema: Schema, name: string): string {
  switch (schema.format) {
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "date":
      return "2026-01-01";
    case "time":
      return "00:00:00";
    case "email":
      return "someone@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
  }
  let value = name === "city" || name === "location" ? "Paris" : `${name || "value"} (simulated)`;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, "x");
  return value;
}

/** A small value valid against `schema`: required properties filled, enums and consts honoured, bounds respected. */
export function instanceOf(schema: Schema | undefined, name = "value", root: Schema | undefined = schema, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > MAX_DEPTH) return null;
  if (schema.$ref) return instanceOf(resolveRef(schema.$ref, root ?? schema), name, root, depth + 1);
  if ("const" in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) return instanceOf(choices.find((option) => option.type !== "null") ?? choices[0], name, root, depth + 1);
  if (schema.allOf?.length) {
    const merged: Schema = { type: "object", properties: {}, required: [] };
    for (const part of schema.allOf) {
      const resolved = part.$ref ? (resolveRef(part.$ref, root ?? schema) ?? part) : part;
      Object.assign(merged.properties!, resolved.properties ?? {});
      merged.required!.push(...(resolved.required ?? []));
    }
    return instanceOf(merged, name, root, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((entry) => entry !== "null") ?? "null") : schema.type;
  if (type === "object" || (!type && schema.properties)) {
    const value: Record<string, unknown> = {};
    const properties = schema.properties ?? {};
    // Every property the schema lists (strict schemas require all of them), required or not.
    for (const [key, property] of Object.entries(properties)) value[key] = instanceOf(property, key, root, depth + 1);
    for (const key of schema.required ?? []) if (!(key in value)) value[key] = `${key} (simulated)`;
    return value;
  }
  if (type === "array") {
    const items = Array.isArray(schema.items) ? schema.items : schema.prefixItems;
    if (items) return items.map((item, index) => instanceOf(item, `${name}${index}`, root, depth + 1));
    const count = Math.max(1, schema.minItems ?? 1);
    return Array.from({ length: count }, () => instanceOf(schema.items as Schema | undefined, name, root, depth + 1));
  }
  if (type === "integer" || type === "number") {
    const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
    const value = low !== undefined ? Math.max(low, 1) : 1;
    const bounded = schema.maximum !== undefined ? Math.min(value, schema.maximum) : value;
    return type === "integer" ? Math.ceil(bounded) : bounded;
  }
  if (type === "boolean") return true;
  if (type === "null") return null;
  return stringFor(schema, name);
}

export type SimulatedToolCall = { id: string; name: string; arguments: Record<string, unknown> };

type ToolLike = { name: string; schema: Schema | undefined };

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
  const tools = (body.tools ?? []).filter((tool) => tool?.type === "function" && typeof tool.function?.name === "string");
  return tools.map((tool) => ({ name: tool.function!.name!, schema: tool.function!.parameters }));
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
  if (format?.type === "json_schema") return JSON.stringify(instanceOf(format.json_schema?.schema ?? { type: "object" }));
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
  return (body.tools ?? [])
    .filter((tool) => typeof tool?.name === "string" && tool.input_schema)
    .map((tool) => ({ name: tool.name!, schema: tool.input_schema }));
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
  return body.output_format?.type === "json_schema" ? JSON.stringify(instanceOf(body.output_format.schema ?? { type: "object" })) : null;
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
