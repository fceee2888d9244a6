// Image API (issue 4): /v1/images/generations and /v1/images/edits through the official openai client against the
// running gateway (built-in simulator), every validation rule over HTTP, the 50 MB upload limit with the gateway's
// memory measured, ledger rows, the content policy, and relaying to a recording fake OpenAI-compatible upstream.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import busboy from "busboy";
import OpenAI, { toFile } from "openai";
import sharp, { type OutputInfo } from "sharp";
import { countTextTokens } from "../../lib/money/tokens";
import { imageInputTokens, imageOutputTokens } from "../../lib/money/image-tokens";
import { DEFAULT_MODERATION_TERMS } from "../../lib/moderation/policy";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { sendJson, startFakeUpstream, type FakeUpstream, type Received } from "../helpers/fake-upstream";

const MB = 1024 * 1024;
const LIMIT = 50 * MB;
// The seeded std-image-2 price, USD per 1M tokens (= micro-USD per token).
const PRICE = { textInput: 5, imageInput: 8, imageOutput: 32 };

let gateway: Gateway;
let key: string;
const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 }));
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

function openai(apiKey = key, url = gateway.url) {
  return new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, timeout: 120_000 });
}

async function ledgerRows(requestId: string, target = gateway) {
  return (await target.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data as any[];
}

async function ledgerFor(requestId: string, target = gateway) {
  const rows = await ledgerRows(requestId, target);
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

async function account(userId: string, target = gateway) {
  const user = ((await target.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[]).find((entry) => entry.id === userId)!;
  const keys = (await target.admin("GET", `/api/admin/keys?userId=${userId}`)).data as { quotaRemaining: number }[];
  return { balance: user.balance, quota: keys[0]!.quotaRemaining };
}

async function decode(b64: string) {
  const metadata = await sharp(Buffer.from(b64, "base64")).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

function postJson(path: string, body: unknown, apiKey = key): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

type Part = [field: string, value: string | Buffer, filename?: string, type?: string];

function postForm(parts: Part[], apiKey = key): Promise<Response> {
  const form = new FormData();
  for (const [field, value, filename, type] of parts) {
    if (typeof value === "string" && filename === undefined) form.append(field, value);
    else form.append(field, new Blob([typeof value === "string" ? value : new Uint8Array(value)], { type: type ?? "application/octet-stream" }), filename ?? "file");
  }
  return fetch(`${gateway.url}/v1/images/edits`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
}

const solid = (width: number, height: number, colour: string) => sharp({ create: { width, height, channels: 3, background: colour } });
const png = (width: number, height: number, colour = "#2266aa") => solid(width, height, colour).png().toBuffer();
/** A mask: opaque (keep) on the left half, transparent (edit) on the right half. */
async function halfMask(width: number, height: number, format: "png" | "webp" = "png") {
  const keep = await sharp({ create: { width: Math.floor(width / 2), height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } }).png().toBuffer();
  const mask = sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite([{ input: keep, left: 0, top: 0 }]);
  return format === "png" ? mask.png().toBuffer() : mask.webp({ lossless: true }).toBuffer();
}

/** A valid PNG of exactly `bytes` bytes: a small image plus a private ancillary chunk that decoders skip. */
async function paddedPng(bytes: number): Promise<Buffer> {
  const base = await png(1024, 768);
  const dataLength = bytes - base.length - 12;
  const chunk = Buffer.alloc(dataLength + 12);
  chunk.writeUInt32BE(dataLength, 0);
  chunk.write("paDd", 4, "latin1");
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + dataLength)), 8 + dataLength);
  const iend = base.length - 12;
  const file = Buffer.concat([base.subarray(0, iend), chunk, base.subarray(iend)]);
  assert.equal(file.length, bytes);
  return file;
}

function pixel(raw: { data: Buffer; info: OutputInfo }, x: number, y: number): [number, number, number] {
  const offset = (y * raw.info.width + x) * raw.info.channels;
  return [raw.data[offset]!, raw.data[offset + 1]!, raw.data[offset + 2]!];
}

const distance = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** The gateway process's memory, from /proc (kB → MB). `clear_refs` 5 resets the peak to the current size. */
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

async function expectError(response: Response, status: number, code: string, param: string | null, message: RegExp) {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error.code, code, text);
  assert.equal(body.error.param, param, text);
  assert.match(body.error.message, message);
  assert.equal(typeof body.error.type, "string");
  return response.headers.get("x-request-id")!;
}

// ---------------------------------------------------------------------------------------------------- official client

describe("the official openai client against the built-in simulator", () => {
  test("images.generate: the requested width, height and format, as b64_json and as a data URI", async () => {
    const cases = [
      { size: "1024x1024", output_format: "png", quality: "low" },
      { size: "1536x1024", output_format: "jpeg", quality: "medium" },
      { size: "1024x1536", output_format: "webp", quality: "high" },
      { size: "2048x1152", output_format: "png", quality: "auto" },
    ] as const;
    for (const request of cases) {
      const { data: result, response } = await openai().images.generate({ model: "std-image-2", prompt: `a lighthouse at dawn, ${request.size}`, ...request }).withResponse();
      assert.match(response.headers.get("x-request-id")!, /^req_/);
      assert.equal(result.data!.length, 1);
      const [width, height] = request.size.split("x").map(Number);
      assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: request.output_format, width, height });
      assert.equal(result.size, request.size);
      assert.equal(result.output_format, request.output_format);
      assert.equal(result.quality, request.quality === "auto" ? "medium" : request.quality);
    }
    const url = await openai().images.generate({ model: "std-image-2", prompt: "a data URI please", size: "1024x1024", quality: "low", output_format: "webp", response_format: "url" });
    assert.equal(url.data![0]!.b64_json, undefined);
    const match = /^data:image\/webp;base64,([A-Za-z0-9+/=]+)$/.exec(url.data![0]!.url!);
    assert.ok(match, "data:image/<format>;base64,<data>");
    assert.deepEqual(await decode(match[1]!), { format: "webp", width: 1024, height: 1024 });
  });

  test("generation is deterministic from the prompt; n is ignored (exactly one image)", async () => {
    const request = { model: "std-image-2", prompt: "the same fox twice", size: "1024x1024", quality: "low", n: 4 } as const;
    const first = await openai().images.generate(request);
    const second = await openai().images.generate(request);
    assert.equal(first.data!.length, 1);
    assert.equal(first.data![0]!.b64_json, second.data![0]!.b64_json);
    const other = await openai().images.generate({ ...request, prompt: "another fox" });
    assert.notEqual(other.data![0]!.b64_json, first.data![0]!.b64_json);
  });

  test("images.edit with an image[] list and a mask: derived from the first image, mask applied, references shown", async () => {
    const base = await png(800, 600, "#2266aa");
    const reference = await png(300, 300, "#ff0000");
    const { data: result, response } = await openai()
      .images.edit({
        model: "std-image-2",
        prompt: "turn the right half into a sunset",
        image: [await toFile(base, "base.png", { type: "image/png" }), await toFile(reference, "reference.png", { type: "image/png" })],
        mask: await toFile(await halfMask(800, 600), "mask.png", { type: "image/png" }),
        quality: "low",
      })
      .withResponse();
    // size auto follows the first image's landscape shape.
    assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: "png", width: 1536, height: 1024 });
    assert.equal(result.size, "1536x1024");
    const raw = await sharp(Buffer.from(result.data![0]!.b64_json!, "base64")).raw().toBuffer({ resolveWithObject: true });
    const baseColour = [0x22, 0x66, 0xaa];
    assert.ok(distance(pixel(raw, 300, 600), baseColour) < 12, `kept (opaque mask) area keeps the first image: ${pixel(raw, 300, 600)}`);
    assert.ok(distance(pixel(raw, 1100, 600), baseColour) > 40, `edited (transparent mask) area changed: ${pixel(raw, 1100, 600)}`);
    // The second input is drawn as a thumbnail in the bottom right corner (171 px, 21 px margin).
    assert.ok(distance(pixel(raw, 1429, 917), [255, 0, 0]) < 12, `reference thumbnail: ${pixel(raw, 1429, 917)}`);

    const row = await ledgerFor(response.headers.get("x-request-id")!);
    assert.equal(row.endpoint, "/v1/images/edits");
    assert.equal(row.imageInputTokens, imageInputTokens(800, 600) + imageInputTokens(300, 300), "both inputs at high fidelity; the mask is not billed");
    assert.equal(row.detail.inputImages, 2);
    assert.equal(row.detail.mask, true);
  });

  test("images.edit with one image (field 'image'), explicit size and jpeg output", async () => {
    const result = await openai().images.edit({
      model: "std-image-2",
      prompt: "a portrait crop",
      image: await toFile(await png(600, 900, "#33aa55"), "portrait.png", { type: "image/png" }),
      size: "1024x1536",
      output_format: "jpeg",
      output_compression: 30,
    });
    assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: "jpeg", width: 1024, height: 1536 });
  });

  test("a 3840x2160 high-quality request is priced and served", async (context) => {
    const started = performance.now();
    const { data: result, response } = await openai()
      .images.generate({ model: "std-image-2", prompt: "a 4K skyline at night", size: "3840x2160", quality: "high", output_format: "png" })
      .withResponse();
    const elapsed = performance.now() - started;
    assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: "png", width: 3840, height: 2160 });
    const row = await ledgerFor(response.headers.get("x-request-id")!);
    const text = countTextTokens("a 4K skyline at night");
    assert.equal(row.imageOutputTokens, imageOutputTokens(3840, 2160, "high"));
    assert.equal(row.imageOutputTokens, 20_655);
    assert.equal(row.textInputTokens, text);
    assert.equal(row.cost, text * PRICE.textInput + 20_655 * PRICE.imageOutput);
    assert.equal(row.reserved, row.cost + (promptBound("a 4K skyline at night") - text) * PRICE.textInput, "quality high is reserved as what it costs, plus the prompt's margin");
    assert.equal(row.detail.experimental, true, "above 2560x1440 is experimental");
    context.diagnostic(`3840x2160 high: ${elapsed.toFixed(0)} ms end to end through the SDK, ${(result.data![0]!.b64_json!.length / MB).toFixed(2)} MB of base64, $${(row.cost / 1e6).toFixed(4)}`);
  });
});

