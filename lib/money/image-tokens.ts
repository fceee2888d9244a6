// Image token counts and their price (docs/api.md §1 billing, §8 reference cost table).
// Pure, so the playground can show the same estimate the gateway will charge.

export type ImageQuality = "low" | "medium" | "high";

/**
 * The vendor's quality factor per axis (gpt-image-2). Output tokens are counted by the vendor's own arithmetic, not
 * fitted to a table: the vendor publishes no formula, only a calculator in its image generation guide
 * (https://developers.openai.com/api/docs/guides/image-generation#size-and-quality-options), whose arithmetic is
 * written out in the vendor's developer forum
 * (https://community.openai.com/t/gpt-image-2-output-pricing-calculator-online-and-in-your-code/1382699). It gives the
 * spec's observed 196 tokens for 1024x1024 low, the calculator's figures quoted on the forum (1024x1024 high 7,024,
 * 1536x1024 high 5,488, 1792x1024 high 5,063, 3584x2048 high 12,329) and, at the vendor's $30 per 1M image output
 * tokens, every cell of the spec's reference cost table (tests/unit/image-cost-table.test.ts, docs/billing.md).
 */
const QUALITY_AXIS: Readonly<Record<ImageQuality, bigint>> = { low: 16n, medium: 48n, high: 96n };
/** Pixels added to the image's area, and the area that makes one quality-axis unit of tokens. */
const AREA_OFFSET = 2_000_000n;
const AREA_SCALE = 4_000_000n;

/** Input images are always processed at high fidelity (docs/api.md §2.1), which adds a fixed amount per image. */
export const HIGH_FIDELITY_SURCHARGE = { square: 4160, other: 6240 } as const;

export function resolveQuality(quality: ImageQuality | "auto"): ImageQuality {
  // The simulator and the estimate must agree on what auto means; medium is the middle of the price range.
  return quality === "auto" ? "medium" : quality;
}

/**
 * Image output tokens of one `width` x `height` image at `quality`, as the vendor bills them: the quality factor q
 * along the long side and q·short/long along the short side, rounded to the nearest whole number
 * (floor((2·q·short + long) / (2·long))), their product times the area plus 2,000,000 pixels, over 4,000,000,
 * rounded up. In integers throughout (BigInt), so no size can round a bill down.
 */
export function imageOutputTokens(width: number, height: number, quality: ImageQuality): number {
  const axis = QUALITY_AXIS[quality];
  const long = BigInt(Math.max(width, height));
  const short = BigInt(Math.min(width, height));
  const shortAxis = (2n * axis * short + long) / (2n * long);
  const scaled = axis * shortAxis * (AREA_OFFSET + BigInt(width) * BigInt(height));
  return Number((scaled + AREA_SCALE - 1n) / AREA_SCALE);
}

/**
 * Tokens for one input image, an upper bound of the vendor's bill. The vendor documents nothing of its own for
 * gpt-image-2's inputs: its image generation guide says every input is processed at high fidelity and points to the
 * vision guide's cost section (https://developers.openai.com/api/docs/guides/images-vision#calculating-costs), whose
 * only rule for an image model is GPT Image 1's: shortest side scaled down to 512, 65 + 129 per 512 px tile, and at
 * high fidelity 4,160 more for a square image, 6,240 for one "closer to portrait or landscape". Counted here by the
 * same section's rule for gpt-4o, which never counts fewer tiles or tokens per tile than GPT Image 1's: fit within
 * 2048x2048, shortest side down to 768, 85 + 170 per tile, sides rounded up (no rounding of the vendor's can add a
 * row of tiles the count lacks); images are only scaled down, never up (a 512x512 input is one tile). The guide does
 * not say where square ends, so only an exactly square image takes the smaller surcharge.
 */
export function imageInputTokens(width: number, height: number): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  const shorten = Math.min(1, 768 / (Math.min(width, height) * fit));
  // Float noise (768.0000001) must not add a whole row of tiles; anything more than noise is a pixel more.
  const side = (pixels: number) => Math.ceil(pixels * fit * shorten - 1e-6);
  const tiles = Math.ceil(side(width) / 512) * Math.ceil(side(height) / 512);
  const surcharge = width === height ? HIGH_FIDELITY_SURCHARGE.square : HIGH_FIDELITY_SURCHARGE.other;
  return 85 + 170 * tiles + surcharge;
}

/**
 * Integer micro-USD for a token count at a USD-per-1M-tokens price: 1 token at $X/1M is exactly X micro-USD.
 * Rounded up so fractions are never given away, but after removing float noise: 100 × 1.1 is
 * 110.00000000000001 in binary floating point and must cost 110, not 111.
 */
export function costMicros(tokens: number, usdPerMillion: number): number {
  const exact = tokens * usdPerMillion;
  const nearest = Math.round(exact);
  if (Math.abs(exact - nearest) < 1e-6) return nearest;
  return Math.ceil(exact);
}

export interface ImageTokenUsage {
  textInputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
}

/** USD per 1M tokens; the same field names as the ModelPrice table. */
export interface ImagePrices {
  textInput: number;
  imageInput: number;
  imageOutput: number;
}

export interface ImageCostBreakdown {
  textInput: number;
  imageInput: number;
  imageOutput: number;
  total: number;
}

/** Cost in micro-USD per part and in total; each part is rounded on its own so the parts always add up to the total. */
export function imageCostBreakdown(usage: ImageTokenUsage, prices: ImagePrices): ImageCostBreakdown {
  const textInput = costMicros(usage.textInputTokens, prices.textInput);
  const imageInput = costMicros(usage.imageInputTokens, prices.imageInput);
  const imageOutput = costMicros(usage.imageOutputTokens, prices.imageOutput);
  return { textInput, imageInput, imageOutput, total: textInput + imageInput + imageOutput };
}
