// Image API: /v1/images/generations and /v1/images/edits through the official openai client against the running
// gateway (built-in simulator), and the ledger rows they leave.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toFile } from "openai";
import sharp from "sharp";
import { countTextTokens } from "@/lib/money/tokens";
import { imageInputTokens, imageOutputTokens } from "@/lib/money/image-tokens";
import { createUserWithKey } from "../helpers/gateway";
import {
  MB,
  PRICE,
  gateway,
  openai,
  ledgerFor,
  account,
  decode,
  postJson,
  png,
  halfMask,
  pixel,
  distance,
  expectError,
} from "../helpers/images-setup";

describe("the official openai client against the built-in simulator", () => {
  test("images.generate: the requested width, height and format, as b64_json and as a data URI", async () => {
    const cases = [
      { size: "1024x1024", output_format: "png", quality: "low" },
      { size: "1536x1024", output_format: "jpeg", quality: "medium" },
      { size: "1024x1536", output_format: "webp", quality: "high" },
      { size: "2048x1152", output_format: "png", quality: "auto" },
    ] as const;
    for (const request of cases) {
      const { data: result, response } = await openai()
        .images.generate({ model: "std-image-2", prompt: `a lighthouse at dawn, ${request.size}`, ...request })
        .withResponse();
      assert.match(response.headers.get("x-request-id")!, /^req_/);
      assert.equal(result.data!.length, 1);
      const [width, height] = request.size.split("x").map(Number);
      assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: request.output_format, width, height });
      assert.equal(result.size, request.size);
      assert.equal(result.output_format, request.output_format);
      assert.equal(result.quality, request.quality === "auto" ? "medium" : request.quality);
    }
    const url = await openai().images.generate({
      model: "std-image-2",
      prompt: "a data URI please",
      size: "1024x1024",
      quality: "low",
      output_format: "webp",
      response_format: "url",
    });
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
    assert.equal(
      row.imageInputTokens,
      imageInputTokens(800, 600) + imageInputTokens(300, 300),
      "both inputs at high fidelity; the mask is not billed",
    );
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
    assert.equal(row.imageOutputTokens, 13_342);
    assert.equal(row.textInputTokens, text);
    assert.equal(row.cost, text * PRICE.textInput + 13_342 * PRICE.imageOutput);
    assert.equal(
      row.reserved,
      row.cost + (promptBound("a 4K skyline at night") - text) * PRICE.textInput,
      "quality high is reserved as what it costs, plus the prompt's margin",
    );
    assert.equal(row.detail.experimental, true, "above 2560x1440 is experimental");
    context.diagnostic(
      `3840x2160 high: ${elapsed.toFixed(0)} ms end to end through the SDK, ${(result.data![0]!.b64_json!.length / MB).toFixed(2)} MB of base64, $${(row.cost / 1e6).toFixed(4)}`,
    );
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
    assert.deepEqual(lowRow.detail.costs, { textInput: text * 5, imageInput: 0, imageOutput: 196 * 30, total: lowRow.cost });
    assert.equal(lowRow.detail.size, "1024x1024");
    assert.equal(lowRow.detail.quality, "low");
    assert.deepEqual(low.data.usage, {
      input_tokens: text,
      input_tokens_details: { text_tokens: text, image_tokens: 0 },
      output_tokens: 196,
      output_tokens_details: { image_tokens: 196, text_tokens: 0 },
      total_tokens: text + 196,
    });

    // quality auto: reserved as high, rendered and settled as medium.
    const auto = await openai(user.key).images.generate({ model: "std-image-2", prompt, size: "1536x1024" }).withResponse();
    const autoRow = await ledgerFor(auto.response.headers.get("x-request-id")!);
    assert.equal(autoRow.imageOutputTokens, imageOutputTokens(1536, 1024, "medium"));
    assert.equal(autoRow.reserved, promptBound(prompt) * PRICE.textInput + imageOutputTokens(1536, 1024, "high") * PRICE.imageOutput);
    assert.equal(autoRow.cost, text * PRICE.textInput + imageOutputTokens(1536, 1024, "medium") * PRICE.imageOutput);
    assert.ok(autoRow.cost < autoRow.reserved);

    // An edit adds the input images.
    const edit = await openai(user.key)
      .images.edit({
        model: "std-image-2",
        prompt,
        image: await toFile(await png(1024, 1024), "a.png"),
        quality: "medium",
        size: "1024x1024",
      })
      .withResponse();
    const editRow = await ledgerFor(edit.response.headers.get("x-request-id")!);
    assert.equal(editRow.imageInputTokens, imageInputTokens(1024, 1024));
    assert.equal(editRow.imageOutputTokens, 1756);
    assert.equal(editRow.cost, text * PRICE.textInput + imageInputTokens(1024, 1024) * PRICE.imageInput + 1756 * PRICE.imageOutput);

    const after = await account(user.userId);
    const spent = lowRow.cost + autoRow.cost + editRow.cost;
    assert.deepEqual(
      after,
      { balance: 5_000_000 - spent, quota: 5_000_000 - spent },
      "balance and key quota moved by exactly the settled costs",
    );
  });

  test("a key whose quota cannot cover the upper bound is refused before anything is rendered", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 100_000 });
    const response = await postJson(
      "/v1/images/generations",
      { model: "std-image-2", prompt: "a 4K harbour", size: "3840x2160", quality: "high" },
      user.key,
    );
    await expectError(response, 403, "quota_exhausted", null, /reserves up to \$0\.4004/);
    assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 100_000 });
  });
});

// ---------------------------------------------------------------------------------------------------- validation