// ---------------------------------------------------------------------------------------------------- ledger

/** The prompt's tokens as reserved (docs/billing.md): 1.2x the count or a quarter of its bytes, plus 32. */
function promptBound(prompt: string): number {
  return Math.max(Math.ceil(countTextTokens(prompt) * 1.2), Math.ceil(Buffer.byteLength(prompt) / 4)) + 32;
}

describe("ledger rows", () => {
  test("a generation: text input + image output tokens, cost per part, reservation settled to the real cost", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const prompt = "a small red boat on a calm lake";
    const low = await openai(user.key).images.generate({ model: "std-image-2", prompt, size: "1024x1024", quality: "low" }).withResponse();
    const lowRow = await ledgerFor(low.response.headers.get("x-request-id")!);
    const text = countTextTokens(prompt);
    assert.equal(lowRow.model, "std-image-2");
    assert.equal(lowRow.channelName, "Built-in simulator (offline)");
    assert.equal(lowRow.status, "success");
    assert.equal(lowRow.textInputTokens, text);
    assert.equal(lowRow.textOutputTokens, 0);
    assert.equal(lowRow.imageInputTokens, 0);
    assert.equal(lowRow.imageOutputTokens, 196);
    assert.equal(lowRow.cost, text * PRICE.textInput + 196 * PRICE.imageOutput);
    assert.deepEqual(lowRow.detail.costs, { textInput: text * 5, imageInput: 0, imageOutput: 196 * 32, total: lowRow.cost });
    assert.equal(lowRow.detail.size, "1024x1024");
    assert.equal(lowRow.detail.quality, "low");
    assert.deepEqual(low.data.usage, {
      input_tokens: text, input_tokens_details: { text_tokens: text, image_tokens: 0 },
      output_tokens: 196, output_tokens_details: { image_tokens: 196, text_tokens: 0 }, total_tokens: text + 196,
    });

    // quality auto: reserved as high, rendered and settled as medium.
    const auto = await openai(user.key).images.generate({ model: "std-image-2", prompt, size: "1536x1024" }).withResponse();
    const autoRow = await ledgerFor(auto.response.headers.get("x-request-id")!);
    assert.equal(autoRow.imageOutputTokens, imageOutputTokens(1536, 1024, "medium"));
    assert.equal(autoRow.reserved, promptBound(prompt) * PRICE.textInput + imageOutputTokens(1536, 1024, "high") * PRICE.imageOutput);
    assert.equal(autoRow.cost, text * PRICE.textInput + imageOutputTokens(1536, 1024, "medium") * PRICE.imageOutput);
    assert.ok(autoRow.cost < autoRow.reserved);

    // An edit adds the input images.
    const edit = await openai(user.key).images.edit({ model: "std-image-2", prompt, image: await toFile(await png(1024, 1024), "a.png"), quality: "medium", size: "1024x1024" }).withResponse();
    const editRow = await ledgerFor(edit.response.headers.get("x-request-id")!);
    assert.equal(editRow.imageInputTokens, imageInputTokens(1024, 1024));
    assert.equal(editRow.imageOutputTokens, 1656);
    assert.equal(editRow.cost, text * PRICE.textInput + imageInputTokens(1024, 1024) * PRICE.imageInput + 1656 * PRICE.imageOutput);

    const after = await account(user.userId);
    const spent = lowRow.cost + autoRow.cost + editRow.cost;
    assert.deepEqual(after, { balance: 5_000_000 - spent, quota: 5_000_000 - spent }, "balance and key quota moved by exactly the settled costs");
  });

  test("a key whose quota cannot cover the upper bound is refused before anything is rendered", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 100_000 });
    const response = await postJson("/v1/images/generations", { model: "std-image-2", prompt: "a 4K harbour", size: "3840x2160", quality: "high" }, user.key);
    await expectError(response, 403, "quota_exhausted", null, /reserves up to \$0\.66/);
    assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 100_000 });
  });
});

