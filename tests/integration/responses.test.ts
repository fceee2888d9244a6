// Responses API with the image generation tool (issue 5): the official openai client consumes the stream from the
// running gateway; exact event order for one and three images; keepalives under a slow upstream; every partial image
// decodes to the requested size and format; every validation rule pinned (status, message, nothing charged); the
// tool loop against recording fake Chat Completions, Messages and image upstreams; the native Responses relay with
// multi-megabyte events; and clients that disconnect after the first of three images.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type http from "node:http";
import OpenAI from "openai";
import sharp from "sharp";
import { imageOutputTokens } from "../../lib/money/image-tokens";
import { countTextTokens } from "../../lib/money/tokens";
import { DEFAULT_MODERATION_TERMS } from "../../lib/moderation/policy";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { anthropicMessage, chatCompletion, sendJson, sendSse, startFakeUpstream, type FakeUpstream, type Received } from "../helpers/fake-upstream";

// Seeded prices, USD per 1M tokens (= micro-USD per token).
const TEXT_PRICE = { input: 1.25, output: 10 };
const IMAGE_PRICE = { textInput: 5, imageInput: 8, imageOutput: 32 };
const FAST = { responsesThinkMs: 10, responsesImageMs: 30 };

let gateway: Gateway;
let key: string;
let simulatorId: string;
const upstreams: FakeUpstream[] = [];

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

async function simulator(settings: Record<string, unknown>): Promise<void> {
  await gateway.admin("PATCH", `/api/admin/channels/${simulatorId}`, { settings });
}

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

async function channel(body: Record<string, unknown>): Promise<string> {
  return (await gateway.admin("POST", "/api/admin/channels", body)).id;
}

async function ledgerRows(requestId: string) {
  return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data as any[];
}

async function ledgerFor(requestId: string) {
  const rows = await ledgerRows(requestId);
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

async function account(userId: string) {
  const user = ((await gateway.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[]).find((entry) => entry.id === userId)!;
  const keys = (await gateway.admin("GET", `/api/admin/keys?userId=${userId}`)).data as { quotaRemaining: number }[];
  return { balance: user.balance, quota: keys[0]!.quotaRemaining };
}

function client(apiKey = key) {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 120_000 });
}

type Event = Record<string, any> & { type: string; sequence_number: number };

function ask(text: string, tool: Record<string, unknown> = {}, extra: { images?: string[]; instructions?: string } = {}) {
  const content: any[] = [{ type: "input_text", text }, ...(extra.images ?? []).map((url) => ({ type: "input_image", image_url: url, detail: "auto" }))];
  return {
    model: "std-5.5",
    stream: true as const,
    instructions: extra.instructions ?? "You are an illustrator. Use the image tool for every picture.",
    input: [{ role: "user" as const, content }],
    tools: [{ type: "image_generation" as const, ...tool }],
  };
}

/** Runs a request through the official client and collects every event, with the request id. */
async function run(body: ReturnType<typeof ask>, apiKey = key): Promise<{ events: Event[]; requestId: string; elapsedMs: number }> {
  const started = performance.now();
  const { data: stream, response } = await client(apiKey).responses.create(body as never).withResponse();
  const events: Event[] = [];
  for await (const event of stream as unknown as AsyncIterable<Event>) events.push(event);
  return { events, requestId: response.headers.get("x-request-id")!, elapsedMs: performance.now() - started };
}

const IMAGE_EVENTS = [
  "response.output_item.added",
  "response.image_generation_call.in_progress",
  "response.image_generation_call.generating",
  "response.image_generation_call.partial_image",
  "response.output_item.done",
];
const MESSAGE_EVENTS = [
  "response.output_item.added",
  "response.content_part.added",
  "response.output_text.delta",
  "response.output_text.done",
  "response.content_part.done",
  "response.output_item.done",
];

function expectedOrder(images: number, message = false): string[] {
  return ["response.created", "response.in_progress", ...Array.from({ length: images }, () => IMAGE_EVENTS).flat(), ...(message ? MESSAGE_EVENTS : []), "response.completed"];
}

function withoutKeepalives(events: Event[]): string[] {
  return events.filter((event) => event.type !== "keepalive").map((event) => event.type);
}

function assertNumbered(events: Event[]): void {
  assert.deepEqual(events.map((event) => event.sequence_number), events.map((_, index) => index), "sequence numbers run 0, 1, 2, ... with keepalives included");
}

