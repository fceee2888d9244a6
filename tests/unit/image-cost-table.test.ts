// The simulator's image token counts reproduce the spec's reference cost table (gateway-interface §8) to the three
// decimals shown, at the seeded image output price (issue "real clients", item 8). Before: 1024x1536 medium cost
// $0.042 where the table says $0.041.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costMicros, imageOutputTokens, type ImageQuality } from "@/lib/money/image-tokens";
import { DEFAULT_PRICES } from "@/lib/server/seed";
import { IMAGE_MODEL } from "@/lib/catalog/models";

const TABLE: Record<ImageQuality, Record<string, string>> = {
  low: { "1024x1024": "0.006", "1024x1536": "0.005", "1536x1024": "0.005" },
  medium: { "1024x1024": "0.053", "1024x1536": "0.041", "1536x1024": "0.041" },
  high: { "1024x1024": "0.211", "1024x1536": "0.165", "1536x1024": "0.165" },
};

test("every cell of the reference cost table, to three decimals, at the seeded price", () => {
  const price = DEFAULT_PRICES[IMAGE_MODEL]!.imageOutput;
  for (const [quality, row] of Object.entries(TABLE) as [ImageQuality, Record<string, string>][]) {
    for (const [size, expected] of Object.entries(row)) {
      const [width, height] = size.split("x").map(Number) as [number, number];
      const usd = costMicros(imageOutputTokens(width, height, quality), price) / 1_000_000;
      assert.equal(usd.toFixed(3), expected, `${quality} ${size}: ${usd}`);
    }
  }
});

test("1024x1024 low is the spec's observed 196 image tokens, and portrait and landscape cost the same", () => {
  assert.equal(imageOutputTokens(1024, 1024, "low"), 196);
  for (const quality of ["low", "medium", "high"] as const)
    assert.equal(imageOutputTokens(1024, 1536, quality), imageOutputTokens(1536, 1024, quality));
});
