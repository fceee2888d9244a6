// A fake vendor that writes output of every kind and ends its answer every way, for the money rules on delivered
// output (docs/billing.md, "What a cut or unreported answer costs"). It speaks OpenAI Chat Completions and Anthropic
// Messages; what it writes is the plan named in the request's last user message ("plan: <name>", see PLANS). It bills
// what it generated: the o200k tokens of every text, tool name, argument, reasoning and thinking piece it wrote (counted
// with gpt-tokenizer, not the gateway's code), and records each bill. "cut" destroys the connection after the pieces;
// "no-terminal" ends the body cleanly without the dialect's last event; "no-usage" ends properly but reports nothing.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

export type OutputKind = "text" | "tool" | "reasoning" | "thinking" | "refusal" | "unknown";
export type Ending = "complete" | "no-usage" | "no-terminal" | "cut";
export type Plan = { kinds: OutputKind[]; pieces: number; end: Ending };

export type Delivery = {
  dialect: "chat" | "messages";
  plan: string;
  stream: boolean;
  /** The cap the request carried. */
  cap: number | null;
  /** Output tokens generated (and billed, when the answer reports usage). */
  outputTokens: number;
  inputTokens: number;
  /** The upstream's connection was closed before it finished writing. */
  closedEarly: boolean;
};

export type DeliveryUpstream = { url: string; deliveries: Delivery[]; close: () => Promise<void> };

const WORDS = ["harbor", "lantern", "meadow", "copper", "window", "thunder", "garden", "silver", "canyon", "ember"];

/** The n-th piece of generated text: a few ordinary words, so a piece is a handful of tokens. */
function piece(kind: OutputKind, index: number): string {
  const words = [0, 1, 2, 3].map((offset) => WORDS[(index * 4 + offset) % WORDS.length]).join(" ");
  return kind === "tool" ? `${index === 0 ? '{"notes": "' : ""}${words} ` : ` ${words}`;
}