// ---------------------------------------------------------------------------------------------------- validation

describe("validation: every rule answers 400 in the OpenAI dialect, naming the field, and costs nothing", () => {
  let user: Awaited<ReturnType<typeof createUserWithKey>>;
  const requestIds: string[] = [];
  before(async () => {
    user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  });
  after(async () => {
    for (const requestId of requestIds) assert.deepEqual(await ledgerRows(requestId), [], `no ledger row for refused ${requestId}`);
    const state = await account(user.userId);
    assert.equal(state.balance, 50_000_000 - spentByValidUser);
    assert.equal(state.quota, 50_000_000 - spentByValidUser);
  });
  let spentByValidUser = 0;

  async function generateOk(body: Record<string, unknown>) {
    const response = await postJson("/v1/images/generations", { model: "std-image-2", prompt: "validation", quality: "low", ...body }, user.key);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    spentByValidUser += (await ledgerFor(response.headers.get("x-request-id")!)).cost;
    return JSON.parse(text);
  }

  async function generateRefused(body: Record<string, unknown> | string, param: string | null, message: RegExp, code = "invalid_request", status = 400) {
    const full = typeof body === "string" ? body : { model: "std-image-2", prompt: "validation", ...body };
    requestIds.push(await expectError(await postJson("/v1/images/generations", full, user.key), status, code, param, message));
  }

  const validSizes: [size: string | null, width: number, height: number, why: string][] = [
    ["auto", 1024, 1024, "auto"],
    [null, 1024, 1024, "null is the default, auto"],
    ["1024x640", 1024, 640, "exactly the minimum of 655,360 pixels"],
    ["3840x1280", 3840, 1280, "exactly 3:1, longest side exactly 3840"],
    ["1280x3840", 1280, 3840, "exactly 1:3, portrait"],
    ["2560x1440", 2560, 1440, "the largest size that is not experimental"],
    ["2576x1440", 2576, 1440, "just above 2560x1440: experimental but allowed"],
    ["2160x3840", 2160, 3840, "exactly the maximum of 8,294,400 pixels"],
    ["1024X1024", 1024, 1024, "an upper-case X"],
    ["16x16".replace("16x16", "1024x1024"), 1024, 1024, "a common size"],
  ];
  for (const [size, width, height, why] of validSizes) {
    test(`size ${size} is served (${why})`, async () => {
      const result = await generateOk(size === null ? { size: null } : { size });
      assert.deepEqual(await decode(result.data[0].b64_json), { format: "png", width, height });
    });
  }

  const invalidSizes: [size: unknown, message: RegExp][] = [
    ["3856x2160", /the longest side must be at most 3840 px \(got 3856\)/],
    ["2160x3856", /the longest side must be at most 3840 px \(got 3856\)/],
    ["1000x1000", /width and height must both be multiples of 16 px/],
    ["1024x1000", /multiples of 16 px/],
    ["3840x1264", /the long side may be at most 3 times the short side \(3:1\)/],
    ["1264x3840", /at most 3 times the short side/],
    ["1008x640", /total pixels must be at least 655,360 \(got 645,120\)/],
    ["3840x2176", /total pixels must be at most 8,294,400 \(got 8,355,840\)/],
    ["0x1024", /width and height must be greater than 0/],
    ["1024", /use 'auto' or WIDTHxHEIGHT/],
    ["1024x", /use 'auto' or WIDTHxHEIGHT/],
    [" 1024x1024", /use 'auto' or WIDTHxHEIGHT/],
    ["1024x1024px", /use 'auto' or WIDTHxHEIGHT/],
    ["-1024x1024", /use 'auto' or WIDTHxHEIGHT/],
    ["AUTO", /use 'auto' or WIDTHxHEIGHT/],
    [1024, /expected a string/],
    [["1024x1024"], /expected a string/],
  ];
  for (const [size, message] of invalidSizes) {
    test(`size ${JSON.stringify(size)} is refused: ${message.source.slice(0, 60)}`, async () => {
      await generateRefused({ size }, "size", message);
    });
  }

  test("every quality, output format, response format, moderation level and background value is served", async () => {
    for (const quality of ["low", "medium", "high", "auto"]) {
      const result = await generateOk({ quality, size: "1024x1024" });
      assert.equal(result.quality, quality === "auto" ? "medium" : quality);
    }
    for (const format of ["png", "jpeg", "webp"]) {
      const result = await generateOk({ output_format: format });
      assert.equal((await decode(result.data[0].b64_json)).format, format);
    }
    const url = await generateOk({ response_format: "url", output_format: "jpeg" });
    assert.match(url.data[0].url, /^data:image\/jpeg;base64,/);
    assert.equal((await generateOk({ response_format: "b64_json" })).data[0].url, undefined);
    for (const moderation of ["auto", "low"]) await generateOk({ moderation });
    for (const background of ["auto", "opaque"]) assert.equal((await generateOk({ background })).background, "opaque");
  });

  const invalidFields: [body: Record<string, unknown>, param: string, message: RegExp][] = [
    [{ quality: "ultra" }, "quality", /^Invalid 'quality': must be one of 'low', 'medium', 'high', 'auto'; got 'ultra'$/],
    [{ quality: "standard" }, "quality", /got 'standard'/],
    [{ quality: "" }, "quality", /got ''/],
    [{ quality: 2 }, "quality", /got number 2/],
    [{ output_format: "gif" }, "output_format", /must be one of 'png', 'jpeg', 'webp'; got 'gif'/],
    [{ output_format: "jpg" }, "output_format", /got 'jpg'/],
    [{ output_format: "PNG" }, "output_format", /got 'PNG'/],
    [{ response_format: "binary" }, "response_format", /must be one of 'b64_json', 'url'; got 'binary'/],
    [{ moderation: "none" }, "moderation", /must be one of 'auto', 'low'; got 'none'/],
    [{ moderation: "high" }, "moderation", /got 'high'/],
    [{ background: "transparent" }, "background", /'transparent' is not supported; this model cannot produce transparent backgrounds/],
    [{ background: "clear" }, "background", /must be one of 'auto', 'opaque', 'transparent'/],
    [{ output_format: "jpeg", output_compression: -1 }, "output_compression", /from 0 to 100; got number -1/],
    [{ output_format: "jpeg", output_compression: 101 }, "output_compression", /from 0 to 100; got number 101/],
    [{ output_format: "webp", output_compression: 50.5 }, "output_compression", /whole number from 0 to 100/],
    [{ output_format: "webp", output_compression: "50" }, "output_compression", /whole number from 0 to 100; got '50'/],
    [{ prompt: undefined }, "prompt", /^Invalid 'prompt': is required/],
    [{ prompt: "  " }, "prompt", /must not be empty/],
    [{ prompt: 42 }, "prompt", /must be a string; got number 42/],
    [{ prompt: "x".repeat(32_001) }, "prompt", /at most 32,000 characters/],
    [{ model: "std-5.5" }, "model", /'std-5.5' is not an image model; the image API serves 'std-image-2'/],
    [{ model: 5 }, "model", /must be a string/],
    [{ stream: true }, "stream", /streaming is not available on the image API/],
    [{ stream: "yes" }, "stream", /must be true or false/],
    [{ user: 7 }, "user", /must be a string/],
    [{ input_fidelity: "max" }, "input_fidelity", /must be one of 'low', 'high'/],
  ];
  for (const [body, param, message] of invalidFields) {
    test(`${JSON.stringify(body).slice(0, 70)} is refused`, async () => {
      await generateRefused(body, param, message);
    });
  }

  test("output_compression: 0 and 100 are the bounds for jpeg and webp (100 keeps the best quality, as the vendor means it); png ignores it", async () => {
    for (const format of ["jpeg", "webp"]) {
      const largest = await generateOk({ output_format: format, output_compression: 100 });
      const smallest = await generateOk({ output_format: format, output_compression: 0 });
      assert.equal((await decode(largest.data[0].b64_json)).format, format);
      assert.ok(smallest.data[0].b64_json.length < largest.data[0].b64_json.length / 2, `${format}: compression 0 is much smaller than 100`);
    }
    const plain = await generateOk({ output_format: "png" });
    const compressed = await generateOk({ output_format: "png", output_compression: 90 });
    assert.equal(compressed.data[0].b64_json, plain.data[0].b64_json, "takes effect only for jpeg and webp");
  });

  test("bodies that are not a JSON object, and multipart sent to generations", async () => {
    await generateRefused("{not json", null, /not valid JSON/, "invalid_json");
    await generateRefused("[1,2]", null, /must be a JSON object/, "invalid_json");
    await generateRefused("", null, /it was empty/, "invalid_json");
    const form = new FormData();
    form.append("prompt", "p");
    const response = await fetch(`${gateway.url}/v1/images/generations`, { method: "POST", headers: { authorization: `Bearer ${user.key}` }, body: form });
    requestIds.push(await expectError(response, 400, "invalid_request", null, /takes a JSON body .* use POST \/v1\/images\/edits/));
  });

  test("a body over 1 MB is refused with 413; the client reads the answer and the connection stays usable", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string) =>
      new Promise<{ status: number; text: string; requestId: string }>((resolve, reject) => {
        const request = http.request(`${gateway.url}/v1/images/generations`, {
          method: "POST", agent,
          headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        }, (response) => {
          let text = "";
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, text, requestId: String(response.headers["x-request-id"]) }));
        });
        request.on("error", reject);
        request.end(body);
      });
    try {
      const big = await send(JSON.stringify({ prompt: "p", padding: "x".repeat(2 * MB) }));
      assert.equal(big.status, 413, big.text);
      assert.match(JSON.parse(big.text).error.message, /larger than the 1 MB limit/);
      requestIds.push(big.requestId);
      const small = await send(JSON.stringify({ prompt: "p", size: "7x7" }));
      assert.equal(small.status, 400, "the next request on the same connection is answered");
      requestIds.push(small.requestId);
    } finally {
      agent.destroy();
    }
  });

  // ------------------------------------------------------------------------------------------- edits

  async function editRefused(parts: Part[], status: number, code: string, param: string | null, message: RegExp) {
    requestIds.push(await expectError(await postForm(parts, user.key), status, code, param, message));
  }

  test("mask mismatches: format, dimensions, missing alpha", async () => {
    const image = await png(800, 600);
    await editRefused(
      [["prompt", "p"], ["image[]", image, "a.png", "image/png"], ["mask", await halfMask(800, 600, "webp"), "m.webp", "image/webp"]],
      400, "invalid_request", "mask", /^The mask must have the same format as the first image: the image is png, the mask is webp\.$/,
    );
    await editRefused(
      [["prompt", "p"], ["image[]", await solid(800, 600, "#123456").jpeg().toBuffer(), "a.jpg", "image/jpeg"], ["mask", await halfMask(800, 600), "m.png", "image/png"]],
      400, "invalid_request", "mask", /the image is jpeg, the mask is png/,
    );
    await editRefused(
      [["prompt", "p"], ["image[]", image, "a.png", "image/png"], ["mask", await halfMask(400, 300), "m.png", "image/png"]],
      400, "invalid_request", "mask", /^The mask must have the same dimensions as the first image: the image is 800x600, the mask is 400x300\.$/,
    );
    await editRefused(
      [["prompt", "p"], ["image[]", image, "a.png", "image/png"], ["mask", await png(800, 600, "#000000"), "m.png", "image/png"]],
      400, "invalid_request", "mask", /^The mask must have an alpha channel/,
    );
    // The mask applies to the first image: a second image of another size does not matter.
    const ok = await postForm([["prompt", "p"], ["quality", "low"], ["image[]", image, "a.png", "image/png"], ["image[]", await png(300, 500), "b.png", "image/png"], ["mask", await halfMask(800, 600), "m.png", "image/png"]], user.key);
    assert.equal(ok.status, 200, await ok.clone().text());
    spentByValidUser += (await ledgerFor(ok.headers.get("x-request-id")!)).cost;
  });

  test("edit files and fields: missing, not images, URL inputs, unknown fields, too many", async () => {
    const image = await png(512, 512);
    await editRefused([["prompt", "p"]], 400, "invalid_request", "image[]", /Missing 'image\[\]': upload at least one image file/);
    await editRefused([["prompt", "p"], ["mask", await halfMask(512, 512), "m.png", "image/png"]], 400, "invalid_request", "image[]", /upload at least one image/);
    await editRefused([["prompt", "p"], ["image[]", Buffer.from("hello, not an image"), "a.png", "image/png"]], 400, "invalid_request", "image[]", /The file in 'image\[\]' is not a PNG, JPEG or WebP image/);
    await editRefused([["prompt", "p"], ["image[]", Buffer.alloc(0), "empty.png", "image/png"]], 400, "invalid_request", "image[]", /not a PNG, JPEG or WebP image/);
    await editRefused([["prompt", "p"], ["image[]", await solid(64, 64, "#fff").gif().toBuffer(), "a.gif", "image/gif"]], 400, "invalid_request", "image[]", /must be a PNG, JPEG or WebP image \(found gif\)/);
    await editRefused([["prompt", "p"], ["image[]", image, "a.png"], ["image[]", Buffer.from("junk"), "b.png"]], 400, "invalid_request", "image[]", /'image\[\]' \(image 2 of 2\) is not a PNG/);
    await editRefused([["prompt", "p"], ["image", "https://169.254.169.254/latest/meta-data/"]], 400, "invalid_request", "image", /the gateway does not fetch image URLs/);
    await editRefused([["prompt", "p"], ["image[]", image, "a.png"], ["image_url", "http://127.0.0.1:1/x.png"]], 400, "invalid_request", "image_url", /does not fetch image URLs/);
    await editRefused([["prompt", "p"], ["image[]", image, "a.png"], ["mask", "data:image/png;base64,AAAA"]], 400, "invalid_request", "mask", /does not fetch image URLs/);
    await editRefused([["prompt", "p"], ["image[]", image, "a.png"], ["photo", image, "b.png"]], 400, "invalid_request", "photo", /Unexpected file in the field 'photo'/);
    await editRefused([["prompt", "p"], ["image[]", image, "a.png"], ["mask", await halfMask(512, 512), "m.png"], ["mask", await halfMask(512, 512), "n.png"]], 400, "invalid_request", "mask", /at most one mask/);
    await editRefused([["prompt", "p"], ...Array.from({ length: 18 }, (): Part => ["image[]", image, "a.png"])], 400, "invalid_request", null, /Too many files: at most 17 per request/);
    await editRefused([["prompt", "p"], ...Array.from({ length: 17 }, (): Part => ["image[]", image, "a.png"])], 400, "invalid_request", "image[]", /at most 16, got 17/);
    await editRefused([["image[]", image, "a.png"]], 400, "invalid_request", "prompt", /is required/);
  });

  test("edit options follow the same rules as generations (form fields)", async () => {
    const image = await png(512, 512);
    const edit = (fields: Part[]) => [["prompt", "p"] as Part, ["image[]", image, "a.png"] as Part, ...fields];
    await editRefused(edit([["output_format", "jpeg"], ["output_compression", "abc"]]), 400, "invalid_request", "output_compression", /whole number from 0 to 100; got 'abc'/);
    await editRefused(edit([["output_format", "jpeg"], ["output_compression", "101"]]), 400, "invalid_request", "output_compression", /got number 101/);
    await editRefused(edit([["output_format", "webp"], ["output_compression", "-1"]]), 400, "invalid_request", "output_compression", /got number -1/);
    await editRefused(edit([["quality", "ultra"]]), 400, "invalid_request", "quality", /got 'ultra'/);
    await editRefused(edit([["size", "1000x1000"]]), 400, "invalid_request", "size", /multiples of 16/);
    await editRefused(edit([["size", "4096x2304"]]), 400, "invalid_request", "size", /longest side must be at most 3840/);
    await editRefused(edit([["background", "transparent"]]), 400, "invalid_request", "background", /'transparent' is not supported/);
    await editRefused(edit([["response_format", "binary"]]), 400, "invalid_request", "response_format", /got 'binary'/);
    await editRefused(edit([["moderation", "off"]]), 400, "invalid_request", "moderation", /got 'off'/);
    await editRefused(edit([["stream", "true"]]), 400, "invalid_request", "stream", /streaming is not available/);
    const json = await fetch(`${gateway.url}/v1/images/edits`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "p", images: [{ image_url: "http://169.254.169.254/" }] }),
    });
    requestIds.push(await expectError(json, 400, "invalid_request", null, /takes multipart\/form-data .* image URLs and file ids are not accepted/));
    for (const [compression, format] of [["0", "jpeg"], ["100", "webp"]]) {
      const ok = await postForm(edit([["output_format", format!], ["output_compression", compression!], ["quality", "low"], ["size", "1024x1024"]]), user.key);
      const body = await ok.json();
      assert.equal(ok.status, 200, JSON.stringify(body));
      assert.deepEqual(await decode(body.data[0].b64_json), { format, width: 1024, height: 1024 });
      spentByValidUser += (await ledgerFor(ok.headers.get("x-request-id")!)).cost;
    }
  });

  test("an input image of more than 8192x8192 pixels is refused before it is decoded", async () => {
    // A tiny PNG header claiming 10000x10000: only the header is read.
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: "#000" } }).png({ compressionLevel: 9 }).toBuffer();
    await editRefused([["prompt", "p"], ["image[]", bomb, "bomb.png"]], 400, "invalid_request", "image[]", /is 10000x10000: input images may have at most 67,108,864 pixels/);
  });
});

