import { test } from "node:test";
import assert from "node:assert/strict";
import { costMicros, imageCostBreakdown, imageInputTokens, imageOutputTokens, resolveQuality } from "@/lib/money/image-tokens";

test("1024x1024 output tokens: the observed 196 for low, the vendor calculator's 7,024 for high", () => {
  assert.equal(imageOutputTokens(1024, 1024, "low"), 196);
  assert.equal(imageOutputTokens(1024, 1024, "medium"), 1756);
  assert.equal(imageOutputTokens(1024, 1024, "high"), 7024);
});

test("output tokens follow the short side's share, not the area: wide images cost less than their area suggests", () => {
  assert.equal(imageOutputTokens(1536, 1024, "high"), imageOutputTokens(1024, 1536, "high"));
  assert.ok(imageOutputTokens(1536, 1024, "low") < imageOutputTokens(1024, 1024, "low"));
  // 2048x2048 has four times the area of 1024x1024 but costs about twice as much (the offset of 2M pixels).
  assert.equal(imageOutputTokens(2048, 2048, "medium"), 3568);
  assert.ok(imageOutputTokens(3840, 2160, "high") < imageOutputTokens(2048, 2048, "high"));
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
  // 4000x3000 → 2048x1536 → 1024x768 → 2x2 tiles.
  assert.equal(imageInputTokens(4000, 3000), 765 + 6240);
  // Only an exactly square image takes the square surcharge: the vendor does not say where square ends.
  assert.equal(imageInputTokens(1200, 1000), 85 + 170 * 4 + 6240);
  // A fitted side a fraction of a pixel over 512 counts as 513, a second row of tiles: 4099x1025 → 2048x512.1.
  assert.equal(imageInputTokens(4099, 1025), 85 + 170 * 4 * 2 + 6240);
});

/**
 * The one input rule the vendor documents for an image model (GPT Image 1's, which its gpt-image-2 guide points to):
 * fit within 2048x2048, shortest side down to 512, 65 + 129 per 512 px tile, plus 4,160 for a square image or 6,240
 * for one closer to portrait or landscape. Written here on its own, with the readings the vendor leaves open as
 * parameters: how a scaled side is rounded, and up to what long:short ratio an image counts as square.
 */
function documentedInputTokens(width: number, height: number, round: (pixels: number) => number, squareUpTo: number): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  const shorten = Math.min(1, 512 / (Math.min(width, height) * fit));
  const tiles = Math.ceil(round(width * fit * shorten) / 512) * Math.ceil(round(height * fit * shorten) / 512);
  const square = Math.max(width, height) / Math.min(width, height) <= squareUpTo;
  return 65 + 129 * tiles + (square ? 4160 : 6240);
}

test("input tokens are never fewer than the vendor's documented rule, however it rounds and wherever square ends", () => {
  const readings = [Math.floor, Math.round, Math.ceil].flatMap((round) => [1, 1.2, 1.25, 1.5].map((squareUpTo) => ({ round, squareUpTo })));
  let checked = 0;
  for (let width = 8; width <= 4600; width += 37)
    for (let height = 8; height <= 4600; height += 41)
      for (const { round, squareUpTo } of readings) {
        const documented = documentedInputTokens(width, height, round, squareUpTo);
        assert.ok(imageInputTokens(width, height) >= documented, `${width}x${height}: ${imageInputTokens(width, height)} < ${documented}`);
        checked++;
      }
  assert.ok(checked > 100_000);
});

test("costMicros: one token at $X per million is X micro-USD, rounded up", () => {
  assert.equal(costMicros(196, 30), 5880);
  assert.equal(costMicros(0, 30), 0);
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
    { textInputTokens: 50, imageInputTokens: 4925, imageOutputTokens: 1756 },
    { textInput: 5, imageInput: 8, imageOutput: 30 },
  );
  assert.deepEqual(breakdown, { textInput: 250, imageInput: 39_400, imageOutput: 52_680, total: 250 + 39_400 + 52_680 });
});
