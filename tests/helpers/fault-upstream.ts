// A fake upstream that misbehaves on purpose. It speaks enough of the OpenAI API (chat completions,
// image generations and edits) and the Anthropic API (messages) to serve real answers, and for each request applies
// one fault mode: an error status, a reset before or after the headers, a stall, a truncated or malformed body, a
// slow drip, an oversized body. It records what it received and what it reported, so tests can compute what the
// client should have been charged, and it counts open connections so leaks show.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicEvents, anthropicMessage, chatChunks, chatCompletion } from "./fake-upstream";

export const FAULT_MODES = [
  "ok",
  "5xx",
  "429",
  "reset-before-headers",
  "reset-after-headers",
  "stall-before-headers",
  "stall-after-headers",
  "truncated",
  "malformed-json",
  "slow-drip",
  "oversized",
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export type FaultKind = "chat" | "messages" | "images";

export type FaultOptions = {
  /** Status for "5xx" (default 503). */
  status: number;
  /** Retry-After for "429" (default "7"). */
  retryAfter: string;
  /** Pause between bytes for "slow-drip" (default 20 ms). */
  dripMs: number;
  /** Body size for "oversized" (default 40 MB). */
  oversizeBytes: number;
  /** Words of text a chat or messages answer carries (default 5). */
  words: number;
  /** Pause between stream events (default 0). */
  eventPauseMs: number;
  /** Stream events written before a mid-stream fault (default 3 words' worth). */
  eventsBeforeFault: number;
  /** Wait before answering at all, in every mode (default 0). */
  delayMs: number;
  /** Also waited for before answering, after delayMs (a race's gate, tests/helpers/race-gate.ts). */
  hold?: () => Promise<void>;
  /** How long an idle keep-alive connection stays open (default 30 s, like a real API). */
  keepAliveTimeoutMs: number;
  /** The usage a chat answer reports (default CHAT_USAGE). */
  chatUsage: { prompt_tokens: number; completion_tokens: number };
};

/** What the upstream did for one request. `usage` is what it reported; absent when it never reported any. */
export type FaultRecord = {
  kind: FaultKind;
  path: string;
  stream: boolean;
  mode: FaultMode;
  body: any;
  headers: http.IncomingHttpHeaders;
  usage?: { input: number; output: number; imageInput?: number };
  /** The text words written before the answer ended or broke. */
  textSent: string;
  /** The answer was written in full. */
  complete: boolean;
  /** The gateway closed the connection before the answer was complete (an abort seen upstream). */
  abortedByGateway: boolean;
};

export type FaultUpstream = {
  /** Root URL: an `anthropic` channel's baseUrl; `${url}/v1` for an `openai` channel. */
  url: string;
  /** The mode for the next requests; a function decides per request (the soak test mixes modes). */
  mode: FaultMode | ((request: { kind: FaultKind; stream: boolean; index: number; body: any }) => FaultMode);
  options: FaultOptions;
  records: FaultRecord[];
  /** Connections open right now (from the gateway to this upstream). */
  openConnections: () => number;
  /** Requests being answered right now. */
  inFlight: () => number;
  reset: () => void;
  close: () => Promise<void>;
};

/** A 1x1 PNG: enough for the gateway's format sniffing; what an image costs comes from the reported usage. */
export const TINY_PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const CHAT_USAGE = { prompt_tokens: 11, completion_tokens: 7 };
export const MESSAGES_USAGE = { input_tokens: 13, output_tokens: 9 };
/** What an image answer reports for its input (its output tokens depend on the size and quality asked: imageTokens). */
export const IMAGE_INPUT_USAGE = { input_tokens: 30, input_tokens_details: { text_tokens: 20, image_tokens: 10 } };

type ImageQuality = "low" | "medium" | "high";
const QUALITY_AXIS: Record<ImageQuality, number> = { low: 16, medium: 48, high: 96 };

/**
 * The image output tokens the vendor bills for one image of `width` x `height` at `quality` (gpt-image-2), worked
 * out here on its own rather than taken from the gateway (lib/money/image-tokens.ts), so that a test can tell when
 * the gateway's reservation falls short of a real bill. The vendor publishes no formula, only a calculator on its
 * image generation guide (https://developers.openai.com/api/docs/guides/image-generation#size-and-quality-options);
 * this is the calculator's arithmetic as written out in the vendor's developer forum
 * (https://community.openai.com/t/gpt-image-2-output-pricing-calculator-online-and-in-your-code/1382699): a quality
 * factor per axis (16, 48, 96), scaled along the short side by short/long (rounded), times the area plus 2 M pixels,
 * over 4 M, rounded up. It reproduces the spec's observed 196 tokens for 1024x1024 low and, at $30 per 1M image
 * output tokens, every cell of its reference cost table (docs/api.md §8): tests/unit/fault-upstream-image-tokens.test.ts.
 */
export function imageTokens(width: number, height: number, quality: ImageQuality): number {
  const axis = QUALITY_AXIS[quality];
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const shortAxis = Math.floor((2 * axis * short + long) / (2 * long));
  return Math.ceil((axis * shortAxis * (2_000_000 + width * height)) / 4_000_000);
}

/** The size and quality an image request asks for; `auto` (or none) as the most the vendor may pick: 1024x1024, high. */
function imageRequest(body: any): { width: number; height: number; quality: ImageQuality } {
  const size = /^(\d+)x(\d+)$/.exec(String(body?.size ?? ""));
  const quality = ["low", "medium", "high"].includes(body?.quality) ? (body.quality as ImageQuality) : "high";
  return size ? { width: Number(size[1]), height: Number(size[2]), quality } : { width: 1024, height: 1024, quality };
}

/** A text field of a multipart body (an edit's size and quality), found without decoding the files around it. */
function multipartField(raw: Buffer, name: string): string | undefined {
  const at = raw.indexOf(`name="${name}"`);
  if (at === -1) return undefined;
  const start = raw.indexOf("\r\n\r\n", at);
  const end = start === -1 ? -1 : raw.indexOf("\r\n", start + 4);
  return end === -1 ? undefined : raw.subarray(start + 4, end).toString("utf8");
}

const DEFAULTS: FaultOptions = {
  chatUsage: CHAT_USAGE,
  status: 503,
  retryAfter: "7",
  dripMs: 20,
  oversizeBytes: 40 * 1024 * 1024,
  words: 5,
  eventPauseMs: 0,
  eventsBeforeFault: 3,
  delayMs: 0,
  keepAliveTimeoutMs: 30_000,
};

function kindOf(path: string): FaultKind | null {
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/messages")) return "messages";
  if (path.includes("/images/")) return "images";
  return null;
}

function words(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `word${index} `);
}