function closingOf(kind: OutputKind): string {
  return kind === "tool" ? '"}' : "";
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** The plan of a request: "plan: <kinds joined by +> <pieces> <end>", e.g. "plan: tool+text 300 cut". */
export function planText(kinds: OutputKind[], pieces: number, end: Ending): string {
  return `plan: ${kinds.join("+")} ${pieces} ${end}`;
}

function readPlan(text: string): { name: string; plan: Plan } | null {
  const match = /plan: ([a-z+]+) (\d+) ([a-z-]+)/.exec(text);
  if (!match) return null;
  return { name: match[0], plan: { kinds: match[1]!.split("+") as OutputKind[], pieces: Number(match[2]), end: match[3] as Ending } };
}

function lastUserText(messages: any[]): string {
  const last = [...(messages ?? [])].reverse().find((message) => message?.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content ?? []).map((part: any) => part?.text ?? "").join(" ");
}

/** What one plan writes, kind by kind: the pieces of each block, and the tokens they bill. */
function generate(plan: Plan): { blocks: { kind: OutputKind; pieces: string[] }[]; tokens: number } {
  const blocks = plan.kinds.map((kind) => {
    const pieces = Array.from({ length: plan.pieces }, (_, index) => piece(kind, index));
    const close = closingOf(kind);
    if (close) pieces.push(close);
    return { kind, pieces };
  });
  let tokens = 0;
  for (const block of blocks) {
    tokens += countTokens(block.pieces.join(""));
    if (block.kind === "tool") tokens += countTokens("record_notes");
    // An unknown kind is billed like the rest: the model wrote it.
  }
  return { blocks, tokens };
}

export async function startDeliveryUpstream(): Promise<DeliveryUpstream> {
  const deliveries: Delivery[] = [];

  function chat(body: any, response: http.ServerResponse, delivery: Delivery, plan: Plan) {
    const { blocks, tokens } = generate(plan);
    delivery.outputTokens = tokens;
    const usage = { prompt_tokens: delivery.inputTokens, completion_tokens: tokens, total_tokens: delivery.inputTokens + tokens };
    const base = { id: "chatcmpl-delivery", object: "chat.completion.chunk", created: 1_700_000_000, model: body.model };
    if (!body.stream) {
      const message: Record<string, unknown> = { role: "assistant", content: null };
      for (const block of blocks) {
        const text = block.pieces.join("");
        if (block.kind === "text") message.content = text;
        else if (block.kind === "reasoning") message.reasoning_content = text;
        else if (block.kind === "refusal") message.refusal = text;
        else if (block.kind === "tool")
          message.tool_calls = [{ id: "call_delivery", type: "function", function: { name: "record_notes", arguments: text } }];
        else message.future_output = { text };
      }
      const answer = {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: "stop" }],
        ...(plan.end === "no-usage" ? {} : { usage }),
      };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      sse(undefined, { ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
    response.write(chunk({ role: "assistant", content: "" }));
    for (const block of blocks) {
      block.pieces.forEach((text, index) => {
        if (block.kind === "tool") {
          const start = index === 0 ? { id: "call_delivery", type: "function", function: { name: "record_notes", arguments: text } } : null;
          response.write(chunk({ tool_calls: [start ? { index: 0, ...start } : { index: 0, function: { arguments: text } }] }));
        } else if (block.kind === "reasoning") response.write(chunk({ reasoning_content: text }));
        else if (block.kind === "refusal") response.write(chunk({ refusal: text }));
        else if (block.kind === "unknown") response.write(chunk({ future_output: { text } }));
        else response.write(chunk({ content: text }));
      });
    }
    finishStream(response, delivery, plan.end, () => [
      chunk({}, blocks.some((block) => block.kind === "tool") ? "tool_calls" : "stop"),
      ...(plan.end === "no-usage" ? [] : [sse(undefined, { ...base, choices: [], usage })]),
      sse(undefined, "[DONE]"),
    ]);
  }

  function messages(body: any, response: http.ServerResponse, delivery: Delivery, plan: Plan) {
    const { blocks, tokens } = generate(plan);
    delivery.outputTokens = tokens;
    const usage = { input_tokens: delivery.inputTokens, output_tokens: tokens };
    const base = { id: "msg_delivery", type: "message", role: "assistant", model: body.model, stop_sequence: null };
    if (!body.stream) {
      const content = blocks.map((block) => {
        const text = block.pieces.join("");
        if (block.kind === "thinking" || block.kind === "reasoning") return { type: "thinking", thinking: text, signature: "c2ln" };
        if (block.kind === "tool") return { type: "tool_use", id: "toolu_delivery", name: "record_notes", input: JSON.parse(text) };
        if (block.kind === "unknown") return { type: "future_block", value: text };
        return { type: "text", text };
      });
      const answer = { ...base, content, stop_reason: "end_turn", ...(plan.end === "no-usage" ? { usage: {} } : { usage }) };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(
      sse("message_start", {
        type: "message_start",
        message: {
          ...base,
          content: [],
          stop_reason: null,
          usage: plan.end === "no-usage" ? {} : { input_tokens: delivery.inputTokens, output_tokens: 1 },
        },
      }),
    );
    blocks.forEach((block, index) => {
      const start =
        block.kind === "thinking" || block.kind === "reasoning"
          ? { type: "thinking", thinking: "" }
          : block.kind === "tool"
            ? { type: "tool_use", id: "toolu_delivery", name: "record_notes", input: {} }
            : block.kind === "unknown"
              ? { type: "future_block" }
              : { type: "text", text: "" };
      response.write(sse("content_block_start", { type: "content_block_start", index, content_block: start }));
      for (const text of block.pieces) {
        const delta =
          start.type === "thinking"
            ? { type: "thinking_delta", thinking: text }
            : start.type === "tool_use"
              ? { type: "input_json_delta", partial_json: text }
              : start.type === "future_block"
                ? { type: "future_delta", value: text }
                : { type: "text_delta", text };
        response.write(sse("content_block_delta", { type: "content_block_delta", index, delta }));
      }
      if (start.type === "thinking")
        response.write(
          sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "c2ln" } }),
        );
      response.write(sse("content_block_stop", { type: "content_block_stop", index }));
    });
    finishStream(response, delivery, plan.end, () => [
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: blocks.some((block) => block.kind === "tool") ? "tool_use" : "end_turn", stop_sequence: null },
        usage: plan.end === "no-usage" ? {} : { output_tokens: tokens },
      }),
      sse("message_stop", { type: "message_stop" }),
    ]);
  }

  /** After the pieces: the dialect's closing events, or a clean end without them, or a broken connection. */
  function finishStream(response: http.ServerResponse, delivery: Delivery, end: Ending, closing: () => string[]) {
    if (end === "cut") {
      // Let what was written reach the gateway, then break the connection.
      setTimeout(() => response.destroy(), 50);
      return;
    }
    if (end === "no-terminal") return void response.end();
    for (const text of closing()) response.write(text);
    response.end();
    delivery.closedEarly = false;
  }

  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString("utf8") || "{}");
      const dialect = (incoming.url ?? "").endsWith("/chat/completions") ? "chat" : "messages";
      const found = readPlan(lastUserText(body.messages));
      if (!found) return void outgoing.writeHead(400).end('{"error":{"message":"no plan"}}');
      const delivery: Delivery = {
        dialect,
        plan: found.name,
        stream: body.stream === true,
        cap: body.max_completion_tokens ?? body.max_tokens ?? null,
        outputTokens: 0,
        inputTokens: Math.ceil(raw.length / 4),
        closedEarly: found.plan.end === "cut",
      };
      deliveries.push(delivery);
      if (dialect === "chat") chat(body, outgoing, delivery, found.plan);
      else messages(body, outgoing, delivery, found.plan);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
