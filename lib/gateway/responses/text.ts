// /v1/responses beyond the image tool: a request that meets the spec's rules (instructions, a list as input, a
// stream) and carries no tools or only `function` tools is served as Chat Completions through the text pipeline
// (lib/gateway/text/handler.ts: the same catalog caps, reservation, failover and billing as chat) and its chat stream is
// written back as Responses events (https://platform.openai.com/docs/api-reference/responses-streaming): messages
// as output_text deltas, tool calls as function_call items with their argument deltas, usage in response.completed.
// The conversation converts both ways: function_call and function_call_output input items become the assistant's
// tool calls and tool messages. Every channel type serves it this way, a vendor's own Responses API included (it
// also serves Chat Completions).
import { randomBytes } from "node:crypto";
import { readSseEvents } from "@/lib/platform/sse";
import { encodeSse } from "@/lib/platform/sse";
import { SSE_HEADERS } from "@/lib/providers/sse-relay";
import { relayTextRequest, type ChatRelayCount } from "@/lib/gateway/text/handler";
import { chatBodyOf } from "./chat-request";
import type { GatewayContext } from "@/lib/gateway/pipeline";

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString("hex")}`;
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
/**
 * Serves a Responses request without the image tool as Chat Completions. `prepared` is the chat body's input count
 * and size, made with the body (lib/gateway/text-request.ts: on a worker for a large one).
 */
export async function textResponses(
  context: GatewayContext,
  raw: Record<string, unknown>,
  prepared: Pick<ChatRelayCount, "inputTokens" | "stats" | "bytes">,
): Promise<Response> {
  const { body, cap } = chatBodyOf(raw);
  const chat = await relayTextRequest(context, "chat", body, cap, prepared);
  if (!chat.ok || !chat.body) return chat;
  return new Response(responsesEvents(chat.body, body.model as string, raw.instructions as string, raw), {
    status: 200,
    headers: { ...SSE_HEADERS },
  });
}
