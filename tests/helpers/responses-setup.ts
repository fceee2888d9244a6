// Shared by the Responses API tests (tests/integration/responses-*.test.ts): one gateway per test file on a fast
// simulator (the hooks below run in the file that imports this), fake upstreams, the expected event orders, ledger
// and account readers, and image makers.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type http from "node:http";
import OpenAI from "openai";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "./gateway";
import { sendJson, startFakeUpstream, type FakeUpstream, type Received } from "./fake-upstream";

// Seeded prices, USD per 1M tokens (= micro-USD per token).
export const TEXT_PRICE = { input: 1.25, output: 10 };
export const IMAGE_PRICE = { textInput: 5, imageInput: 8, imageOutput: 30 };
export const FAST = { responsesThinkMs: 10, responsesImageMs: 30 };

export let gateway: Gateway;
export let key: string;
export let simulatorId: string;
export const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 }));
  const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[];
  simulatorId = channels.find((channel) => channel.type === "simulator")!.id;
  await simulator(FAST);
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

export async function simulator(settings: Record<string, unknown>): Promise<void> {
  await gateway.admin("PATCH", `/api/admin/channels/${simulatorId}`, { settings });
}

export async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

export async function channel(body: Record<string, unknown>): Promise<string> {
  return (await gateway.admin("POST", "/api/admin/channels", body)).id;
}

export async function ledgerRows(requestId: string) {
  return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data as any[];
}

export async function ledgerFor(requestId: string) {
  const rows = await ledgerRows(requestId);
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

export async function account(userId: string) {
  const user = ((await gateway.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[]).find(
    (entry) => entry.id === userId,
  )!;
  const keys = (await gateway.admin("GET", `/api/admin/keys?userId=${userId}`)).data as { quotaRemaining: number }[];
  return { balance: user.balance, quota: keys[0]!.quotaRemaining };
}

export function client(apiKey = key) {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 120_000 });
}

export type Event = Record<string, any> & { type: string; sequence_number: number };

export function ask(text: string, tool: Record<string, unknown> = {}, extra: { images?: string[]; instructions?: string } = {}) {
  const content: any[] = [
    { type: "input_text", text },
    ...(extra.images ?? []).map((url) => ({ type: "input_image", image_url: url, detail: "auto" })),
  ];
  return {
    model: "std-5.5",
    stream: true as const,
    instructions: extra.instructions ?? "You are an illustrator. Use the image tool for every picture.",
    input: [{ role: "user" as const, content }],
    tools: [{ type: "image_generation" as const, ...tool }],
  };
}

/** Runs a request through the official client and collects every event, with the request id. */
export async function run(body: ReturnType<typeof ask>, apiKey = key): Promise<{ events: Event[]; requestId: string; elapsedMs: number }> {
  const started = performance.now();
  const { data: stream, response } = await client(apiKey)
    .responses.create(body as never)
    .withResponse();
  const events: Event[] = [];
  for await (const event of stream as unknown as AsyncIterable<Event>) events.push(event);
  return { events, requestId: response.headers.get("x-request-id")!, elapsedMs: performance.now() - started };
}

export const IMAGE_EVENTS = [
  "response.output_item.added",
  "response.image_generation_call.in_progress",
  "response.image_generation_call.generating",
  "response.image_generation_call.partial_image",
  "response.output_item.done",
];
export const MESSAGE_EVENTS = [
  "response.output_item.added",
  "response.content_part.added",
  "response.output_text.delta",
  "response.output_text.done",
  "response.content_part.done",
  "response.output_item.done",
];

export function expectedOrder(images: number, message = false): string[] {
  return [
    "response.created",
    "response.in_progress",
    ...Array.from({ length: images }, () => IMAGE_EVENTS).flat(),
    ...(message ? MESSAGE_EVENTS : []),
    "response.completed",
  ];
}

export function withoutKeepalives(events: Event[]): string[] {
  return events.filter((event) => event.type !== "keepalive").map((event) => event.type);
}

export function assertNumbered(events: Event[]): void {
  assert.deepEqual(
    events.map((event) => event.sequence_number),
    events.map((_, index) => index),
    "sequence numbers run 0, 1, 2, ... with keepalives included",
  );
}

export async function decode(b64: string) {
  const metadata = await sharp(Buffer.from(b64, "base64")).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

export const sha = (b64: string) => createHash("sha256").update(b64).digest("hex");
export const textCost = (input: number, output: number) => input * TEXT_PRICE.input + output * TEXT_PRICE.output;
export const imageCost = (part: { textInputTokens: number; imageInputTokens: number; imageOutputTokens: number }) =>
  part.textInputTokens * IMAGE_PRICE.textInput +
  part.imageInputTokens * IMAGE_PRICE.imageInput +
  part.imageOutputTokens * IMAGE_PRICE.imageOutput;

export async function pngDataUri(width: number, height: number, colour = "#3366cc"): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

export async function realImage(width: number, height: number, format: "png" | "jpeg" | "webp"): Promise<string> {
  const image = sharp({ create: { width, height, channels: 3, background: "#aa5522" } });
  return (await (format === "png" ? image.png() : format === "jpeg" ? image.jpeg() : image.webp()).toBuffer()).toString("base64");
}

/** A chat.completion whose message calls generate_image once per prompt. */
export function toolCallCompletion(prompts: { prompt: string; action?: string }[], usage = { prompt_tokens: 900, completion_tokens: 60 }) {
  return {
    id: "chatcmpl-tools",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "real-text",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: prompts.map((entry, index) => ({
            id: `call_${index + 1}`,
            type: "function",
            function: { name: "generate_image", arguments: JSON.stringify({ action: "generate", ...entry }) },
          })),
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** An OpenAI-compatible image upstream: a real image of the requested size and format, with usage. */
export async function answerImage(request: Received, response: http.ServerResponse, usage = { text: 20, output: 272 }) {
  const [width, height] = String(request.body.size ?? "1024x1024")
    .split("x")
    .map(Number);
  const format = (request.body.output_format ?? "png") as "png" | "jpeg" | "webp";
  sendJson(response, 200, {
    created: 1_700_000_000,
    data: [{ b64_json: await realImage(width!, height!, format) }],
    size: request.body.size,
    quality: request.body.quality ?? "medium",
    output_format: format,
    usage: {
      input_tokens: usage.text,
      input_tokens_details: { text_tokens: usage.text, image_tokens: 0 },
      output_tokens: usage.output,
      output_tokens_details: { image_tokens: usage.output, text_tokens: 0 },
      total_tokens: usage.text + usage.output,
    },
  });
}