async function decode(b64: string) {
  const metadata = await sharp(Buffer.from(b64, "base64")).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

const sha = (b64: string) => createHash("sha256").update(b64).digest("hex");
const textCost = (input: number, output: number) => input * TEXT_PRICE.input + output * TEXT_PRICE.output;
const imageCost = (part: { textInputTokens: number; imageInputTokens: number; imageOutputTokens: number }) =>
  part.textInputTokens * IMAGE_PRICE.textInput + part.imageInputTokens * IMAGE_PRICE.imageInput + part.imageOutputTokens * IMAGE_PRICE.imageOutput;

async function pngDataUri(width: number, height: number, colour = "#3366cc"): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

async function realImage(width: number, height: number, format: "png" | "jpeg" | "webp"): Promise<string> {
  const image = sharp({ create: { width, height, channels: 3, background: "#aa5522" } });
  return (await (format === "png" ? image.png() : format === "jpeg" ? image.jpeg() : image.webp()).toBuffer()).toString("base64");
}

describe("built-in simulator through the official client", () => {
  test("one image: exact event order, the image decodes to the requested size and format, two-part ledger row", async () => {
    const { events, requestId } = await run(ask("A lighthouse at dusk", { size: "1024x1536", quality: "low", output_format: "jpeg", output_compression: 40 }));
    assert.deepEqual(events.map((event) => event.type), expectedOrder(1));
    assertNumbered(events);

    const created = events[0]!.response;
    assert.equal(created.object, "response");
    assert.equal(created.status, "in_progress");
    assert.equal(created.model, "std-5.5");
    assert.match(created.id, /^resp_/);
    assert.equal(created.tools[0].type, "image_generation");
    assert.equal(created.tools[0].size, "1024x1536");

    const added = events[2]!;
    assert.deepEqual(Object.keys(added.item).sort(), ["id", "status", "type"]);
    assert.equal(added.item.type, "image_generation_call");
    assert.equal(added.item.status, "in_progress");
    assert.match(added.item.id, /^ig_/);
    for (const event of events.slice(3, 7)) {
      assert.equal(event.item_id ?? event.item.id, added.item.id);
      assert.equal(event.output_index, 0);
    }

    const partial = events[5]!;
    assert.equal(partial.partial_image_index, 0);
    assert.equal(partial.size, "1024x1536");
    assert.equal(partial.quality, "low");
    assert.equal(partial.output_format, "jpeg");
    assert.equal(partial.background, "opaque");
    assert.deepEqual(await decode(partial.partial_image_b64), { format: "jpeg", width: 1024, height: 1536 });

    const done = events[6]!.item;
    assert.equal(done.status, "completed");
    assert.equal(done.result, partial.partial_image_b64, "output_item.done carries the same image");
    assert.equal(done.size, "1024x1536");
    assert.equal(done.quality, "low");
    assert.match(done.revised_prompt, /^A lighthouse at dusk, /);

    const completed = events[7]!.response;
    assert.equal(completed.status, "completed");
    assert.equal(completed.id, created.id);
    assert.equal(completed.output.length, 1);
    assert.equal(completed.output[0].id, added.item.id);
    assert.equal(completed.output[0].result, partial.partial_image_b64, "response.completed carries the image as the vendor's does (the SDKs' finalResponse() reads it)");
    const { usage, tool_usage } = completed;
    const total = usage.input_tokens + usage.output_tokens;
    assert.ok(total >= 1_600 && total <= 2_300, `about 1,600-2,300 text tokens per call (got ${total})`);
    assert.equal(usage.total_tokens, total);
    assert.equal(tool_usage.image_gen.output_tokens, imageOutputTokens(1024, 1536, "low"));
    assert.equal(tool_usage.image_gen.input_tokens, countTextTokens(done.revised_prompt));

    const row = await ledgerFor(requestId);
    assert.equal(row.endpoint, "/v1/responses");
    assert.equal(row.model, "std-5.5");
    assert.equal(row.status, "success");
    assert.equal(row.stream, true);
    assert.equal(row.channelName, "Built-in simulator (offline)");
    const [textPart, imagePart] = row.detail.parts;
    assert.deepEqual(
      { model: textPart.model, input: textPart.textInputTokens, output: textPart.textOutputTokens },
      { model: "std-5.5", input: usage.input_tokens, output: usage.output_tokens },
    );
    assert.equal(imagePart.model, "std-image-2");
    assert.equal(imagePart.imageOutputTokens, tool_usage.image_gen.output_tokens);
    assert.equal(imagePart.textInputTokens, tool_usage.image_gen.input_tokens);
    assert.equal(textPart.cost, Math.ceil(textCost(usage.input_tokens, usage.output_tokens) - 1e-9));
    assert.equal(imagePart.cost, Math.ceil(imageCost(imagePart) - 1e-9));
    assert.equal(row.cost, textPart.cost + imagePart.cost);
    assert.ok(row.reserved >= row.cost);
    assert.equal(row.detail.imagesDelivered, 1);
  });

  test("three images: the per-image events repeat in order, each image decodes, prompts differ", async () => {
    const { events, requestId } = await run(ask("Please make three images of a red fox in the snow", { size: "1536x1024", quality: "medium", output_format: "webp" }));
    assert.deepEqual(events.map((event) => event.type), expectedOrder(3));
    assertNumbered(events);
    const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
    const done = events.filter((event) => event.type === "response.output_item.done").map((event) => event.item);
    assert.deepEqual(partials.map((event) => event.output_index), [0, 1, 2]);
    for (const partial of partials) assert.deepEqual(await decode(partial.partial_image_b64), { format: "webp", width: 1536, height: 1024 });
    assert.equal(new Set(done.map((item) => item.id)).size, 3);
    assert.equal(new Set(done.map((item) => item.revised_prompt)).size, 3, "each image has its own rewritten prompt");
    for (const item of done) assert.match(item.revised_prompt, /^A red fox in the snow, /);
    const completed = events.at(-1)!.response;
    assert.equal(completed.output.length, 3);
    assert.equal(completed.tool_usage.image_gen.output_tokens, 3 * imageOutputTokens(1536, 1024, "medium"));
    const row = await ledgerFor(requestId);
    assert.equal(row.imageOutputTokens, 3 * imageOutputTokens(1536, 1024, "medium"));
    assert.equal(row.detail.imagesDelivered, 3);
  });

  test("'two pictures' and '4 images' are honoured; more than four is capped at four", async () => {
    const count = async (text: string) => (await run(ask(text, { quality: "low" }))).events.filter((event) => event.type === "response.image_generation_call.partial_image").length;
    assert.equal(await count("two pictures of a sailing boat"), 2);
    assert.equal(await count("4 images of clouds"), 4);
    assert.equal(await count("Draw 9 images of a dog"), 4);
  });

  test("keepalive events while a slow image generates, numbered with the rest", async () => {
    await simulator({ responsesThinkMs: 0, responsesImageMs: 900, keepaliveMs: 100 });
    try {
      const { events, requestId } = await run(ask("A slow and detailed cathedral", { quality: "high" }));
      assert.deepEqual(withoutKeepalives(events), expectedOrder(1));
      assertNumbered(events);
      const keepalives = events.filter((event) => event.type === "keepalive");
      assert.ok(keepalives.length >= 5, `a heartbeat every 100 ms during a 900 ms image (got ${keepalives.length})`);
      for (const keepalive of keepalives) assert.deepEqual(Object.keys(keepalive).sort(), ["sequence_number", "type"]);
      const types = events.map((event) => event.type);
      const generating = types.indexOf("response.image_generation_call.generating");
      const partial = types.indexOf("response.image_generation_call.partial_image");
      assert.ok(types.slice(generating + 1, partial).filter((type) => type === "keepalive").length >= 4, "keepalives between generating and the image");
      assert.deepEqual(await decode(events[partial]!.partial_image_b64), { format: "png", width: 1024, height: 1024 });
      const row = await ledgerFor(requestId);
      assert.equal(row.detail.keepalives, keepalives.length);
    } finally {
      await simulator(FAST);
    }
  });

  test("action auto edits when an image is sent and the prompt asks for a change; generate forces a new image", async () => {
    const photo = await pngDataUri(1200, 800);
    const edited = await run(ask("Make it look like a watercolour painting", { quality: "low" }, { images: [photo] }));
    assert.deepEqual(edited.events.map((event) => event.type), expectedOrder(1));
    const item = edited.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.match(item.revised_prompt, /^Edit the provided image: /);
    assert.equal(item.size, "1536x1024", "an edit keeps the input's landscape shape");
    assert.deepEqual(await decode(item.result), { format: "png", width: 1536, height: 1024 });
    const editRow = await ledgerFor(edited.requestId);
    assert.equal(editRow.detail.action, "edit");
    assert.ok(editRow.detail.parts[1].imageInputTokens > 0, "the input image is billed as image input");

    const forced = await run(ask("Make it look like a watercolour painting", { quality: "low", action: "generate" }, { images: [photo] }));
    const generated = forced.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.doesNotMatch(generated.revised_prompt, /^Edit/);
    assert.equal(generated.size, "1024x1024");
    assert.equal((await ledgerFor(forced.requestId)).detail.action, "generate");

    const explicit = await run(ask("A lighthouse", { quality: "low", action: "edit", size: "1024x1024" }, { images: [photo] }));
    const explicitItem = explicit.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.match(explicitItem.revised_prompt, /^Edit the provided image: A lighthouse/);
    assert.deepEqual(await decode(explicitItem.result), { format: "png", width: 1024, height: 1024 });
  });

  test("a client that disconnects after the first of three images stops the stream and pays for one image", async () => {
    await simulator({ responsesThinkMs: 0, responsesImageMs: 1_500 });
    try {
      const started = performance.now();
      const { data: stream, response } = await client().responses.create(ask("Three images of a lighthouse", { quality: "low" }) as never).withResponse();
      const seen: string[] = [];
      for await (const event of stream as unknown as AsyncIterable<Event>) {
        seen.push(event.type);
        if (event.type === "response.image_generation_call.partial_image") {
          assert.deepEqual(await decode(event.partial_image_b64), { format: "png", width: 1024, height: 1024 });
          break; // the SDK aborts the request
        }
      }
      const disconnectedAt = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 400));
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.detail.imagesGenerated, 1, "the second image was stopped, not finished");
      assert.equal(row.imageOutputTokens, imageOutputTokens(1024, 1024, "low"), "one image charged");
      assert.equal(row.detail.parts[1].imageOutputTokens, imageOutputTokens(1024, 1024, "low"));
      assert.ok(row.latencyMs < disconnectedAt + 1_000, `the stream ended when the client left (${row.latencyMs} ms, left at ${Math.round(disconnectedAt)} ms)`);
      assert.ok(row.cost < row.reserved);
    } finally {
      await simulator(FAST);
    }
  });
});

