// The published figures of gpt-image-2's image output tokens, against which both copies of the vendor's arithmetic
// are checked: the gateway's (lib/money/image-tokens.ts, tests/unit/image-cost-table.test.ts) and the fake upstreams'
// (tests/helpers/fault-upstream.ts, tests/unit/fault-upstream-image-tokens.test.ts). Written out here, not computed.
export type Quality = "low" | "medium" | "high";

/** The vendor's list price for gpt-image-2's image output, USD per 1M tokens, at which the reference table holds. */
export const VENDOR_IMAGE_OUTPUT_PRICE = 30;

/** The spec's reference cost in USD per image (docs/api.md §8), the same table as the vendor's image generation guide. */
export const REFERENCE_COST: Record<Quality, Record<string, string>> = {
  low: { "1024x1024": "0.006", "1024x1536": "0.005", "1536x1024": "0.005" },
  medium: { "1024x1024": "0.053", "1024x1536": "0.041", "1536x1024": "0.041" },
  high: { "1024x1024": "0.211", "1024x1536": "0.165", "1536x1024": "0.165" },
};

/**
 * Token counts: the spec's observed 1024x1024 low; the vendor calculator's figures quoted in its developer forum
 * (https://community.openai.com/t/gpt-image-2-output-pricing-calculator-online-and-in-your-code/1382699); and two
 * billed counts posted there (https://community.openai.com/t/the-half-penny-gpt-image-2-challenge-api-only-gallery/1381388).
 */
export const PUBLISHED_TOKENS: { width: number; height: number; quality: Quality; tokens: number; source: string }[] = [
  { width: 1024, height: 1024, quality: "low", tokens: 196, source: "observed (docs/api.md §8)" },
  { width: 1024, height: 1024, quality: "high", tokens: 7024, source: "the vendor's calculator" },
  { width: 1536, height: 1024, quality: "high", tokens: 5488, source: "the vendor's calculator" },
  { width: 1792, height: 1024, quality: "high", tokens: 5063, source: "the vendor's calculator" },
  { width: 3584, height: 2048, quality: "high", tokens: 12329, source: "the vendor's calculator" },
  { width: 976, height: 704, quality: "low", tokens: 129, source: "billed, posted in the forum" },
  { width: 960, height: 720, quality: "low", tokens: 130, source: "billed, posted in the forum" },
];
