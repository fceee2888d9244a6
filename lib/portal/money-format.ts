// The portal's one way of writing money (docs/decisions/0030-amounts.md). The server counts integers of micro-USD
// (1 unit = $0.000001); prices per 1M units are USD numbers. The rules:
//   prices   (a rate per 1M tokens, per image, per use, per minute): every digit up to the micro-dollar, trailing
//            zeros trimmed, at least 2 decimals: "$2.50 / 1M tokens", "$0.01 per image", "$0.04116", "$0.000417"
//   amounts  (balances, totals, a request's cost): 2 decimals, or up to 6 when under a cent, trimmed: "$12.34",
//            "$0.0061"; a negative amount has a true minus sign: "−$0.13"
//   changes  (a ledger row, a top-up): always signed from the person's side, charges "−$0.13", credits "+$5.00"
// The minus is U+2212 (what typography and screen readers read as "minus"), never a hyphen.
export const MICROS_PER_USD = 1_000_000;
export const MINUS = "\u2212";

/** Digits of a non-negative number with up to `max` decimals, trailing zeros trimmed but at least `min` kept. */
function digits(value: number, min: number, max: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: min, maximumFractionDigits: max, useGrouping: true });
}

/** A price in USD (a rate per 1M tokens, characters or seconds): "$2.50", "$0.15", "$0.075", "$1,000.00". */
export function formatPrice(usd: number): string {
  if (!Number.isFinite(usd)) return "—";
  const sign = usd < 0 ? MINUS : "";
  return `${sign}$${digits(Math.abs(usd), 2, 6)}`;
}

/** A price held in micro-USD (per image, per use, per minute of audio): "$0.01", "$0.04116", "$0.000417". */
export function formatPriceMicros(micros: number): string {
  return formatPrice(micros / MICROS_PER_USD);
}

/** An amount in micro-USD: "$12.34"; under a cent, its digits down to the micro-dollar ("$0.0061"); "−$0.13". */
export function formatAmount(micros: number): string {
  if (!Number.isFinite(micros)) return "—";
  const usd = Math.abs(micros) / MICROS_PER_USD;
  const sign = micros < 0 ? MINUS : "";
  return `${sign}$${usd !== 0 && usd < 0.01 ? digits(usd, 2, 6) : digits(usd, 2, 2)}`;
}

/** A change of balance in micro-USD, signed: "+$5.00" (credit), "−$0.13" (charge), "$0.00". */
export function formatChange(deltaMicros: number): string {
  if (deltaMicros === 0) return formatAmount(0);
  return deltaMicros > 0 ? `+${formatAmount(deltaMicros)}` : formatAmount(deltaMicros);
}

/** A ledger row's `cost` (positive: charged; negative: credited) as the change it made: "−$0.13", "+$5.00". */
export function formatCost(costMicros: number): string {
  return formatChange(-costMicros);
}