describe("validation: status, message, nothing charged", () => {
  const base = () => ask("A lighthouse", { quality: "low" }) as Record<string, any>;
  const without = (field: string) => {
    const body = base();
    delete body[field];
    return body;
  };
  const withTool = (fields: Record<string, unknown>) => ({ ...base(), tools: [{ type: "image_generation", ...fields }] });
  const withPart = (part: Record<string, unknown>) => ({ ...base(), input: [{ role: "user", content: [{ type: "input_text", text: "Edit this" }, part] }] });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  type Case = { name: string; body: unknown | (() => Promise<unknown>); status?: number; message: string | RegExp; param?: string | null };
  const cases: Case[] = [
    { name: "instructions missing", body: without("instructions"), message: "Instructions are required", param: "instructions" },
    { name: "instructions empty", body: { ...base(), instructions: "  " }, message: "Instructions are required", param: "instructions" },
    { name: "instructions not a string", body: { ...base(), instructions: 5 }, message: "Invalid 'instructions': must be a string; got number 5", param: "instructions" },
    { name: "input a plain string", body: { ...base(), input: "A lighthouse" }, message: "Input must be a list", param: "input" },
    { name: "input an object", body: { ...base(), input: { role: "user", content: "x" } }, message: "Input must be a list", param: "input" },
    { name: "input missing", body: without("input"), message: "Input must be a list", param: "input" },
    { name: "input empty", body: { ...base(), input: [] }, message: "Invalid 'input': must hold at least one message", param: "input" },
    { name: "stream missing", body: without("stream"), message: /^Streaming is required: set 'stream' to true/, param: "stream" },
    { name: "stream false", body: { ...base(), stream: false }, message: /^Streaming is required: set 'stream' to true/, param: "stream" },
    { name: "n sent", body: { ...base(), n: 3 }, message: /^'n' is not available on \/v1\/responses: ask for several images in the prompt instead/, param: "n" },
    { name: "previous_response_id sent", body: { ...base(), previous_response_id: "resp_123" }, message: /^'previous_response_id' is not available on this endpoint/, param: "previous_response_id" },
    { name: "action edit with no image", body: withTool({ action: "edit" }), message: /^action 'edit' needs an image to edit: add an input_image/, param: "tools[0].action" },
    { name: "model missing", body: without("model"), message: "Invalid 'model': is required; use 'std-5.5'", param: "model" },
    { name: "model is the image model", body: { ...base(), model: "std-image-2" }, message: /^Invalid 'model': \/v1\/responses serves the text model 'std-5.5'; got 'std-image-2' \('std-image-2' is the image model/, param: "model" },
    // Without the image tool (no tools, or function tools) the request is served as text: tests/clients/responses-text.test.ts.
    { name: "a tool of another kind", body: { ...base(), tools: [{ type: "web_search" }] }, message: /^Invalid 'tools\[0\]': this endpoint offers function tools/, param: "tools[0]" },
    { name: "an image tool beside another", body: { ...base(), tools: [{ type: "image_generation" }, { type: "function", name: "x" }] }, message: "Invalid 'tools[1].type': only 'image_generation' tools are available on this endpoint; got 'function'", param: "tools[1].type" },
    { name: "two image tools", body: { ...base(), tools: [{ type: "image_generation" }, { type: "image_generation" }] }, message: "Invalid 'tools': send one tool of type 'image_generation'", param: "tools" },
    { name: "unknown quality", body: withTool({ quality: "ultra" }), message: "Invalid 'tools[0].quality': must be one of 'low', 'medium', 'high', 'auto'; got 'ultra'", param: "tools[0].quality" },
    { name: "size not a multiple of 16", body: withTool({ size: "1000x1000" }), message: "Invalid 'tools[0].size': '1000x1000' width and height must both be multiples of 16 px.", param: "tools[0].size" },
    { name: "size over 3840", body: withTool({ size: "4096x2048" }), message: /^Invalid 'tools\[0\]\.size': '4096x2048' the longest side must be at most 3840 px/, param: "tools[0].size" },
    { name: "size too few pixels", body: withTool({ size: "512x512" }), message: /^Invalid 'tools\[0\]\.size': '512x512' total pixels must be at least 655,360/, param: "tools[0].size" },
    { name: "size ratio over 3:1", body: withTool({ size: "3840x1024" }), message: /^Invalid 'tools\[0\]\.size': '3840x1024' the long side may be at most 3 times the short side/, param: "tools[0].size" },
    { name: "size a number", body: withTool({ size: 1024 }), message: "Invalid 'tools[0].size': must be a string such as 'auto' or '1024x1024'; got number 1024", param: "tools[0].size" },
    { name: "unknown output_format", body: withTool({ output_format: "gif" }), message: "Invalid 'tools[0].output_format': must be one of 'png', 'jpeg', 'webp'; got 'gif'", param: "tools[0].output_format" },
    { name: "output_compression over 100", body: withTool({ output_format: "jpeg", output_compression: 101 }), message: "Invalid 'tools[0].output_compression': must be from 0 to 100; got number 101", param: "tools[0].output_compression" },
    { name: "output_compression a string", body: withTool({ output_compression: "high" }), message: "Invalid 'tools[0].output_compression': must be a whole number from 0 to 100; got 'high'", param: "tools[0].output_compression" },
    { name: "unknown moderation", body: withTool({ moderation: "strict" }), message: "Invalid 'tools[0].moderation': must be one of 'auto', 'low'; got 'strict'", param: "tools[0].moderation" },
    { name: "unknown action", body: withTool({ action: "paint" }), message: "Invalid 'tools[0].action': must be one of 'auto', 'generate', 'edit'; got 'paint'", param: "tools[0].action" },
    { name: "transparent background", body: withTool({ background: "transparent" }), message: /^Invalid 'tools\[0\]\.background': 'transparent' is not supported/, param: "tools[0].background" },
    { name: "partial_images over 3", body: withTool({ partial_images: 5 }), message: "Invalid 'tools[0].partial_images': must be from 0 to 3; got number 5", param: "tools[0].partial_images" },
    { name: "another image model in the tool", body: withTool({ model: "gpt-image-1" }), message: "Invalid 'tools[0].model': the image tool runs 'std-image-2'; got 'gpt-image-1'", param: "tools[0].model" },
    { name: "input role unknown", body: { ...base(), input: [{ role: "robot", content: "x" }] }, message: "Invalid 'input[0].role': must be one of 'user', 'assistant', 'system', 'developer'; got 'robot'", param: "input[0].role" },
    { name: "input item of another type", body: { ...base(), input: [{ type: "function_call_output", call_id: "x", output: "y" }] }, message: "Invalid 'input[0].type': only messages (role and content) are accepted here; got 'function_call_output'", param: "input[0].type" },
    { name: "input_text without text", body: withPart({ type: "input_text", text: 5 }), message: "Invalid 'input[0].content[1].text': must be a string; got number 5", param: "input[0].content[1].text" },
    { name: "unknown content type", body: withPart({ type: "input_file", file_data: "x" }), message: "Invalid 'input[0].content[1].type': user content items must be 'input_text' or 'input_image'; got 'input_file'", param: "input[0].content[1].type" },
    { name: "image by http URL", body: withPart({ type: "input_image", image_url: "https://example.com/cat.png" }), message: /^Invalid 'input\[0\]\.content\[1\]\.image_url': the gateway does not fetch image URLs/, param: "input[0].content[1].image_url" },
    { name: "image by file id", body: withPart({ type: "input_image", file_id: "file-123" }), message: /^Invalid 'input\[0\]\.content\[1\]\.file_id': file ids are not available/, param: "input[0].content[1].file_id" },
    { name: "image data URI not base64", body: withPart({ type: "input_image", image_url: "data:image/png,rawbytes" }), message: "Invalid 'input[0].content[1].image_url': must be a base64 data URI such as 'data:image/png;base64,...'", param: "input[0].content[1].image_url" },
    { name: "image base64 malformed", body: withPart({ type: "input_image", image_url: "data:image/png;base64,@@@not-base64@@@" }), message: "Invalid 'input[0].content[1].image_url': the data after 'base64,' is not valid base64", param: "input[0].content[1].image_url" },
    { name: "image of another type", body: withPart({ type: "input_image", image_url: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" }), message: "Invalid 'input[0].content[1].image_url': images must be PNG, JPEG or WebP; got 'image/gif'", param: "input[0].content[1].image_url" },
    { name: "image data that is not an image", body: withPart({ type: "input_image", image_url: `data:image/png;base64,${Buffer.from("hello, this is text").toString("base64")}` }), message: "Invalid 'input[0].content[1].image_url': the data is not a PNG, JPEG or WebP image", param: "input[0].content[1].image_url" },
    {
      name: "image truncated",
      body: async () => {
        const noisy = await sharp(Buffer.from(Array.from({ length: 512 * 512 * 3 }, (_, index) => (index * 7919) % 251)), { raw: { width: 512, height: 512, channels: 3 } }).png().toBuffer();
        return withPart({ type: "input_image", image_url: `data:image/png;base64,${noisy.subarray(0, Math.floor(noisy.length / 2)).toString("base64")}` });
      },
      message: "Invalid 'input[0].content[1].image_url': the image data is damaged or truncated",
      param: "input[0].content[1].image_url",
    },
    { name: "image header only", body: withPart({ type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` }), message: /^Invalid 'input\[0\]\.content\[1\]\.image_url': the (data is not a PNG, JPEG or WebP image|image data is damaged or truncated)$/, param: "input[0].content[1].image_url" },
    { name: "body not JSON", body: "{not json", message: "Request body is not valid JSON", param: null },
    { name: "body an array", body: "[1,2]", message: "Request body must be a JSON object", param: null },
    { name: "blocked by the content policy", body: { ...base(), input: [{ role: "user", content: `a ${DEFAULT_MODERATION_TERMS.auto[1]} person` }] }, message: /^The prompt was refused by the content policy/, param: "prompt" },
  ];

  test("every rule answers 400 in the OpenAI dialect and charges nothing", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const before = await account(user.userId);
    for (const entry of cases) {
      const body = typeof entry.body === "function" ? await (entry.body as () => Promise<unknown>)() : entry.body;
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      assert.equal(response.status, entry.status ?? 400, `${entry.name}: ${text}`);
      const error = JSON.parse(text).error;
      if (typeof entry.message === "string") assert.equal(error.message, entry.message, entry.name);
      else assert.match(error.message, entry.message, entry.name);
      assert.equal(error.param, entry.param === undefined ? null : entry.param, `${entry.name}: param`);
      assert.equal(error.type, "invalid_request_error", entry.name);
      assert.deepEqual(await ledgerRows(response.headers.get("x-request-id")!), [], `${entry.name}: no ledger row`);
    }
    assert.deepEqual(await account(user.userId), before, "balance and key quota unchanged");
  });

  test("the official client sees the same 400s as APIError", async () => {
    await assert.rejects(client().responses.create({ ...ask("x"), instructions: undefined } as never), (error: InstanceType<typeof OpenAI.APIError>) => {
      assert.equal(error.status, 400);
      assert.equal(error.message, "400 Instructions are required");
      return true;
    });
    await assert.rejects(client().responses.create({ ...ask("x"), input: "a plain string" } as never), (error: InstanceType<typeof OpenAI.APIError>) => {
      assert.equal(error.status, 400);
      assert.equal(error.message, "400 Input must be a list");
      return true;
    });
  });

  test("a key whose group lacks the image model gets 403 and is not charged", async () => {
    await gateway.admin("POST", "/api/admin/groups", { name: "text-only", models: ["std-5.5"] });
    const user = await createUserWithKey(gateway, { group: "text-only", balance: 5_000_000 });
    const before = await account(user.userId);
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify(base()),
    });
    assert.equal(response.status, 403);
    const body = await response.json();
    assert.match(body.error.message, /does not include the model 'std-image-2'/);
    assert.deepEqual(await account(user.userId), before);
  });
});

/** A chat.completion whose message calls generate_image once per prompt. */
function toolCallCompletion(prompts: { prompt: string; action?: string }[], usage = { prompt_tokens: 900, completion_tokens: 60 }) {
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
          tool_calls: prompts.map((entry, index) => ({ id: `call_${index + 1}`, type: "function", function: { name: "generate_image", arguments: JSON.stringify({ action: "generate", ...entry }) } })),
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** An OpenAI-compatible image upstream: a real image of the requested size and format, with usage. */
async function answerImage(request: Received, response: http.ServerResponse, usage = { text: 20, output: 272 }) {
  const [width, height] = String(request.body.size ?? "1024x1024").split("x").map(Number);
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

describe("tool loop run by the gateway", () => {
  test("openai channel without a Responses API: the model's tool calls go to the image channel; both upstreams recorded", async () => {
    const chat = await fake((request, response) => {
      const last = request.body.messages.at(-1);
      if (last.role === "tool") sendJson(response, 200, chatCompletion("Here are your two harbours.", "real-text", { prompt_tokens: 1_100, completion_tokens: 12 }));
      else sendJson(response, 200, toolCallCompletion([{ prompt: "A quiet harbour at dawn, fishing boats, soft mist" }, { prompt: "A busy harbour at noon, cranes and container ships" }]));
    });
    const images = await fake((request, response) => answerImage(request, response));
    const textChannel = await channel({ name: "chat only", type: "openai", baseUrl: `${chat.url}/v1`, apiKey: "chat-secret", models: ["std-5.5"], modelMapping: { "std-5.5": "real-text" }, priority: 50 });
    const imageChannel = await channel({ name: "images", type: "openai", baseUrl: `${images.url}/v1`, apiKey: "image-secret", models: ["std-image-2"], modelMapping: { "std-image-2": "real-image" }, priority: 50 });
    try {
      const { events, requestId } = await run(ask("Two pictures of a harbour", { size: "1536x1024", quality: "medium", output_format: "webp", output_compression: 70 }, { instructions: "Be a harbour painter." }));
      assert.deepEqual(events.map((event) => event.type), expectedOrder(2, true));
      assertNumbered(events);

      // What the text model received.
      assert.equal(chat.received.length, 2);
      const [first, second] = chat.received as [Received, Received];
      assert.equal(first.path, "/v1/chat/completions");
      assert.equal(first.headers.authorization, "Bearer chat-secret");
      assert.equal(JSON.stringify(first.headers).includes(key), false, "the caller's key never goes upstream");
      assert.equal(first.body.model, "real-text");
      assert.equal(first.body.stream, undefined);
      assert.equal(first.body.max_completion_tokens, 1024, "each call carries the cap the reservation counted");
      assert.deepEqual(first.body.messages[0], { role: "system", content: "Be a harbour painter." });
      assert.equal(first.body.messages[1].role, "system");
      assert.deepEqual(first.body.messages[2], { role: "user", content: [{ type: "text", text: "Two pictures of a harbour" }] });
      assert.equal(first.body.tools.length, 1);
      assert.equal(first.body.tools[0].function.name, "generate_image");
      assert.deepEqual(first.body.tools[0].function.parameters.properties.action.enum, ["generate", "edit"]);
      assert.deepEqual(first.body.tools[0].function.parameters.required, ["prompt", "action"]);
      const assistant = second.body.messages.at(-3);
      assert.equal(assistant.role, "assistant");
      assert.deepEqual(assistant.tool_calls.map((call: any) => call.id), ["call_1", "call_2"]);
      const results = second.body.messages.slice(-2);
      assert.deepEqual(results.map((message: any) => [message.role, message.tool_call_id]), [["tool", "call_1"], ["tool", "call_2"]]);
      assert.match(results[0].content, /^Image 1 was generated \(1536x1024, webp\)/);

      // What the image model received.
      assert.equal(images.received.length, 2);
      assert.deepEqual(images.received.map((request) => request.path), ["/v1/images/generations", "/v1/images/generations"]);
      assert.equal(images.received[0]!.headers.authorization, "Bearer image-secret");
      assert.deepEqual(images.received[0]!.body, { model: "real-image", prompt: "A quiet harbour at dawn, fishing boats, soft mist", size: "1536x1024", quality: "medium", output_format: "webp", output_compression: 70 });
      assert.equal(images.received[1]!.body.prompt, "A busy harbour at noon, cranes and container ships");

      // What the client saw.
      const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
      for (const partial of partials) assert.deepEqual(await decode(partial.partial_image_b64), { format: "webp", width: 1536, height: 1024 });
      const done = events.filter((event) => event.type === "response.output_item.done" && event.item.type === "image_generation_call").map((event) => event.item);
      assert.deepEqual(done.map((item) => item.revised_prompt), ["A quiet harbour at dawn, fishing boats, soft mist", "A busy harbour at noon, cranes and container ships"]);
      assert.deepEqual(done.map((item) => [item.size, item.quality, item.output_format]), [["1536x1024", "medium", "webp"], ["1536x1024", "medium", "webp"]]);
      const text = events.find((event) => event.type === "response.output_text.done")!;
      assert.equal(text.text, "Here are your two harbours.");
      const completed = events.at(-1)!.response;
      assert.deepEqual([completed.usage.input_tokens, completed.usage.output_tokens], [900 + 1_100, 60 + 12]);
      assert.equal(completed.tool_usage.image_gen.output_tokens, 2 * 272);
      assert.equal(completed.tool_usage.image_gen.input_tokens, 2 * 20);
      assert.equal(completed.output.length, 3);

      const row = await ledgerFor(requestId);
      assert.equal(row.channelName, "chat only");
      assert.equal(row.status, "success");
      assert.equal(row.detail.path, "tool_loop");
      assert.equal(row.detail.rounds, 2);
      const [textPart, imagePart] = row.detail.parts;
      assert.deepEqual([textPart.textInputTokens, textPart.textOutputTokens], [2_000, 72]);
      assert.deepEqual([imagePart.textInputTokens, imagePart.imageOutputTokens], [40, 544]);
      assert.equal(row.cost, Math.ceil(textCost(2_000, 72) - 1e-9) + Math.ceil(imageCost(imagePart) - 1e-9));
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
      await gateway.admin("DELETE", `/api/admin/channels/${imageChannel}`);
    }
  });

  test("anthropic channel: tool_use blocks drive the images, tool_result blocks go back; an edit goes to the image channel", async () => {
    const received: Received[] = [];
    const upstream = await fake((request, response) => {
      received.push(request);
      const last = request.body.messages.at(-1);
      const answered = Array.isArray(last.content) && last.content.some((block: any) => block.type === "tool_result");
      if (answered) return sendJson(response, 200, anthropicMessage("Done: the photo is now a night scene.", "real-claude", { input_tokens: 1_500, output_tokens: 15 }));
      sendJson(response, 200, {
        id: "msg_tools",
        type: "message",
        role: "assistant",
        model: "real-claude",
        content: [{ type: "tool_use", id: "toolu_01", name: "generate_image", input: { prompt: "The same street photographed at night, wet asphalt, neon signs", action: "edit" } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1_400, output_tokens: 48 },
      });
    });
    const textChannel = await channel({ name: "claude for std", type: "anthropic", baseUrl: upstream.url, apiKey: "claude-secret", models: ["std-5.5"], modelMapping: { "std-5.5": "real-claude" }, priority: 50 });
    try {
      const photo = await pngDataUri(800, 1200, "#556677");
      const { events, requestId } = await run(ask("Turn this street into a night scene", { quality: "low", action: "edit" }, { images: [photo] }));
      assert.deepEqual(events.map((event) => event.type), expectedOrder(1, true));
      const [first, second] = received as [Received, Received];
      assert.equal(first.path, "/v1/messages");
      assert.equal(first.headers["x-api-key"], "claude-secret");
      assert.equal(first.body.model, "real-claude");
      assert.match(first.body.system, /^You are an illustrator/);
      assert.equal(first.body.tools[0].name, "generate_image");
      assert.deepEqual(first.body.tools[0].input_schema.properties.action.enum, ["edit"], "action edit is the only choice offered");
      const userBlocks = first.body.messages[0].content;
      assert.equal(userBlocks[1].type, "image");
      assert.equal(userBlocks[1].source.media_type, "image/png");
      assert.equal(second.body.messages.at(-2).content[0].type, "tool_use");
      assert.equal(second.body.messages.at(-1).content[0].type, "tool_result");
      assert.equal(second.body.messages.at(-1).content[0].tool_use_id, "toolu_01");

      // The image came from the std-image-2 channel (the simulator here), edited from the input: portrait stays portrait.
      const item = events.find((event) => event.type === "response.output_item.done" && event.item.type === "image_generation_call")!.item;
      assert.equal(item.revised_prompt, "The same street photographed at night, wet asphalt, neon signs");
      assert.equal(item.size, "1024x1536");
      assert.deepEqual(await decode(item.result), { format: "png", width: 1024, height: 1536 });
      const completed = events.at(-1)!.response;
      assert.deepEqual([completed.usage.input_tokens, completed.usage.output_tokens], [2_900, 63]);
      const row = await ledgerFor(requestId);
      assert.equal(row.detail.parts[1].imageOutputTokens, imageOutputTokens(1024, 1536, "low"));
      assert.ok(row.detail.parts[1].imageInputTokens > 0, "the edited photo is billed as image input");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("a text upstream that refuses the request before the stream: its 400 in the OpenAI dialect, nothing charged", async () => {
    const refusing = await fake((_request, response) => sendJson(response, 400, { error: { message: "tools are not supported by this model" } }));
    const textChannel = await channel({ name: "refusing", type: "openai", baseUrl: `${refusing.url}/v1`, apiKey: "x", models: ["std-5.5"], priority: 50 });
    try {
      const user = await createUserWithKey(gateway, { balance: 5_000_000 });
      const before = await account(user.userId);
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify(ask("A lighthouse")),
      });
      assert.equal(response.status, 400);
      assert.match((await response.json()).error.message, /tools are not supported by this model/);
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.cost, 0);
      assert.equal(row.status, "error");
      assert.deepEqual(await account(user.userId), before);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("a client that disconnects after the first of three images: the image upstream is aborted and one image is charged", async () => {
    const chat = await fake((_request, response) =>
      sendJson(response, 200, toolCallCompletion([{ prompt: "Lighthouse one" }, { prompt: "Lighthouse two" }, { prompt: "Lighthouse three" }])),
    );
    let imageRequests = 0;
    const images = await fake(async (request, response) => {
      imageRequests++;
      // The first image is quick, the others take long enough for the client to leave.
      if (imageRequests > 1) await new Promise((resolve) => setTimeout(resolve, 5_000));
      if (!response.destroyed) await answerImage(request, response, { text: 10, output: 196 });
    });
    const textChannel = await channel({ name: "chat (disconnect)", type: "openai", baseUrl: `${chat.url}/v1`, apiKey: "a", models: ["std-5.5"], priority: 50 });
    const imageChannel = await channel({ name: "images (disconnect)", type: "openai", baseUrl: `${images.url}/v1`, apiKey: "b", models: ["std-image-2"], priority: 50 });
    try {
      const { data: stream, response } = await client().responses.create(ask("Three images of a lighthouse", { quality: "low" }) as never).withResponse();
      for await (const event of stream as unknown as AsyncIterable<Event>) {
        if (event.type !== "response.image_generation_call.partial_image") continue;
        // Leave while the second image is being generated upstream.
        const deadline = Date.now() + 5_000;
        while (images.received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(images.received.length, 2, "the second image was requested");
      assert.equal(images.aborted, 1, "and its request aborted when the client left");
      assert.equal(chat.received.length, 1, "no further chat round");
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.imageOutputTokens, 196, "one image charged");
      assert.deepEqual([row.detail.parts[0].textInputTokens, row.detail.parts[0].textOutputTokens], [900, 60], "the chat round that ran");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
      await gateway.admin("DELETE", `/api/admin/channels/${imageChannel}`);
    }
  });
});

describe("native Responses relay", () => {
  /** A PNG of noise: incompressible, so the image is several megabytes. */
  async function bigImage(width: number, height: number): Promise<string> {
    const pixels = randomBytes(width * height * 3);
    return (await sharp(pixels, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer()).toString("base64");
  }

  function vendorEvents(big: string, second: string) {
    const response = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "resp_upstream1", object: "response", created_at: 1_700_000_000, status, model: "gpt-real-5", output: [],
      tools: [{ type: "image_generation", model: "gpt-image-real", size: "1536x1024", quality: "high" }], usage: null, ...extra,
    });
    const item = (id: string, index: number, b64: string, prompt: string) => ({
      type: "response.output_item.done", output_index: index,
      item: { id, type: "image_generation_call", status: "completed", background: "opaque", output_format: "png", quality: "high", size: "1536x1024", revised_prompt: prompt, result: b64 },
    });
    let sequence = 100;
    const numbered = (data: Record<string, unknown>) => ({ event: data.type as string, data: { ...data, sequence_number: sequence++ } });
    return [
      numbered({ type: "response.created", response: response("in_progress") }),
      numbered({ type: "response.in_progress", response: response("in_progress") }),
      numbered({ type: "response.output_item.added", output_index: 0, item: { id: "ig_up1", type: "image_generation_call", status: "in_progress" } }),
      numbered({ type: "response.image_generation_call.in_progress", output_index: 0, item_id: "ig_up1" }),
      numbered({ type: "response.image_generation_call.generating", output_index: 0, item_id: "ig_up1" }),
      numbered({ type: "keepalive" }),
      numbered({ type: "response.image_generation_call.partial_image", output_index: 0, item_id: "ig_up1", partial_image_index: 0, partial_image_b64: big, size: "1536x1024", quality: "high", output_format: "png", background: "opaque" }),
      numbered(item("ig_up1", 0, big, "A storm over the sea, dramatic light")),
      numbered({ type: "response.output_item.added", output_index: 1, item: { id: "ig_up2", type: "image_generation_call", status: "in_progress" } }),
      numbered({ type: "response.image_generation_call.in_progress", output_index: 1, item_id: "ig_up2" }),
      numbered({ type: "response.image_generation_call.generating", output_index: 1, item_id: "ig_up2" }),
      // No partial_image for this one: the gateway adds it from the finished item.
      numbered(item("ig_up2", 1, second, "A calm sea after the storm")),
      numbered({
        type: "response.completed",
        response: response("completed", {
          usage: { input_tokens: 1_900, output_tokens: 120, total_tokens: 2_020 },
          tool_usage: { image_gen: { input_tokens: 40, input_tokens_details: { text_tokens: 40, image_tokens: 0 }, output_tokens: 10_000, output_tokens_details: { image_tokens: 10_000, text_tokens: 0 }, total_tokens: 10_040 } },
        }),
      }),
    ];
  }

  test("events of several MB relayed one by one, renumbered, the model renamed, usage read from response.completed", async () => {
    const big = await bigImage(1536, 1024);
    assert.ok(big.length > 4 * 1024 * 1024, `the first event is several MB (${(big.length / 1024 / 1024).toFixed(1)} MB)`);
    const second = await realImage(1536, 1024, "png");
    const upstream = await fake(async (_request, response) => sendSse(response, vendorEvents(big, second), 5));
    const textChannel = await channel({
      name: "native responses", type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "native-secret", models: ["std-5.5"],
      modelMapping: { "std-5.5": "gpt-real-5", "std-image-2": "gpt-image-real" }, settings: { responsesApi: true }, priority: 50,
    });
    try {
      const { events, requestId } = await run(ask("Two images of the sea", { size: "1536x1024", quality: "high" }));
      const received = upstream.received[0]!;
      assert.equal(received.path, "/v1/responses");
      assert.equal(received.headers.authorization, "Bearer native-secret");
      assert.deepEqual(received.body, {
        model: "gpt-real-5",
        instructions: "You are an illustrator. Use the image tool for every picture.",
        input: [{ role: "user", content: [{ type: "input_text", text: "Two images of the sea" }] }],
        tools: [{ type: "image_generation", quality: "high", size: "1536x1024", model: "gpt-image-real" }],
        stream: true,
        // The limits the reservation counted (docs/billing.md).
        max_output_tokens: 6_144,
        max_tool_calls: 4,
      });

      assert.deepEqual(withoutKeepalives(events), expectedOrder(2));
      assert.equal(events.filter((event) => event.type === "keepalive").length, 1, "the upstream's own keepalive passes through");
      assertNumbered(events);
      assert.equal(events[0]!.response.model, "std-5.5");
      assert.equal(events[0]!.response.tools[0].model, "std-image-2");
      assert.equal(events.at(-1)!.response.model, "std-5.5");
      const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
      assert.equal(sha(partials[0]!.partial_image_b64), sha(big), "the multi-MB image arrives byte for byte");
      assert.equal(sha(partials[1]!.partial_image_b64), sha(second), "the image that came without partial_image gets one");
      assert.deepEqual(await decode(partials[0]!.partial_image_b64), { format: "png", width: 1536, height: 1024 });
      assert.deepEqual(await decode(partials[1]!.partial_image_b64), { format: "png", width: 1536, height: 1024 });

      const row = await ledgerFor(requestId);
      assert.equal(row.status, "success");
      assert.equal(row.detail.path, "native");
      assert.deepEqual([row.detail.parts[0].textInputTokens, row.detail.parts[0].textOutputTokens], [1_900, 120]);
      assert.deepEqual([row.detail.parts[1].textInputTokens, row.detail.parts[1].imageOutputTokens], [40, 10_000]);
      assert.equal(row.detail.imagesDelivered, 2);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("an upstream stream cut after the first image: response.failed to the client, one image billed from its size", async () => {
    const first = await realImage(1024, 1024, "png");
    const upstream = await fake(async (_request, response) => {
      const events = vendorEvents(first, first).slice(0, 8);
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) response.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      response.write('event: response.output_item.added\ndata: {"type":"response.output_item.ad');
      await new Promise((resolve) => setTimeout(resolve, 100));
      response.destroy();
    });
    const textChannel = await channel({ name: "native (cut)", type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "n", models: ["std-5.5"], settings: { responsesApi: true }, priority: 50 });
    try {
      const { events, requestId } = await run(ask("A storm", { quality: "high", size: "1536x1024" }));
      assert.deepEqual(withoutKeepalives(events), [...expectedOrder(1).slice(0, -1), "response.failed"]);
      const failed = events.at(-1)!.response;
      assert.equal(failed.status, "failed");
      assert.equal(failed.id, "resp_upstream1");
      assert.match(failed.error.message, /cut/);
      const row = await ledgerFor(requestId);
      assert.equal(row.status, "error");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.imageOutputTokens, imageOutputTokens(1536, 1024, "high"), "the delivered image at its reported size and quality");
      assert.ok(row.cost > 0 && row.cost < row.reserved);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });
});
