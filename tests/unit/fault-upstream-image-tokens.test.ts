// The fault-injecting fake upstream (tests/helpers/fault-upstream.ts) bills images as the vendor does, by its own
// copy of the vendor's arithmetic (imageTokens), not the gateway's: checked here against the figures the vendor's
// side gives, so that the fake can check the gateway's reservation rather than mirror it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { imageTokens } from "../helpers/fault-upstream";

test("1024x1024 low is the 196 image tokens observed on the real service (docs/api.md §8)", () => {
  assert.equal(imageTokens(1024, 1024, "low"), 196);
});

test("at $30 per 1M image output tokens, every cell of the reference cost table to the three decimals shown", () => {
  const table = {
    low: { "1024x1024": "0.006", "1024x1536": "0.005", "1536x1024": "0.005" },
    medium: { "1024x1024": "0.053", "1024x1536": "0.041", "1536x1024": "0.041" },
    high: { "1024x1024": "0.211", "1024x1536": "0.165", "1536x1024": "0.165" },
  } as const;
  for (const [quality, row] of Object.entries(table) as [keyof typeof table, Record<string, string>][]) {
    for (const [size, usd] of Object.entries(row)) {
      const [width, height] = size.split("x").map(Number) as [number, number];
      assert.equal(((imageTokens(width, height, quality) * 30) / 1_000_000).toFixed(3), usd, `${quality} ${size}`);
    }
  }
});

test("the vendor's calculator's figures quoted in its developer forum, non-square sizes included", () => {
  assert.equal(imageTokens(1024, 1024, "high"), 7024);
  assert.equal(imageTokens(1536, 1024, "high"), 5488);
  assert.equal(imageTokens(1792, 1024, "high"), 5063);
  assert.equal(imageTokens(3584, 2048, "high"), 12329);
  // The soak's former size: far below a square's 196, and not in proportion to the area alone.
  assert.equal(imageTokens(1024, 640, "low"), 107);
});
