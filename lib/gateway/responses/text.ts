// /v1/responses beyond the image tool: a request that meets the spec's rules (instructions, a list as input, a
// stream) and carries no tools or only `function` tools is served as Chat Completions through the text pipeline
// (lib/gateway/text.ts: the same catalog caps, reservation, failover and billing as chat) and its chat stream is
// written back as Responses events (https://platform.openai.com/docs/api-reference/responses-streaming): messages
// as output_text deltas, tool calls as function_call items with their argument deltas, usage in response.completed.
// The conversation converts both ways: function_call and function_call_output input items become the assistant's
// tool calls and tool messages. Every channel type serves it this way, a vendor's own Responses API included (it
// also serves Chat Completions).
import { randomBytes } from "node:crypto";
import { GatewayError } from "@/lib/platform/errors";
import { readSseEvents } from "@/lib/platform/sse";
import { encodeSse } from "@/lib/platform/sse";
import { SSE_HEADERS } from "@/lib/providers/sse-relay";
import { relayTextRequest } from "@/lib/gateway/text";
import type { GatewayContext } from "@/lib/gateway/pipeline";

type ChatMessage = Record<string, unknown> & { role: string };

function invalid(message: string, param: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString("hex")}`;
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

type Item = Record<string, unknown> & { id: string; type: string };

/** Writes a Chat Completions stream as the events of one Responses response. */
export function responsesEvents(
  chat: ReadableStream<Uint8Array>,
  model: string,
  instructions: string,
  request: Record<string, unknown>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const id = newId("resp");
  const createdAt = Math.floor(Date.now() / 1000);
  const output: Item[] = [];
  let sequence = 0;
  let usage: { input_tokens: number; output_tokens: number; total_tokens: number } | null = null;
  let message: { item: Item; index: number; text: string } | null = null;
  const calls = new Map<number, { item: Item; index: number }>();
  const envelope = (status: string, extra: Record<string, unknown> = {}) => ({
    id,
    object: "response",
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: null,
    instructions,
    model,
    output: output.map((item) => ({ ...item })),
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    max_output_tokens: request.max_output_tokens ?? null,
    text: { format: { type: "text" } },
    usage: null,
    metadata: {},
    ...extra,
  });
  const event = (data: Record<string, unknown>) =>
    encodeSse({ event: data.type as string, data: JSON.stringify({ ...data, sequence_number: sequence++ }) });

  const closeMessage = (): string[] => {
    if (!message) return [];
    const { item, index, text } = message;
    const part = { type: "output_text", text, annotations: [] };
    Object.assign(item, { status: "completed", content: [part] });
    message = null;
    return [
      event({ type: "response.output_text.done", item_id: item.id, output_index: index, content_index: 0, text }),
      event({ type: "response.content_part.done", item_id: item.id, output_index: index, content_index: 0, part }),
      event({ type: "response.output_item.done", output_index: index, item: { ...item } }),
    ];
  };
  const closeCalls = (): string[] => {
    const events: string[] = [];
    for (const { item, index } of calls.values()) {
      item.status = "completed";
      events.push(
        event({ type: "response.function_call_arguments.done", item_id: item.id, output_index: index, arguments: item.arguments }),
      );
      events.push(event({ type: "response.output_item.done", output_index: index, item: { ...item } }));
    }
    calls.clear();
    return events;
  };

  const events = readSseEvents(chat);
  let started = false;
  /** One step of the stream: true once it enqueued something or closed (a pull must do one or the other). */
  const step = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> => {
    if (!started) {
      started = true;
      controller.enqueue(
        encoder.encode(
          event({ type: "response.created", response: envelope("in_progress") }) +
            event({ type: "response.in_progress", response: envelope("in_progress") }),
        ),
      );
      return true;
    }
    let next: IteratorResult<{ data: string }>;
    try {
      next = await events.next();
    } catch (error) {
      controller.enqueue(
        encoder.encode(
          event({
            type: "response.failed",
            response: envelope("failed", {
              error: { code: "server_error", message: error instanceof Error ? error.message : "The upstream stream failed" },
            }),
          }),
        ),
      );
      controller.close();
      return true;
    }
    if (next.done) {
      const ending = [
        ...closeMessage(),
        ...closeCalls(),
        event({ type: "response.completed", response: envelope("completed", { usage }) }),
      ];
      controller.enqueue(encoder.encode(ending.join("")));
      controller.close();
      return true;
    }
    const data = next.value.data;
    if (data === "[DONE]") return false;
    const chunk = JSON.parse(data) as {
      error?: { message?: string };
      usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
      choices?: {
        delta?: {
          content?: string | null;
          tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
        };
      }[];
    };
    if (chunk.error) {
      controller.enqueue(
        encoder.encode(
          event({
            type: "response.failed",
            response: envelope("failed", { error: { code: "server_error", message: chunk.error.message ?? "The upstream failed" } }),
          }),
        ),
      );
      controller.close();
      void events.return(undefined);
      return true;
    }
    if (chunk.usage) {
      const input = chunk.usage.prompt_tokens ?? 0;
      const outputTokens = chunk.usage.completion_tokens ?? 0;
      usage = { input_tokens: input, output_tokens: outputTokens, total_tokens: input + outputTokens };
    }
    const out: string[] = [];
    const delta = chunk.choices?.[0]?.delta;
    if (delta?.content) {
      if (!message) {
        const item: Item = { id: newId("msg"), type: "message", status: "in_progress", role: "assistant", content: [] };
        output.push(item);
        message = { item, index: output.length - 1, text: "" };
        out.push(event({ type: "response.output_item.added", output_index: message.index, item: { ...item } }));
        out.push(
          event({
            type: "response.content_part.added",
            item_id: item.id,
            output_index: message.index,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [] },
          }),
        );
      }
      message.text += delta.content;
      out.push(
        event({
          type: "response.output_text.delta",
          item_id: message.item.id,
          output_index: message.index,
          content_index: 0,
          delta: delta.content,
        }),
      );
    }
    for (const call of delta?.tool_calls ?? []) {
      let entry = calls.get(call.index);
      if (!entry) {
        out.push(...closeMessage());
        const item: Item = {
          id: newId("fc"),
          type: "function_call",
          status: "in_progress",
          call_id: call.id ?? newId("call"),
          name: call.function?.name ?? "",
          arguments: "",
        };
        output.push(item);
        entry = { item, index: output.length - 1 };
        calls.set(call.index, entry);
        out.push(event({ type: "response.output_item.added", output_index: entry.index, item: { ...item } }));
      }
      const piece = call.function?.arguments ?? "";
      if (piece) {
        entry.item.arguments = `${entry.item.arguments as string}${piece}`;
        out.push(
          event({ type: "response.function_call_arguments.delta", item_id: entry.item.id, output_index: entry.index, delta: piece }),
        );
      }
    }
    if (!out.length) return false;
    controller.enqueue(encoder.encode(out.join("")));
    return true;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A chunk that makes no event (a role-only delta, [DONE]) must not end the pull: read on until one does.
      while (!(await step(controller)));
    },
    async cancel(reason) {
      // The client left: ending the chat stream settles what was delivered (lib/providers/sse-relay.ts).
      await events.return(undefined).catch(() => undefined);
      await chat.cancel(reason).catch(() => undefined);
    },
  });
}

/**
 * Serves a Responses request without the image tool. The spec's rules (instructions, a list as input, a stream) were
 * checked by the caller.
 */
export async function textResponses(context: GatewayContext, raw: Record<string, unknown>): Promise<Response> {
  if (typeof raw.model !== "string" || raw.model === "") throw invalid("Invalid 'model': is required and must be a string", "model");
  const instructions = raw.instructions as string;
  const messages = chatMessagesFromInput(instructions, raw.input as unknown[]);
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
  const chat = await relayTextRequest(context, "chat", body, typeof cap === "number" ? cap : undefined);
  if (!chat.ok || !chat.body) return chat;
  return new Response(responsesEvents(chat.body, body.model as string, instructions, raw), { status: 200, headers: { ...SSE_HEADERS } });
}
