import { test } from "node:test";
import assert from "node:assert/strict";
import {
  costMicros,
  imageCostBreakdown,
  imageInputTokens,
  imageOutputTokens,
  resolveQuality,
  type ImageQuality,
} from "@/lib/money/image-tokens";

const OUTPUT_PRICE = 32; // USD per 1M image output tokens

// Spec §8, reference image cost in USD per image.
const REFERENCE: Record<ImageQuality, Record<string, number>> = {
  low: { "1024x1024": 0.006, "1024x1536": 0.005, "1536x1024": 0.005 },
  medium: { "1024x1024": 0.053, "1024x1536": 0.041, "1536x1024": 0.041 },
  high: { "1024x1024": 0.211, "1024x1536": 0.165, "1536x1024": 0.165 },
};

for (const [quality, sizes] of Object.entries(REFERENCE) as Array<[ImageQuality, Record<string, number>]>) {
  for (const [size, usd] of Object.entries(sizes)) {
    test(`${quality} ${size} costs within 5% of $${usd}`, () => {
      const [width, height] = size.split("x").map(Number) as [number, number];
      const dollars = costMicros(imageOutputTokens(width, height, quality), OUTPUT_PRICE) / 1_000_000;
      assert.ok(Math.abs(dollars - usd) / usd <= 0.05, `${quality} ${size}: $${dollars} vs $${usd}`);
    });
  }
}

test("1024x1024 output tokens are the base values, low matching the observed 196", () => {
  assert.equal(imageOutputTokens(1024, 1024, "low"), 196);
  assert.equal(imageOutputTokens(1024, 1024, "medium"), 1656);
  assert.equal(imageOutputTokens(1024, 1024, "high"), 6594);
});

test("output tokens grow with area, shrink with aspect, and ignore orientation", () => {
  assert.equal(imageOutputTokens(1536, 1024, "high"), imageOutputTokens(1024, 1536, "high"));
  assert.ok(imageOutputTokens(2048, 2048, "medium") === Math.round(1656 * 4));
  // Same 16:9 aspect: tokens scale with the area alone.
  const ratio = imageOutputTokens(3840, 2160, "high") / imageOutputTokens(2048, 1152, "high");
  assert.ok(Math.abs(ratio - (3840 * 2160) / (2048 * 1152)) < 0.001, String(ratio));
  assert.ok(imageOutputTokens(1536, 1024, "low") < imageOutputTokens(1024, 1024, "low"));
  for (const quality of ["low", "medium", "high"] as const) assert.ok(Number.isInteger(imageOutputTokens(1552, 1024, quality)));
});

test("auto quality resolves to medium, explicit qualities stay", () => {
  assert.equal(resolveQuality("auto"), "medium");
  assert.equal(resolveQuality("low"), "low");
  assert.equal(resolveQuality("high"), "high");
});

test("input tokens: tiles after fitting 2048 and shortening to 768, plus the fidelity surcharge", () => {
  // 1024² → 768² → 2x2 tiles: 85 + 680 = 765, square → +4160.
  assert.equal(imageInputTokens(1024, 1024), 765 + 4160);
  // 2048x4096 → 1024x2048 → 768x1536 → 2x3 tiles: 85 + 1020 = 1105, not square → +6240.
  assert.equal(imageInputTokens(2048, 4096), 1105 + 6240);
  // 1536x1024 → 1152x768 → 3x2 tiles.
  assert.equal(imageInputTokens(1536, 1024), 1105 + 6240);
  // Small images are never scaled up: 512² is one tile.
  assert.equal(imageInputTokens(512, 512), 255 + 4160);
  // 4000x3000 → 2048x1536 → 1024x768 → 2x2 tiles; 4:3 is above 1.25, so not square.
  assert.equal(imageInputTokens(4000, 3000), 765 + 6240);
  // 1.2:1 counts as square.
  assert.equal(imageInputTokens(1200, 1000), 85 + 170 * 4 + 4160);
});

test("costMicros: one token at $X per million is X micro-USD, rounded up", () => {
  assert.equal(costMicros(196, 32), 6272);
  assert.equal(costMicros(0, 32), 0);
  assert.equal(costMicros(1, 0.5), 1);
  assert.equal(costMicros(3, 0.5), 2);
  assert.equal(costMicros(1_000_000, 5), 5_000_000);
});

test("costMicros does not round float noise up to an extra micro-dollar", () => {
  // 100 × 1.1 is 110.00000000000001 in binary floating point.
  assert.equal(100 * 1.1 > 110, true);
  assert.equal(costMicros(100, 1.1), 110);
  assert.equal(costMicros(3, 0.1), 1); // 0.30000000000000004 → still a fraction: 1
  assert.equal(costMicros(7, 1.15), 9); // 8.05 → 9
});

test("imageCostBreakdown prices each part and adds them up", () => {
  const breakdown = imageCostBreakdown(
    { textInputTokens: 50, imageInputTokens: 4925, imageOutputTokens: 1656 },
    { textInput: 5, imageInput: 8, imageOutput: 32 },
  );
  assert.deepEqual(breakdown, { textInput: 250, imageInput: 39_400, imageOutput: 52_992, total: 250 + 39_400 + 52_992 });
});