function sse(event: { event?: string; data: unknown }): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`;
}

/** The dialect's error body for a status. */
function errorBody(kind: FaultKind, status: number, message: string): unknown {
  if (kind === "messages")
    return {
      type: "error",
      error: { type: status === 429 ? "rate_limit_error" : status === 529 ? "overloaded_error" : "api_error", message },
    };
  return { error: { message, type: status === 429 ? "rate_limit_error" : "server_error", code: null, param: null } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes with backpressure; false when the connection went away. */
async function write(response: http.ServerResponse, chunk: string | Buffer): Promise<boolean> {
  if (response.destroyed) return false;
  if (response.write(chunk)) return !response.destroyed;
  await new Promise<void>((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.once("drain", done);
    response.once("close", done);
  });
  return !response.destroyed;
}

export async function startFaultUpstream(mode: FaultUpstream["mode"] = "ok", options: Partial<FaultOptions> = {}): Promise<FaultUpstream> {
  const sockets = new Set<Socket>();
  let active = 0;
  let index = 0;
  const fake: FaultUpstream = {
    url: "",
    mode,
    options: { ...DEFAULTS, ...options },
    records: [],
    openConnections: () => sockets.size,
    inFlight: () => active,
    reset: () => void (fake.records.length = 0),
    close: async () => undefined,
  };

  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks);
      const kind = kindOf(incoming.url ?? "");
      let body: any = null;
      if (kind !== "images" || (incoming.headers["content-type"] ?? "").includes("json")) {
        try {
          body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
        } catch {
          body = null;
        }
      } else {
        body = { multipartBytes: raw.length, size: multipartField(raw, "size"), quality: multipartField(raw, "quality") };
      }
      if (!kind) {
        outgoing.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no such path" } }));
        return;
      }
      const stream = body?.stream === true;
      const chosen = typeof fake.mode === "function" ? fake.mode({ kind, stream, index: index++, body }) : fake.mode;
      const record: FaultRecord = {
        kind,
        path: incoming.url ?? "",
        stream,
        mode: chosen,
        body,
        headers: incoming.headers,
        textSent: "",
        complete: false,
        abortedByGateway: false,
      };
      fake.records.push(record);
      active++;
      let counted = true;
      const finish = () => {
        if (counted) {
          counted = false;
          active--;
        }
      };
      outgoing.on("close", () => {
        if (!outgoing.writableFinished && !record.complete) record.abortedByGateway = true;
        finish();
      });
      void answer(record, incoming, outgoing, fake.options)
        .catch(() => outgoing.destroy())
        .finally(() => {
          if (outgoing.writableFinished) finish();
        });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // Keep-alive like a real API.
  server.keepAliveTimeout = fake.options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}

/** The complete answer as SSE events (stream) or one JSON body (not stream), and the usage it reports. */
function normalAnswer(
  record: FaultRecord,
  options: FaultOptions,
): { events?: { event?: string; data: unknown }[]; json?: unknown; text: string[]; usage: FaultRecord["usage"] } {
  const model = String(record.body?.model ?? "upstream-model");
  const text = words(options.words);
  if (record.kind === "chat") {
    const usage = options.chatUsage;
    if (record.stream)
      return { events: chatChunks(text, model, usage), text, usage: { input: usage.prompt_tokens, output: usage.completion_tokens } };
    return {
      json: chatCompletion(text.join(""), model, usage),
      text,
      usage: { input: usage.prompt_tokens, output: usage.completion_tokens },
    };
  }
  if (record.kind === "messages") {
    if (record.stream)
      return {
        events: anthropicEvents(text, model, MESSAGES_USAGE),
        text,
        usage: { input: MESSAGES_USAGE.input_tokens, output: MESSAGES_USAGE.output_tokens },
      };
    return {
      json: anthropicMessage(text.join(""), model, MESSAGES_USAGE),
      text,
      usage: { input: MESSAGES_USAGE.input_tokens, output: MESSAGES_USAGE.output_tokens },
    };
  }
  const { width, height, quality } = imageRequest(record.body);
  const output = imageTokens(width, height, quality);
  return {
    json: {
      created: 1_700_000_000,
      data: [{ b64_json: TINY_PNG_B64 }],
      usage: { ...IMAGE_INPUT_USAGE, output_tokens: output, total_tokens: IMAGE_INPUT_USAGE.input_tokens + output },
      size: `${width}x${height}`,
      quality,
      output_format: "png",
    },
    text: [],
    usage: {
      input: IMAGE_INPUT_USAGE.input_tokens_details.text_tokens,
      imageInput: IMAGE_INPUT_USAGE.input_tokens_details.image_tokens,
      output,
    },
  };
}

function textOfEvent(event: { data: unknown }): string {
  const data = event.data as any;
  if (typeof data !== "object" || data === null) return "";
  return data.choices?.[0]?.delta?.content ?? (data.type === "content_block_delta" ? (data.delta?.text ?? "") : "");
}

async function answer(
  record: FaultRecord,
  incoming: http.IncomingMessage,
  outgoing: http.ServerResponse,
  options: FaultOptions,
): Promise<void> {
  const normal = normalAnswer(record, options);
  const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };
  const jsonHeaders = { "content-type": "application/json" };
  if (options.delayMs) await sleep(options.delayMs);
  if (options.hold) await options.hold();

  switch (record.mode) {
    case "ok": {
      if (normal.events) {
        outgoing.writeHead(200, sseHeaders);
        for (const event of normal.events) {
          if (!(await write(outgoing, sse(event)))) return;
          record.textSent += textOfEvent(event);
          if (options.eventPauseMs) await sleep(options.eventPauseMs);
        }
      } else {
        outgoing.writeHead(200, jsonHeaders);
        if (!(await write(outgoing, JSON.stringify(normal.json)))) return;
        record.textSent = normal.text.join("");
      }
      record.usage = normal.usage;
      record.complete = true;
      outgoing.end();
      return;
    }
    case "5xx":
    case "429": {
      const status = record.mode === "429" ? 429 : options.status;
      outgoing.writeHead(status, { ...jsonHeaders, ...(record.mode === "429" ? { "retry-after": options.retryAfter } : {}) });
      outgoing.end(
        JSON.stringify(
          errorBody(record.kind, status, record.mode === "429" ? "Rate limit reached, slow down" : "The upstream is overloaded"),
        ),
      );
      record.complete = true;
      return;
    }
    case "reset-before-headers": {
      incoming.socket.resetAndDestroy();
      return;
    }
    case "reset-after-headers": {
      if (normal.events) {
        outgoing.writeHead(200, sseHeaders);
        for (const event of normal.events.slice(0, 1 + options.eventsBeforeFault)) {
          if (!(await write(outgoing, sse(event)))) return;
          record.textSent += textOfEvent(event);
        }
      } else {
        outgoing.writeHead(200, jsonHeaders);
        const text = JSON.stringify(normal.json);
        await write(outgoing, text.slice(0, Math.floor(text.length / 2)));
      }
      await sleep(30);
      incoming.socket.resetAndDestroy();
      return;
    }
    case "stall-before-headers": {
      // Nothing at all, until the gateway gives up and closes the connection.
      await new Promise<void>((resolve) => outgoing.once("close", resolve));
      return;
    }
    case "stall-after-headers": {
      if (normal.events) {
        outgoing.writeHead(200, sseHeaders);
        for (const event of normal.events.slice(0, 1 + options.eventsBeforeFault)) {
          if (!(await write(outgoing, sse(event)))) return;
          record.textSent += textOfEvent(event);
        }
      } else {
        outgoing.writeHead(200, jsonHeaders);
        const text = JSON.stringify(normal.json);
        await write(outgoing, text.slice(0, 10));
      }
      await new Promise<void>((resolve) => outgoing.once("close", resolve));
      return;
    }
    case "truncated": {
      // The body ends cleanly (no reset) in the middle of an event, or of the JSON document.
      if (normal.events) {
        outgoing.writeHead(200, sseHeaders);
        for (const event of normal.events.slice(0, 1 + options.eventsBeforeFault)) {
          if (!(await write(outgoing, sse(event)))) return;
          record.textSent += textOfEvent(event);
        }
        const next = sse(normal.events[1 + options.eventsBeforeFault]!);
        await write(outgoing, next.slice(0, Math.floor(next.length / 2)));
      } else {
        outgoing.writeHead(200, jsonHeaders);
        const text = JSON.stringify(normal.json);
        await write(outgoing, text.slice(0, Math.floor(text.length / 2)));
      }
      outgoing.end();
      return;
    }
    case "malformed-json": {
      if (normal.events) {
        outgoing.writeHead(200, sseHeaders);
        for (const event of normal.events.slice(0, 1 + options.eventsBeforeFault)) {
          if (!(await write(outgoing, sse(event)))) return;
          record.textSent += textOfEvent(event);
        }
        await write(
          outgoing,
          `${record.kind === "messages" ? "event: content_block_delta\n" : ""}data: {"choices": [{"delta": {"content": "broken\n\n`,
        );
        for (const event of normal.events.slice(1 + options.eventsBeforeFault)) if (!(await write(outgoing, sse(event)))) return;
      } else {
        outgoing.writeHead(200, jsonHeaders);
        await write(outgoing, '{"id": "chatcmpl-broken", "choices": [ this is not JSON');
      }
      outgoing.end();
      return;
    }
    case "slow-drip": {
      const bytes = Buffer.from(normal.events ? normal.events.map(sse).join("") : JSON.stringify(normal.json));
      outgoing.writeHead(200, normal.events ? sseHeaders : jsonHeaders);
      for (let offset = 0; offset < bytes.length; offset++) {
        if (!(await write(outgoing, bytes.subarray(offset, offset + 1)))) return;
        await sleep(options.dripMs);
      }
      record.textSent = normal.text.join("");
      record.usage = normal.usage;
      record.complete = true;
      outgoing.end();
      return;
    }
    case "oversized": {
      // A body that never ends where it should: one JSON string (or one SSE data line) of oversizeBytes.
      outgoing.writeHead(200, normal.events ? sseHeaders : jsonHeaders);
      if (normal.events) {
        const first = normal.events[0]!;
        if (!(await write(outgoing, sse(first)))) return;
        if (!(await write(outgoing, 'data: {"choices": [{"delta": {"content": "'))) return;
      } else if (
        !(await write(
          outgoing,
          record.kind === "images" ? '{"data": [{"b64_json": "' : '{"id": "x", "choices": [{"message": {"content": "',
        ))
      )
        return;
      const block = Buffer.alloc(64 * 1024, "a");
      for (let sent = 0; sent < options.oversizeBytes; sent += block.length) if (!(await write(outgoing, block))) return;
      await write(outgoing, normal.events ? '"}}]}\n\n' : '"}]}');
      outgoing.end();
      return;
    }
  }
}
