// The portal's money formats (lib/portal/money-format.ts, docs/decisions/0030-amounts.md): prices with at least two
// decimals and no trailing zeros, amounts in cents or down to the micro-dollar under a cent, changes signed with a
// true minus sign.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatAmount, formatChange, formatCost, formatPrice, formatPriceMicros, MINUS } from "@/lib/portal/money-format";

test("prices: every digit down to the micro-dollar, trailing zeros trimmed, at least two decimals", () => {
  assert.equal(formatPrice(2.5), "$2.50");
  assert.equal(formatPrice(0.15), "$0.15");
  assert.equal(formatPrice(0.075), "$0.075");
  assert.equal(formatPrice(0), "$0.00");
  assert.equal(formatPrice(1000), "$1,000.00");
  assert.equal(formatPriceMicros(10_000), "$0.01", "a tool's price per use, not $0.010000");
  assert.equal(formatPriceMicros(41_160), "$0.04116");
  assert.equal(formatPriceMicros(417), "$0.000417");
  assert.equal(formatPrice(Number.NaN), "—");
});

test("amounts: cents, or the digits down to the micro-dollar under a cent; negatives with a minus sign", () => {
  assert.equal(formatAmount(12_340_000), "$12.34");
  assert.equal(formatAmount(5_000_000), "$5.00");
  assert.equal(formatAmount(6_100), "$0.0061");
  assert.equal(formatAmount(1), "$0.000001");
  assert.equal(formatAmount(0), "$0.00");
  assert.equal(formatAmount(-130_000), `${MINUS}$0.13`);
});

test("changes: credits with a plus, charges with a minus (U+2212), the ledger's cost from the person's side", () => {
  assert.equal(formatChange(5_000_000), "+$5.00");
  assert.equal(formatChange(-130_000), "\u2212$0.13");
  assert.equal(formatChange(0), "$0.00");
  assert.equal(formatCost(130_000), "\u2212$0.13", "a charge");
  assert.equal(formatCost(-5_000_000), "+$5.00", "a top-up");
  assert.ok(!formatCost(130_000).includes("-"), "never a hyphen");
});

test("the older helpers of lib/portal/format.ts write a negative amount with the same true minus, never a hyphen", async () => {
  const { usd, usdExact, usdPrecise, usdSummary } = await import("@/lib/portal/format");
  assert.equal(usd(-130_000), "\u2212$0.13");
  assert.equal(usd(-6_100), "\u2212$0.0061");
  assert.equal(usdExact(-1_500_000), "\u2212$1.50");
  assert.equal(usdPrecise(-6_144), "\u2212$0.006144");
  assert.equal(usdSummary(-47_000), "\u2212$0.0470");
  assert.equal(usd(130_000), "$0.13");
});