// ---------------------------------------------------------------------------------------------------- 50 MB

describe("the 50 MB upload limit, through the HTTP endpoint", () => {
  test("a file of exactly 50 MB is accepted and edited; one byte more is refused with 413", async () => {
    const exact = await paddedPng(LIMIT);
    const ok = await postForm([["prompt", "exactly the limit"], ["quality", "low"], ["image[]", exact, "exact.png", "image/png"]]);
    const body = await ok.json();
    assert.equal(ok.status, 200, JSON.stringify(body));
    assert.deepEqual(await decode(body.data[0].b64_json), { format: "png", width: 1536, height: 1024 });

    const over = await paddedPng(LIMIT + 1);
    const refused = await postForm([["prompt", "one byte over"], ["image[]", over, "over.png", "image/png"]]);
    const requestId = await expectError(refused, 413, "file_too_large", "image[]", /^File for field 'image\[\]' is larger than the 50 MB limit$/);
    assert.deepEqual(await ledgerRows(requestId), []);
    const mask = await postForm([["prompt", "mask over"], ["image[]", await png(512, 512), "a.png"], ["mask", over, "mask.png", "image/png"]]);
    await expectError(mask, 413, "file_too_large", "mask", /File for field 'mask' is larger than the 50 MB limit/);
  });

  test("a 200 MB upload is refused while it streams: the client reads the 413, the gateway's memory stays flat", async (context) => {
    const pid = gateway.process.pid!;
    // Warm up the endpoint so first-use allocations are not counted.
    await postForm([["prompt", "warm-up"], ["image[]", Buffer.from("x"), "x.png"]]);
    const before = memory(pid);
    const peakReset = resetPeak(pid);
    const boundary = "----gateway-limit-test";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nhuge\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const total = 200 * MB;
    let sampledPeak = before.rss;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memory(pid).rss)), 10);
    const started = performance.now();
    const result = await new Promise<{ status: number; text: string; sent: number; error?: string }>((resolve) => {
      let sent = 0;
      let status = 0;
      let text = "";
      const request = http.request(`${gateway.url}/v1/images/edits`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      request.on("response", (response) => {
        status = response.statusCode!;
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => {
          request.destroy();
          resolve({ status, text, sent });
        });
      });
      request.on("error", (error) => resolve({ status, text, sent, error: error.message }));
      request.write(head);
      const chunk = Buffer.alloc(256 * 1024, 0x5a);
      const pump = () => {
        while (sent < total && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once("drain", pump);
        }
        if (!request.destroyed) request.end(`\r\n--${boundary}--\r\n`);
      };
      pump();
    });
    const elapsed = performance.now() - started;
    clearInterval(sampler);
    const afterwards = memory(pid);
    const peakGrowth = Math.max(peakReset ? afterwards.peak : 0, sampledPeak) - before.rss;
    context.diagnostic(
      `refused after the client sent ${(result.sent / MB).toFixed(1)} MB of ${total / MB} in ${elapsed.toFixed(0)} ms; gateway RSS ${before.rss.toFixed(1)} MB before, ` +
        `peak +${peakGrowth.toFixed(1)} MB (${peakReset ? "VmHWM after a reset, and " : ""}VmRSS sampled every 10 ms), ${afterwards.rss.toFixed(1)} MB after`,
    );
    assert.equal(result.status, 413, `the client read the answer (${result.error ?? "no error"})`);
    const body = JSON.parse(result.text);
    assert.deepEqual(body.error, { message: "File for field 'image[]' is larger than the 50 MB limit", type: "invalid_request_error", code: "file_too_large", param: "image[]" });
    assert.ok(result.sent < 120 * MB, `the upload was cut, not read to its end (${(result.sent / MB).toFixed(1)} MB sent)`);
    assert.ok(peakGrowth < 40, `the gateway's peak memory grew by ${peakGrowth.toFixed(1)} MB for a 200 MB upload`);
    // The gateway is still healthy afterwards.
    const after = await openai().images.generate({ model: "std-image-2", prompt: "still alive", size: "1024x1024", quality: "low" });
    assert.equal(after.data!.length, 1);
  });
});

