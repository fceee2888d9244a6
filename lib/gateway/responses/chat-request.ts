// A Responses request without the image tool as the Chat Completions request that serves it (lib/gateway/responses/
// text.ts): the instructions as the first system message, input items as messages, function_call and
// function_call_output items as the assistant's tool calls and tool messages, function tools as chat tools. Pure: the
// body workers (lib/gateway/text-request.ts) build it too, to count a large request off the event loop.
import { GatewayError } from "@/lib/platform/errors";

type ChatMessage = Record<string, unknown> & { role: string };

function invalid(message: string, param: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

/** True when the request is the spec's image case (an `image_generation` tool); those go to lib/gateway/responses/handler.ts. */
export function asksForImageTool(raw: Record<string, unknown>): boolean {
  return (
    Array.isArray(raw.tools) &&
    raw.tools.some((tool) => typeof tool === "object" && tool !== null && (tool as { type?: unknown }).type === "image_generation")
  );
}

/** One input message's content as Chat Completions content: text parts, and images as data URIs only. */
function contentOf(content: unknown, param: string): string | Record<string, unknown>[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(`Invalid '${param}': must be a string or a list of content items`, param);
  return content.map((part, index) => {
    const where = `${param}[${index}]`;
    const item = (part ?? {}) as Record<string, unknown>;
    if ((item.type === "input_text" || item.type === "output_text") && typeof item.text === "string")
      return { type: "text", text: item.text };
    if (item.type === "input_image") {
      if (typeof item.image_url !== "string" || !item.image_url.startsWith("data:")) {
        throw invalid(
          `Invalid '${where}.image_url': send the image inline as a base64 data URI; the gateway fetches no URLs`,
          `${where}.image_url`,
        );
      }
      return { type: "image_url", image_url: { url: item.image_url, ...(typeof item.detail === "string" ? { detail: item.detail } : {}) } };
    }
    throw invalid(
      `Invalid '${where}.type': content items are input_text, output_text or input_image; got ${JSON.stringify(item.type ?? null)}`,
      `${where}.type`,
    );
  });
}

/** The Responses input as chat messages, the instructions first. */
export function chatMessagesFromInput(instructions: string, input: unknown[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: instructions }];
  input.forEach((raw, index) => {
    const param = `input[${index}]`;
    if (typeof raw !== "object" || raw === null) throw invalid(`Invalid '${param}': each input item must be an object`, param);
    const item = raw as Record<string, unknown>;
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string")
        throw invalid(`Invalid '${param}': a function_call needs call_id and name`, param);
      const call = {
        id: item.call_id,
        type: "function",
        function: {
          name: item.name,
          arguments: typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {}),
        },
      };
      const last = messages.at(-1)!;
      // Consecutive calls belong to one assistant turn, as Chat Completions has them.
      if (last.role === "assistant" && Array.isArray(last.tool_calls)) (last.tool_calls as unknown[]).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      return;
    }
    if (item.type === "function_call_output") {
      if (typeof item.call_id !== "string")
        throw invalid(`Invalid '${param}.call_id': a function_call_output needs the call_id it answers`, `${param}.call_id`);
      messages.push({
        role: "tool",
        tool_call_id: item.call_id,
        content: typeof item.output === "string" ? item.output : JSON.stringify(item.output ?? ""),
      });
      return;
    }
    if (item.type !== undefined && item.type !== "message") {
      throw invalid(
        `Invalid '${param}.type': input items are messages, function_call or function_call_output; got ${JSON.stringify(item.type)}`,
        `${param}.type`,
      );
    }
    const role = item.role;
    if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") {
      throw invalid(
        `Invalid '${param}.role': must be one of 'user', 'assistant', 'system', 'developer'; got ${JSON.stringify(role ?? null)}`,
        `${param}.role`,
      );
    }
    messages.push({ role, content: contentOf(item.content, `${param}.content`) });
  });
  return messages;
}

/** `tools` (function tools only) and `tool_choice` in Chat Completions form. */
function chatTools(raw: Record<string, unknown>): { tools?: unknown[]; tool_choice?: unknown } {
  if (raw.tools === undefined || raw.tools === null) return {};
  if (!Array.isArray(raw.tools)) throw invalid("Invalid 'tools': must be a list", "tools");
  const tools = raw.tools.map((tool, index) => {
    const item = (tool ?? {}) as Record<string, unknown>;
    if (item.type !== "function" || typeof item.name !== "string") {
      throw invalid(
        `Invalid 'tools[${index}]': this endpoint offers function tools ({type: 'function', name, parameters}) and the image_generation tool; got ${JSON.stringify(item.type ?? null)}`,
        `tools[${index}]`,
      );
    }
    return {
      type: "function",
      function: {
        name: item.name,
        ...(typeof item.description === "string" ? { description: item.description } : {}),
        parameters: item.parameters ?? { type: "object", properties: {} },
        ...(typeof item.strict === "boolean" ? { strict: item.strict } : {}),
      },
    };
  });
  const choice = raw.tool_choice;
  const tool_choice =
    choice && typeof choice === "object" && (choice as { type?: unknown }).type === "function"
      ? { type: "function", function: { name: (choice as { name?: unknown }).name } }
      : choice;
  return tools.length ? { tools, ...(tool_choice !== undefined ? { tool_choice } : {}) } : {};
}

/** The chat request for a Responses request without the image tool, and the client's output cap (a 400 naming the
 *  field for what does not convert). The spec's own rules are checked before (checkSpecRules). */
export function chatBodyOf(raw: Record<string, unknown>): { body: Record<string, unknown>; cap: number | undefined } {
  if (typeof raw.model !== "string" || raw.model === "") throw invalid("Invalid 'model': is required and must be a string", "model");
  const messages = chatMessagesFromInput(raw.instructions as string, raw.input as unknown[]);
  const cap = raw.max_output_tokens;
  if (cap !== undefined && cap !== null && (typeof cap !== "number" || !Number.isInteger(cap) || cap < 1))
    throw invalid("Invalid 'max_output_tokens': must be a whole number of at least 1", "max_output_tokens");
  const body: Record<string, unknown> = {
    model: raw.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...chatTools(raw),
    ...(typeof raw.temperature === "number" ? { temperature: raw.temperature } : {}),
    ...(typeof raw.top_p === "number" ? { top_p: raw.top_p } : {}),
    ...(typeof raw.parallel_tool_calls === "boolean" ? { parallel_tool_calls: raw.parallel_tool_calls } : {}),
  };
  return { body, cap: typeof cap === "number" ? cap : undefined };
}
