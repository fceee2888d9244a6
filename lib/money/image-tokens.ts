// Image token counts and their price (docs/api.md §1 billing, §8 reference cost table).
// Pure, so the playground can show the same estimate the gateway will charge.

export type ImageQuality = "low" | "medium" | "high";

/** Output tokens of a 1024x1024 image per quality; 196 for low is the spec's observed value. */
export const OUTPUT_TOKENS_1024: Readonly<Record<ImageQuality, number>> = { low: 196, medium: 1656, high: 6594 };

/**
 * Non-square images cost less per pixel than their area alone suggests: the spec's reference table prices 1024x1536
 * at about 0.78x of 1024x1024, not 1.5x. (short/long)^1.61 on top of the area factor gives 0.781x, which reproduces
 * every cell of the table to the three decimals shown at the seeded $32/1M (tests/unit/image-cost-table.test.ts;
 * the window that fits all three qualities is 0.7796x to 0.7831x).
 */
const ASPECT_EXPONENT = 1.61;

/** Input images are always processed at high fidelity (docs/api.md §2.1), which adds a fixed amount per image. */
export const HIGH_FIDELITY_SURCHARGE = { square: 4160, other: 6240 } as const;
/** Below this long:short ratio an input counts as square for the surcharge. */
export const SQUARE_ASPECT_LIMIT = 1.25;

export function resolveQuality(quality: ImageQuality | "auto"): ImageQuality {
  // The simulator and the estimate must agree on what auto means; medium is the middle of the price range.
  return quality === "auto" ? "medium" : quality;
}

export function imageOutputTokens(width: number, height: number, quality: ImageQuality): number {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const area = (width * height) / (1024 * 1024);
  return Math.round(OUTPUT_TOKENS_1024[quality] * area * (short / long) ** ASPECT_EXPONENT);
}

/**
 * Tokens for one input image at high detail: fit within 2048x2048, then bring the shortest side down to 768,
 * count 512 px tiles (85 + 170 per tile), plus the high-fidelity surcharge. Images are only ever scaled down,
 * never up, as in the published vision pricing (a 512x512 input is one tile).
 */
export function imageInputTokens(width: number, height: number): number {
  let scaledWidth = width;
  let scaledHeight = height;
  const fit = Math.min(1, 2048 / Math.max(scaledWidth, scaledHeight));
  scaledWidth *= fit;
  scaledHeight *= fit;
  const shorten = Math.min(1, 768 / Math.min(scaledWidth, scaledHeight));
  // Rounded so float noise (768.0000001) cannot add a whole row of tiles.
  scaledWidth = Math.round(scaledWidth * shorten);
  scaledHeight = Math.round(scaledHeight * shorten);
  const tiles = Math.ceil(scaledWidth / 512) * Math.ceil(scaledHeight / 512);
  const aspect = Math.max(width, height) / Math.min(width, height);
  const surcharge = aspect < SQUARE_ASPECT_LIMIT ? HIGH_FIDELITY_SURCHARGE.square : HIGH_FIDELITY_SURCHARGE.other;
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