// ---------------------------------------------------------------------------------------------------- content policy

describe("content policy", () => {
  test("defaults: auto refuses what low lets through; a refused prompt costs nothing and leaves no ledger row", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const gory = { model: "std-image-2", prompt: "a gory battle scene", size: "1024x1024", quality: "low" } as const;
    const refused = await postJson("/v1/images/generations", gory, user.key);
    const requestId = await expectError(refused, 400, "content_policy_violation", "prompt", /refused by the content policy \(moderation 'auto'\): it contains the blocked term 'gory'\. Nothing was charged\./);
    assert.deepEqual(await ledgerRows(requestId), []);
    assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 5_000_000 });
    const allowed = await postJson("/v1/images/generations", { ...gory, moderation: "low" }, user.key);
    assert.equal(allowed.status, 200, "moderation=low filters less strictly");
    const always = await postJson("/v1/images/generations", { ...gory, prompt: "child porn", moderation: "low" }, user.key);
    await expectError(always, 400, "content_policy_violation", "prompt", /moderation 'low'/);
    // Edits are filtered the same way, before anything is charged.
    const edit = await postForm([["prompt", "make it GORY"], ["image[]", await png(512, 512), "a.png"]], user.key);
    await expectError(edit, 400, "content_policy_violation", "prompt", /blocked term 'gory'/);
    // Through the SDK, the error is a BadRequestError with the policy code.
    await assert.rejects(openai(user.key).images.generate(gory), (error: unknown) => error instanceof OpenAI.BadRequestError && error.code === "content_policy_violation");
  });

  test("the operator configures the terms per level: GET, POST, reset; changes apply at once", async () => {
    const initial = await gateway.admin("GET", "/api/admin/moderation");
    assert.deepEqual(initial.auto, [...DEFAULT_MODERATION_TERMS.auto]);
    assert.deepEqual(initial.low, [...DEFAULT_MODERATION_TERMS.low]);
    assert.equal(initial.customised, false);
    const dragon = { model: "std-image-2", prompt: "a red Dragon over the sea", size: "1024x1024", quality: "low" };
    try {
      const saved = await gateway.admin("POST", "/api/admin/moderation", { auto: ["dragon*", " dragon* "] });
      assert.deepEqual(saved.auto, ["dragon*"]);
      assert.deepEqual(saved.low, [...DEFAULT_MODERATION_TERMS.low], "a level left out is kept");
      assert.equal(saved.customised, true);
      await expectError(await postJson("/v1/images/generations", dragon), 400, "content_policy_violation", "prompt", /'dragon\*'/);
      assert.equal((await postJson("/v1/images/generations", { ...dragon, moderation: "low" })).status, 200);
      assert.equal((await postJson("/v1/images/generations", { ...dragon, prompt: "a gory scene" })).status, 200, "the old auto list was replaced");
      await gateway.admin("POST", "/api/admin/moderation", { low: ["dragon"] });
      await expectError(await postJson("/v1/images/generations", { ...dragon, moderation: "low" }), 400, "content_policy_violation", "prompt", /moderation 'low'.*'dragon'/);

      const bad = async (body: unknown, message: RegExp) => {
        const response = await fetch(`${gateway.url}/api/admin/moderation`, { method: "POST", headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" }, body: JSON.stringify(body) });
        assert.equal(response.status, 400);
        assert.match((await response.json()).error.message, message);
      };
      await bad({ auto: "dragon" }, /must be an array of strings/);
      await bad({ auto: ["!!!"] }, /at least one letter or digit/);
      await bad({ high: ["x"] }, /unknown field\(s\): high/);
      await bad({}, /Nothing to change/);
      await bad({ reset: true, auto: ["x"] }, /either 'reset: true' or new lists/);
      const forbidden = await fetch(`${gateway.url}/api/admin/moderation`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(forbidden.status, 403, "an API key cannot read or change the policy");
    } finally {
      const reset = await gateway.admin("POST", "/api/admin/moderation", { reset: true });
      assert.equal(reset.customised, false);
    }
    assert.equal((await postJson("/v1/images/generations", dragon)).status, 200);
    await expectError(await postJson("/v1/images/generations", { ...dragon, prompt: "a gory scene" }), 400, "content_policy_violation", "prompt", /'gory'/);
  });
});

// ---------------------------------------------------------------------------------------------------- fake upstream

describe("an OpenAI-compatible upstream (recording fake)", () => {
  async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
    const upstream = await startFakeUpstream(respond);
    upstreams.push(upstream);
    return upstream;
  }

  async function withChannel<T>(upstream: FakeUpstream, run: () => Promise<T>, extra: Record<string, unknown> = {}): Promise<T> {
    const { id } = await gateway.admin("POST", "/api/admin/channels", {
      name: "fake image upstream", type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "upstream-image-secret",
      models: ["std-image-2"], modelMapping: { "std-image-2": "real-image-model-7" }, priority: 50, ...extra,
    });
    try {
      return await run();
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  }

  function parseForm(received: Received): Promise<{ fields: Record<string, string>; files: { field: string; filename: string; type: string; data: Buffer }[] }> {
    return new Promise((resolve, reject) => {
      const fields: Record<string, string> = {};
      const files: { field: string; filename: string; type: string; data: Buffer }[] = [];
      const parser = busboy({ headers: received.headers as Record<string, string>, limits: { fileSize: 100 * MB } });
      parser.on("field", (name, value) => (fields[name] = value));
      parser.on("file", (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => files.push({ field, filename: info.filename ?? "", type: info.mimeType, data: Buffer.concat(chunks) }));
      });
      parser.on("close", () => resolve({ fields, files }));
      parser.on("error", reject);
      parser.end(received.raw);
    });
  }

  const upstreamUsage = { input_tokens: 5080, input_tokens_details: { text_tokens: 11, image_tokens: 5069 }, output_tokens: 1372, total_tokens: 6452 };

  test("generations: mapped model, the channel's key, the client's fields only; the image comes back unchanged", async () => {
    const image = await solid(1536, 1024, "#0a7f3c").jpeg({ quality: 77 }).toBuffer();
    const upstream = await fake((_request, response) => sendJson(response, 200, { created: 1_700_000_123, data: [{ b64_json: image.toString("base64"), revised_prompt: "a green field, revised" }], size: "1536x1024", quality: "medium", output_format: "jpeg", background: "opaque", usage: upstreamUsage }));
    const trap = await fake((_request, response) => sendJson(response, 500, {}));
    await withChannel(upstream, async () => {
      const body = {
        model: "std-image-2", prompt: "a green field", size: "1536x1024", quality: "medium", output_format: "jpeg", output_compression: 35,
        moderation: "low", background: "opaque", user: "end-user-9", n: 3, response_format: "b64_json",
        // Fields that must not redirect or reach the upstream (security item 20).
        base_url: `${trap.url}/v1`, api_base: `${trap.url}/v1`, baseURL: trap.url,
      };
      const { data: result, response } = await openai().images.generate(body as OpenAI.ImageGenerateParamsNonStreaming).withResponse();
      assert.equal(result.data![0]!.b64_json, image.toString("base64"), "the upstream's bytes, unchanged");
      assert.equal(result.data![0]!.revised_prompt, "a green field, revised");
      assert.equal(result.created, 1_700_000_123);
      assert.equal(result.output_format, "jpeg");
      assert.equal(trap.received.length, 0, "the body cannot redirect the upstream");
      const received = upstream.received.at(-1)!;
      assert.equal(received.method, "POST");
      assert.equal(received.path, "/v1/images/generations");
      assert.equal(received.headers.authorization, "Bearer upstream-image-secret");
      assert.equal(JSON.stringify(received.headers).includes(key), false, "the caller's key never goes upstream");
      assert.deepEqual(received.body, {
        model: "real-image-model-7", prompt: "a green field", size: "1536x1024", quality: "medium", output_format: "jpeg",
        output_compression: 35, moderation: "low", background: "opaque", user: "end-user-9",
      });
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.channelName, "fake image upstream");
      assert.equal(row.textInputTokens, 11);
      assert.equal(row.imageInputTokens, 5069);
      assert.equal(row.imageOutputTokens, 1372);
      assert.equal(row.cost, 11 * PRICE.textInput + 5069 * PRICE.imageInput + 1372 * PRICE.imageOutput);
      assert.equal(row.detail.usageSource, "upstream");

      // response_format=url: a data URI of the same bytes, with the format read from the bytes.
      const url = await openai().images.generate({ model: "std-image-2", prompt: "a green field", response_format: "url" });
      assert.equal(url.data![0]!.url, `data:image/jpeg;base64,${image.toString("base64")}`);
      assert.deepEqual(upstream.received.at(-1)!.body, { model: "real-image-model-7", prompt: "a green field" }, "only what the client sent; no response_format, no n");
    });
  });

  test("edits: the upstream receives the mapped model, every field and every file byte for byte, re-streamed", async () => {
    const answer = await solid(1024, 1024, "#aa3300").png().toBuffer();
    const upstream = await fake((_request, response) => sendJson(response, 200, { created: 1_700_000_456, data: [{ b64_json: answer.toString("base64") }], usage: upstreamUsage }));
    await withChannel(upstream, async () => {
      const first = await png(800, 600, "#112233");
      const second = await solid(640, 480, "#445566").png().toBuffer();
      const mask = await halfMask(800, 600);
      const { data: result, response } = await openai()
        .images.edit({
          model: "std-image-2", prompt: "replace the sky", size: "1024x1024", quality: "high", output_format: "png", n: 2,
          // The spec gives edits the same output options as generations, moderation included; the SDK's type lacks it.
          ...({ moderation: "auto" } as object),
          image: [await toFile(first, "first.png", { type: "image/png" }), await toFile(second, "second.png")],
          mask: await toFile(mask, "mask.png", { type: "image/png" }),
          input_fidelity: "low",
        })
        .withResponse();
      assert.equal(result.data![0]!.b64_json, answer.toString("base64"), "the upstream's image, unchanged");
      const received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/images/edits");
      assert.equal(received.headers.authorization, "Bearer upstream-image-secret");
      assert.equal(Number(received.headers["content-length"]), received.raw.length, "the body length is announced up front");
      const form = await parseForm(received);
      assert.deepEqual(form.fields, { model: "real-image-model-7", prompt: "replace the sky", size: "1024x1024", quality: "high", output_format: "png", moderation: "auto" });
      assert.deepEqual(form.files.map((file) => [file.field, file.filename, file.type]), [
        ["image[]", "first.png", "image/png"],
        ["image[]", "second.png", "image/png"],
        ["mask", "mask.png", "image/png"],
      ]);
      assert.ok(form.files[0]!.data.equals(first), "first image byte for byte");
      assert.ok(form.files[1]!.data.equals(second), "second image byte for byte");
      assert.ok(form.files[2]!.data.equals(mask), "mask byte for byte");
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.endpoint, "/v1/images/edits");
      assert.equal(row.imageInputTokens, 5069);
      assert.equal(row.cost, 11 * PRICE.textInput + 5069 * PRICE.imageInput + 1372 * PRICE.imageOutput);
    });
  });

  test("a 45 MB upload is relayed from disk without being held in the gateway's memory", async (context) => {
    const upstream = await fake((request, response) => sendJson(response, 200, { data: [{ b64_json: request.raw.subarray(0, 0).toString("base64") || "iVBORw0KGgo=" }] }));
    await withChannel(upstream, async () => {
      const big = await paddedPng(45 * MB);
      const pid = gateway.process.pid!;
      const before = memory(pid);
      const peakReset = resetPeak(pid);
      let sampledPeak = before.rss;
      const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memory(pid).rss)), 10);
      const response = await postForm([["prompt", "relay a big file"], ["image[]", big, "big.png", "image/png"]]);
      clearInterval(sampler);
      assert.equal(response.status, 200, await response.clone().text());
      const growth = Math.max(peakReset ? memory(pid).peak : 0, sampledPeak) - before.rss;
      context.diagnostic(`45 MB relayed: gateway peak RSS +${growth.toFixed(1)} MB (RSS before ${before.rss.toFixed(1)} MB)`);
      const form = await parseForm(upstream.received.at(-1)!);
      assert.ok(form.files[0]!.data.equals(big), "the upstream received the file byte for byte");
      assert.ok(growth < 35, `peak memory grew by ${growth.toFixed(1)} MB while relaying 45 MB`);
    });
  });

  test("an upstream without usage is billed by the gateway's own count", async () => {
    const image = await png(1024, 1024, "#010203");
    const upstream = await fake((_request, response) => sendJson(response, 200, { data: [{ b64_json: image.toString("base64") }] }));
    await withChannel(upstream, async () => {
      const { data: result, response } = await openai().images.generate({ model: "std-image-2", prompt: "no usage here", size: "1024x1024", quality: "low" }).withResponse();
      assert.equal(result.data![0]!.b64_json, image.toString("base64"));
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.imageOutputTokens, 196);
      assert.equal(row.textInputTokens, countTextTokens("no usage here"));
      assert.equal(row.detail.usageSource, "gateway");
    });
  });

  test("upstream failures: a 400 is passed on, a link or garbage is a 502; none is charged", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const trap = await fake((_request, response) => sendJson(response, 200, {}));
    let mode = "refuse";
    const upstream = await fake((_request, response) => {
      if (mode === "refuse") sendJson(response, 400, { error: { message: "Your request was rejected by the safety system", code: "moderation_blocked" } });
      else if (mode === "link") sendJson(response, 200, { data: [{ url: `${trap.url}/image.png` }] });
      else if (mode === "garbage") response.writeHead(200, { "content-type": "application/json" }).end("{\"data\": [");
      else sendJson(response, 200, { data: [{ b64_json: Buffer.from("GIF89a not an image").toString("base64") }] });
    });
    // The built-in simulator would step in for the retryable failures (failover); switch it off meanwhile.
    const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find((channel) => channel.type === "simulator")!;
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
    try {
      await withChannel(upstream, async () => {
        const request = { model: "std-image-2", prompt: "anything", size: "1024x1024", quality: "low" };
        const refused = await postJson("/v1/images/generations", request, user.key);
        const first = await expectError(refused, 400, "moderation_blocked", null, /^Your request was rejected by the safety system/);
        mode = "link";
        const second = await expectError(await postJson("/v1/images/generations", request, user.key), 502, "upstream_error", null, /links to images are not fetched/);
        assert.equal(trap.received.length, 0, "the gateway fetched nothing");
        mode = "garbage";
        const third = await expectError(await postJson("/v1/images/generations", request, user.key), 502, "upstream_error", null, /not valid JSON/);
        mode = "not an image";
        const fourth = await expectError(await postJson("/v1/images/generations", request, user.key), 502, "upstream_error", null, /not PNG, JPEG or WebP/);
        for (const requestId of [first, second, third, fourth]) {
          const row = await ledgerFor(requestId);
          assert.equal(row.cost, 0);
          assert.equal(row.status, "error");
        }
        assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 5_000_000 });
      });
    } finally {
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
    }
  });

  test("a failing upstream fails over to the next channel (here the simulator)", async () => {
    const failing = await fake((_request, response) => sendJson(response, 503, { error: { message: "overloaded" } }));
    await withChannel(failing, async () => {
      const { data: result, response } = await openai().images.generate({ model: "std-image-2", prompt: "failover", size: "1024x1024", quality: "low" }).withResponse();
      assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: "png", width: 1024, height: 1024 });
      assert.equal(failing.received.length, 1);
      assert.equal((await ledgerFor(response.headers.get("x-request-id")!)).channelName, "Built-in simulator (offline)");
    });
  });
});

