import { test } from "node:test";
import assert from "node:assert/strict";
import { GatewayError } from "@/lib/platform/errors";
import {
  COMMON_SIZES,
  EXPERIMENTAL_ABOVE_PIXELS,
  MAX_ASPECT_RATIO,
  MAX_LONG_SIDE,
  MAX_PIXELS,
  MIN_PIXELS,
  SIDE_MULTIPLE,
  checkImageSize,
  parseImageSize,
} from "@/lib/images/size";

test("limits match docs/api.md §8", () => {
  assert.equal(MAX_LONG_SIDE, 3840);
  assert.equal(SIDE_MULTIPLE, 16);
  assert.equal(MAX_ASPECT_RATIO, 3);
  assert.equal(MIN_PIXELS, 655_360);
  assert.equal(MAX_PIXELS, 8_294_400);
  assert.equal(EXPERIMENTAL_ABOVE_PIXELS, 2560 * 1440);
  assert.deepEqual([...COMMON_SIZES], ["1024x1024", "1536x1024", "1024x1536", "2048x2048", "2048x1152", "3840x2160", "2160x3840", "auto"]);
});

test("every common size is accepted", () => {
  for (const size of COMMON_SIZES) assert.equal(checkImageSize(size).ok, true, size);
});

test("auto and a missing size mean 1024x1024", () => {
  assert.deepEqual(parseImageSize("auto"), { width: 1024, height: 1024, auto: true });
  assert.deepEqual(parseImageSize(undefined), { width: 1024, height: 1024, auto: true });
  assert.deepEqual(parseImageSize(null), { width: 1024, height: 1024, auto: true });
  assert.deepEqual(checkImageSize("auto"), { ok: true, width: 1024, height: 1024, auto: true, experimental: false });
});

test("WxH in either case of x gives width and height", () => {
  assert.deepEqual(parseImageSize("1536x1024"), { width: 1536, height: 1024, auto: false });
  assert.deepEqual(parseImageSize("1024X1536"), { width: 1024, height: 1536, auto: false });
});

test("experimental only above 2560x1440 pixels", () => {
  const at = checkImageSize("2560x1440");
  assert.ok(at.ok && !at.experimental);
  const above = checkImageSize("2048x2048");
  assert.ok(above.ok && above.experimental);
  const largest = checkImageSize("3840x2160");
  assert.ok(largest.ok && largest.experimental);
  const small = checkImageSize("1024x1024");
  assert.ok(small.ok && !small.experimental);
});

function messageOf(size: string): string {
  const result = checkImageSize(size);
  assert.equal(result.ok, false, `${size} should be refused`);
  return (result as { message: string }).message;
}

// One row per rule; each size breaks that rule and only rules checked after it, so the order is pinned too.
const REFUSED: Array<[size: string, rule: RegExp]> = [
  ["big", /WIDTHxHEIGHT/],
  ["1024*1024", /WIDTHxHEIGHT/],
  [" 1024x1024", /WIDTHxHEIGHT/],
  ["1024x", /WIDTHxHEIGHT/],
  ["-1024x1024", /WIDTHxHEIGHT/],
  ["1024.5x1024", /WIDTHxHEIGHT/],
  ["0x1024", /greater than 0/],
  ["3856x1024", /longest side must be at most 3840 px \(got 3856\)/],
  // 4000x16 also breaks the multiple, ratio and pixel rules: the longest side is reported first.
  ["4001x17", /longest side/],
  ["1000x1024", /multiples of 16/],
  // Not a multiple of 16 and too few pixels: the multiple rule comes first.
  ["100x100", /multiples of 16/],
  ["3072x1008", /at most 3 times the short side/],
  // Ratio 3.2:1 and too few pixels: the ratio rule comes first.
  ["1024x320", /at most 3 times/],
  ["800x800", /at least 655,360 \(got 640,000\)/],
  ["3840x2176", /at most 8,294,400 \(got 8,355,840\)/],
];

for (const [size, rule] of REFUSED) {
  test(`refuses ${JSON.stringify(size)} naming the rule`, () => {
    assert.match(messageOf(size), rule);
    assert.throws(
      () => parseImageSize(size),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === "invalid_request" &&
        error.status === 400 &&
        error.param === "size" &&
        rule.test(error.message),
    );
  });
}

test("boundaries are inclusive", () => {
  assert.equal(checkImageSize("3072x1024").ok, true); // exactly 3:1
  assert.equal(checkImageSize("1024x640").ok, true); // exactly 655,360 pixels
  assert.equal(checkImageSize("3840x2160").ok, true); // exactly 8,294,400 pixels
  assert.equal(checkImageSize("1280x3840").ok, true); // longest side exactly 3840 at 3:1
});

test("a non-string size is refused with param size", () => {
  for (const value of [1024, { width: 1024 }, ["1024x1024"], true]) {
    assert.throws(
      () => parseImageSize(value),
      (error: unknown) => error instanceof GatewayError && error.code === "invalid_request" && error.param === "size",
    );
  }
});

test("a long invalid size is not echoed whole", () => {
  const message = messageOf("x".repeat(500));
  assert.ok(message.length < 200, message);
});
