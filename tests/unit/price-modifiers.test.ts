// The price-modifier rules of docs/billing.md ("Price modifiers"), without a server: which values are standard,
// which need a price, how multipliers combine, and what a multiplied price leaves alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costOf, plainPrice, textReservation, type Price } from "@/lib/money/prices";
import { multipliedPrice, priceModifiersOf } from "@/lib/money/price-modifiers";
import { GatewayError } from "@/lib/platform/errors";

const base: Price = {
  ...plainPrice({ model: "msg-opus-4-6", textInput: 5, textOutput: 25, imageInput: 5, imageOutput: 0 }),
  cacheRead: 0.1,
  cacheWrite: 1.25,
  tier: { threshold: 200_000, textInput: 10, textOutput: 37.5 },
  toolPrices: { web_search: 10_000 },
};
const priced: Price = {
  ...base,
  modifiers: { "service_tier:priority": 2, "service_tier:flex": 0.5, "speed:fast": 6, "inference_geo:us": 1.1 },
};

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail("expected a refusal");
}

test("standard values, absent and null pass and change nothing, priced or not", () => {
  for (const body of [
    {},
    { service_tier: null },
    { service_tier: "auto" },
    { service_tier: "default" },
    { service_tier: "standard_only" },
    { speed: "standard" },
    { inference_geo: "global" },
  ]) {
    assert.deepEqual(priceModifiersOf(body, [], base, []), { applied: [], multiplier: 1 }, JSON.stringify(body));
  }
});

test("flex never costs more: unpriced it passes at the standard rate, priced it takes its discount", () => {
  assert.equal(priceModifiersOf({ service_tier: "flex" }, [], base, []).multiplier, 1);
  assert.equal(priceModifiersOf({ service_tier: "flex" }, [], priced, []).multiplier, 0.5);
});

test("a dearer value without a price is a 400 naming the field; any value a vendor adds later is dearer until priced", () => {
  for (const [body, param] of [
    [{ service_tier: "priority" }, "service_tier"],
    [{ service_tier: "scale" }, "service_tier"],
    [{ service_tier: "fast" }, "service_tier"],
    [{ speed: "fast" }, "speed"],
    [{ inference_geo: "us" }, "inference_geo"],
    [{ inference_geo: "eu" }, "inference_geo"],
  ] as const) {
    const error = refusal(() => priceModifiersOf(body, [], base, []));
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    assert.match(error.message, new RegExp(`not available for 'msg-opus-4-6'.*\\(${param}:`));
  }
  assert.equal(refusal(() => priceModifiersOf({ service_tier: "scale" }, [], priced, [])).param, "service_tier");
  assert.match(refusal(() => priceModifiersOf({ speed: 6 }, [], priced, [])).message, /Invalid 'speed': must be a string; got 6/);
});

test("priced modifiers multiply: fast mode with US-only inference is 6 x 1.1", () => {
  const result = priceModifiersOf({ speed: "fast", inference_geo: "us" }, [], priced, []);
  assert.deepEqual(
    result.applied.map((modifier) => [modifier.key, modifier.multiplier]),
    [
      ["speed:fast", 6],
      ["inference_geo:us", 1.1],
    ],
  );
  assert.equal(result.multiplier, 6 * 1.1);
});

test("an operator's field: any value but absent or null needs a price; field:value wins over the field's own price", () => {
  const names = ["lane", "anthropic-beta:premium-lane-2026-01-01"];
  assert.equal(priceModifiersOf({ lane: null }, [], base, names).multiplier, 1);
  for (const value of ["fast", 3, false, { a: 1 }, [1]]) {
    assert.equal(refusal(() => priceModifiersOf({ lane: value }, [], base, names)).param, "lane");
  }
  const withPrices: Price = { ...base, modifiers: { lane: 3, "lane:slow": 0.8, "anthropic-beta:premium-lane-2026-01-01": 1.5 } };
  assert.equal(priceModifiersOf({ lane: { a: 1 } }, [], withPrices, names).multiplier, 3);
  assert.equal(priceModifiersOf({ lane: "slow" }, [], withPrices, names).multiplier, 0.8);
  // A beta counts only when the request names it.
  assert.equal(priceModifiersOf({}, ["other-beta-2025-01-01"], base, names).multiplier, 1);
  const beta = refusal(() => priceModifiersOf({}, ["premium-lane-2026-01-01"], base, names));
  assert.equal(beta.param, "anthropic-beta");
  assert.equal(priceModifiersOf({}, ["premium-lane-2026-01-01"], withPrices, names).multiplier, 1.5);
  // A name on the price alone is not a modifier until the operator lists it: the field passes as any unknown field.
  assert.equal(priceModifiersOf({ lane: "fast" }, [], withPrices, []).multiplier, 1);
});

test("a multiplied price multiplies every token rate, the tier's too; caching multipliers and per-use tools stay", () => {
  const fast = multipliedPrice(base, 6);
  assert.deepEqual(
    [fast.textInput, fast.textOutput, fast.imageInput, fast.tier, fast.cacheRead, fast.cacheWrite, fast.toolPrices],
    [30, 150, 30, { threshold: 200_000, textInput: 60, textOutput: 225 }, 0.1, 1.25, { web_search: 10_000 }],
  );
  const usage = { textInputTokens: 1_000, textOutputTokens: 100, imageInputTokens: 0, imageOutputTokens: 0, cacheReadTokens: 10_000 };
  assert.equal(costOf(usage, fast), 6 * costOf(usage, base));
  assert.equal(
    textReservation(fast, { inputTokens: 1_000, outputTokens: 100, toolUses: { web_search: 1 } }),
    6 * (1_000 * 5 + 100 * 25) + 10_000,
  );
  assert.equal(multipliedPrice(base, 1), base);
});