// ---------------------------------------------------------------------------------------------------- PostgreSQL

describe("on PostgreSQL", async () => {
  const available = await postgresAvailable();
  test("a generation, an edit, their ledger rows and the moderation setting", { skip: available ? false : "no PostgreSQL on 127.0.0.1:5432" }, async () => {
    const postgres = await startGateway({ database: "postgres" });
    const user = await createUserWithKey(postgres, { balance: 5_000_000, quota: 5_000_000 });
    const client = openai(user.key, postgres.url);
    const { response } = await client.images.generate({ model: "std-image-2", prompt: "on postgres", size: "1024x1024", quality: "low" }).withResponse();
    const row = await ledgerFor(response.headers.get("x-request-id")!, postgres);
    assert.equal(row.imageOutputTokens, 196);
    const edit = await client.images.edit({ model: "std-image-2", prompt: "edit on postgres", image: [await toFile(await png(512, 512), "a.png")], size: "1024x1024", quality: "low" }).withResponse();
    assert.equal((await ledgerFor(edit.response.headers.get("x-request-id")!, postgres)).imageInputTokens, imageInputTokens(512, 512));
    await postgres.admin("POST", "/api/admin/moderation", { auto: ["postgres"] });
    assert.deepEqual((await postgres.admin("GET", "/api/admin/moderation")).auto, ["postgres"]);
    await assert.rejects(client.images.generate({ model: "std-image-2", prompt: "on postgres", size: "1024x1024", quality: "low" }), (error: unknown) => error instanceof OpenAI.BadRequestError && error.code === "content_policy_violation");
  });
});
