// What an image request costs: the seeded default prices against the spec's reference table (§8), the reservation's
// upper bound, the simulator's usage, and reading an OpenAI-compatible upstream's usage object.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_PRICES } from "@/lib/server/seed";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { costOf, priceFromRow, type Price } from "@/lib/money/prices";
import { countTextTokens } from "@/lib/money/tokens";
import { imageInputTokens, imageOutputTokens } from "@/lib/money/image-tokens";
import { imageUsage, imageUsageUpperBound } from "@/lib/money/image-usage";
import { sniffFormat, usageFromUpstream } from "@/lib/providers/images-api";
import { REFERENCE_COST, type Quality } from "../helpers/image-token-figures";

const price: Price = priceFromRow({ model: IMAGE_MODEL, version: 1, ...DEFAULT_PRICES[IMAGE_MODEL]! });

test("the default prices reproduce every cell of the spec's reference table to the three decimals shown", () => {
  for (const [quality, sizes] of Object.entries(REFERENCE_COST) as [Quality, Record<string, string>][]) {
    for (const [size, usd] of Object.entries(sizes)) {
      const [width, height] = size.split("x").map(Number) as [number, number];
      const usage = {
        textInputTokens: 0,
        textOutputTokens: 0,
        imageInputTokens: 0,
        imageOutputTokens: imageOutputTokens(width, height, quality),
      };
      const dollars = costOf(usage, price) / 1_000_000;
      assert.equal(dollars.toFixed(3), usd, `${quality} ${size}: $${dollars} vs the spec's $${usd}`);
    }
  }
});

test("a low 1024x1024 image uses the ~196 image tokens the spec observed", () => {
  assert.equal(imageUsage({ prompt: "a fox", width: 1024, height: 1024, quality: "low" }).imageOutputTokens, 196);
});

test("usage: prompt tokens + high-fidelity input tokens per image + output tokens; auto renders as medium", () => {
  const usage = imageUsage({
    prompt: "make the sky purple",
    width: 1536,
    height: 1024,
    quality: "auto",
    inputs: [
      { width: 800, height: 600 },
      { width: 512, height: 512 },
    ],
  });
  assert.deepEqual(usage, {
    textInputTokens: countTextTokens("make the sky purple"),
    textOutputTokens: 0,
    imageInputTokens: imageInputTokens(800, 600) + imageInputTokens(512, 512),
    imageOutputTokens: imageOutputTokens(1536, 1024, "medium"),
  });
});

test("the reservation's upper bound takes auto as high and is never below the usage", () => {
  const input = { prompt: "p", width: 3840, height: 2160, quality: "auto" as const };
  assert.equal(imageUsageUpperBound(input).imageOutputTokens, imageOutputTokens(3840, 2160, "high"));
  for (const quality of ["low", "medium", "high", "auto"] as const) {
    assert.ok(costOf(imageUsageUpperBound({ ...input, quality }), price) >= costOf(imageUsage({ ...input, quality }), price));
  }
  // A 3840x2160 high image: 13,342 output tokens at $30/1M, about $0.40.
  assert.equal(imageOutputTokens(3840, 2160, "high"), 13_342);
});

const fallback = { textInputTokens: 9, textOutputTokens: 0, imageInputTokens: 4925, imageOutputTokens: 1756 };

test("an upstream's usage object is billed as reported, with its text/image split", () => {
  assert.deepEqual(
    usageFromUpstream({ input_tokens: 60, input_tokens_details: { text_tokens: 10, image_tokens: 50 }, output_tokens: 272 }, fallback),
    { usage: { textInputTokens: 10, textOutputTokens: 0, imageInputTokens: 50, imageOutputTokens: 272 }, source: "upstream" },
  );
  assert.deepEqual(
    usageFromUpstream(
      {
        input_tokens: 60,
        input_tokens_details: { text_tokens: 10, image_tokens: 50 },
        output_tokens: 300,
        output_tokens_details: { image_tokens: 280, text_tokens: 20 },
      },
      fallback,
    ).usage,
    { textInputTokens: 10, textOutputTokens: 20, imageInputTokens: 50, imageOutputTokens: 280 },
  );
  // No details: the gateway's own prompt count is the text part, the rest is image input.
  assert.deepEqual(usageFromUpstream({ input_tokens: 100, output_tokens: 5 }, fallback).usage, {
    textInputTokens: 9,
    textOutputTokens: 0,
    imageInputTokens: 91,
    imageOutputTokens: 5,
  });
  assert.deepEqual(usageFromUpstream({ input_tokens: 4, output_tokens: 5 }, fallback).usage, {
    textInputTokens: 4,
    textOutputTokens: 0,
    imageInputTokens: 0,
    imageOutputTokens: 5,
  });
});

test("without usage from the upstream, the gateway's own count is billed", () => {
  assert.deepEqual(usageFromUpstream(undefined, fallback), { usage: fallback, source: "gateway" });
  assert.deepEqual(usageFromUpstream(null, fallback), { usage: fallback, source: "gateway" });
  assert.deepEqual(usageFromUpstream({}, fallback), { usage: fallback, source: "gateway" });
});

test("image data is recognised by its first bytes, not by what anyone claims it is", () => {
  assert.equal(sniffFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString("base64")), "png");
  assert.equal(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).toString("base64")), "jpeg");
  assert.equal(sniffFormat(Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1").toString("base64")), "webp");
  assert.equal(sniffFormat(Buffer.from("GIF89a....").toString("base64")), null);
  assert.equal(sniffFormat(""), null);
});
