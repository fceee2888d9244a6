// The gateway's image output tokens (lib/money/image-tokens.ts) are the vendor's arithmetic: they give the published
// figures (tests/helpers/image-token-figures.ts) and, at the seeded image output price, which is the vendor's list
// price, every cell of the spec's reference cost table (docs/api.md §8). The former curve, fitted to the table at
// $32/1M, reserved 6,594 tokens for a 1024x1024 high image the vendor bills at 7,024.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costMicros, imageOutputTokens } from "@/lib/money/image-tokens";
import { DEFAULT_PRICES } from "@/lib/server/seed";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { PUBLISHED_TOKENS, REFERENCE_COST, VENDOR_IMAGE_OUTPUT_PRICE, type Quality } from "../helpers/image-token-figures";

test("the seeded image output price is the vendor's list price", () => {
  assert.equal(DEFAULT_PRICES[IMAGE_MODEL]!.imageOutput, VENDOR_IMAGE_OUTPUT_PRICE);
});

test("every cell of the reference cost table, to three decimals, at the seeded price", () => {
  const price = DEFAULT_PRICES[IMAGE_MODEL]!.imageOutput;
  for (const [quality, row] of Object.entries(REFERENCE_COST) as [Quality, Record<string, string>][]) {
    for (const [size, expected] of Object.entries(row)) {
      const [width, height] = size.split("x").map(Number) as [number, number];
      const usd = costMicros(imageOutputTokens(width, height, quality), price) / 1_000_000;
      assert.equal(usd.toFixed(3), expected, `${quality} ${size}: ${usd}`);
    }
  }
});

test("the published token counts: the observed 196, the vendor calculator's figures, billed counts", () => {
  for (const figure of PUBLISHED_TOKENS)
    assert.equal(
      imageOutputTokens(figure.width, figure.height, figure.quality),
      figure.tokens,
      `${figure.width}x${figure.height} ${figure.quality} (${figure.source})`,
    );
});

test("portrait and landscape cost the same", () => {
  for (const quality of ["low", "medium", "high"] as const)
    for (const [width, height] of [
      [1536, 1024],
      [1280, 720],
      [3840, 2160],
    ] as const)
      assert.equal(imageOutputTokens(width, height, quality), imageOutputTokens(height, width, quality));
});
