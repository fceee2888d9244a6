// The fake upstreams (tests/helpers/fault-upstream.ts, and through it tests/helpers/billing-upstream.ts) bill images
// as the vendor does, by their own copy of the vendor's arithmetic (imageTokens), not the gateway's: checked here
// against the same published figures as the gateway's copy (tests/helpers/image-token-figures.ts), so that the fakes
// can check the gateway's reservation rather than mirror it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { imageTokens } from "../helpers/fault-upstream";
import { PUBLISHED_TOKENS, REFERENCE_COST, VENDOR_IMAGE_OUTPUT_PRICE, type Quality } from "../helpers/image-token-figures";

test("the published token counts: the observed 196, the vendor calculator's figures, billed counts", () => {
  for (const figure of PUBLISHED_TOKENS)
    assert.equal(
      imageTokens(figure.width, figure.height, figure.quality),
      figure.tokens,
      `${figure.width}x${figure.height} ${figure.quality} (${figure.source})`,
    );
});

test("at the vendor's $30 per 1M image output tokens, every cell of the reference cost table to the three decimals shown", () => {
  for (const [quality, row] of Object.entries(REFERENCE_COST) as [Quality, Record<string, string>][]) {
    for (const [size, usd] of Object.entries(row)) {
      const [width, height] = size.split("x").map(Number) as [number, number];
      const cost = (imageTokens(width, height, quality) * VENDOR_IMAGE_OUTPUT_PRICE) / 1_000_000;
      assert.equal(cost.toFixed(3), usd, `${quality} ${size}`);
    }
  }
});

test("non-square sizes are not in proportion to the area alone", () => {
  // The soak's size: far below a square's 196.
  assert.equal(imageTokens(1024, 640, "low"), 107);
  assert.equal(imageTokens(1024, 640, "medium"), 956);
  assert.equal(imageTokens(1280, 720, "high"), 3787);
});
