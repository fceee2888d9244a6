// A fake upstream that records what it received, so tests assert on the outgoing request as well as on what
// the client got. Each test sets `respond` to decide the answer.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: any; raw: Buffer };
export type Respond = (request: Received, response: http.ServerResponse) => void | Promise<void>;

export type FakeUpstream = {
  url: string;
  received: Received[];
  respond: Respond;
  /** Connections closed by the client before the answer ended (aborts seen upstream). */
  aborted: number;
  close: () => Promise<void>;
};

export async function startFakeUpstream(
  respond: Respond = (_request, response) => void response.writeHead(500).end(),
): Promise<FakeUpstream> {
  const fake: FakeUpstream = { url: "", received: [], respond, aborted: 0, close: async () => undefined };
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
      } catch {
        body = null;
      }
      const received: Received = { method: incoming.method ?? "", path: incoming.url ?? "", headers: incoming.headers, body, raw };
      fake.received.push(received);
      outgoing.on("close", () => {
        if (!outgoing.writableFinished) fake.aborted++;
      });
      void Promise.resolve(fake.respond(received, outgoing)).catch(() => outgoing.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Writes SSE events with an optional pause between them. */
export async function sendSse(response: http.ServerResponse, events: { event?: string; data: unknown }[], pauseMs = 0): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    if (response.destroyed) return;
    const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
    response.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  response.end();
}

export function chatCompletion(content: string, model: string, usage = { prompt_tokens: 11, completion_tokens: 7 }) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export function chatChunks(words: string[], model: string, usage = { prompt_tokens: 11, completion_tokens: 7 }) {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model };
  return [
    { data: { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] } },
    ...words.map((word) => ({ data: { ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] } })),
    { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
    { data: { ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } },
    { data: "[DONE]" },
  ];
}

export function anthropicMessage(text: string, model: string, usage = { input_tokens: 13, output_tokens: 9 }) {
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage,
  };
}

export function anthropicEvents(words: string[], model: string, usage = { input_tokens: 13, output_tokens: 9 }) {
  return [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      },
    },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "ping", data: { type: "ping" } },
    ...words.map((word) => ({
      event: "content_block_delta",
      data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: word } },
    })),
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}
