// Output size rules of the image model (docs/api.md §8), shared by the API handlers and the browser playground.
// Pure on purpose: no node imports, so the playground can validate a size as the user types it.
import { GatewayError } from "@/lib/platform/errors";

export const MAX_LONG_SIDE = 3840;
export const SIDE_MULTIPLE = 16;
export const MAX_ASPECT_RATIO = 3;
export const MIN_PIXELS = 655_360;
export const MAX_PIXELS = 8_294_400;
/** Outputs with more pixels than 2560x1440 are marked experimental by the spec. */
export const EXPERIMENTAL_ABOVE_PIXELS = 3_686_400;
/** What `auto` (or no size at all) renders at. */
export const AUTO_SIZE = { width: 1024, height: 1024 } as const;
export const COMMON_SIZES = ["1024x1024", "1536x1024", "1024x1536", "2048x2048", "2048x1152", "3840x2160", "2160x3840", "auto"] as const;

export type CommonSize = (typeof COMMON_SIZES)[number];

export interface ImageSize {
  width: number;
  height: number;
  auto: boolean;
}

export type SizeCheck = ({ ok: true; experimental: boolean } & ImageSize) | { ok: false; message: string };

const SIZE_PATTERN = /^(\d+)[xX](\d+)$/;

function quote(size: string): string {
  // The size is echoed back to the client; a pasted novel should not come back whole.
  return size.length > 32 ? `'${size.slice(0, 32)}…'` : `'${size}'`;
}

function formatPixels(value: number): string {
  // Fixed grouping rather than toLocaleString: the message must not depend on the browser's locale.
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Validates a size string without throwing, for live form validation. Rules are checked in the spec's order. */
export function checkImageSize(size: string): SizeCheck {
  if (size === "auto") return { ok: true, ...AUTO_SIZE, auto: true, experimental: false };
  const match = SIZE_PATTERN.exec(size);
  if (!match) return { ok: false, message: `Invalid size ${quote(size)}: use 'auto' or WIDTHxHEIGHT in pixels, e.g. 1024x1024.` };
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width === 0 || height === 0) return { ok: false, message: `Invalid size ${quote(size)}: width and height must be greater than 0.` };

  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (long > MAX_LONG_SIDE) {
    return { ok: false, message: `Invalid size ${quote(size)}: the longest side must be at most ${MAX_LONG_SIDE} px (got ${long}).` };
  }
  if (width % SIDE_MULTIPLE !== 0 || height % SIDE_MULTIPLE !== 0) {
    return { ok: false, message: `Invalid size ${quote(size)}: width and height must both be multiples of ${SIDE_MULTIPLE} px.` };
  }
  if (long > short * MAX_ASPECT_RATIO) {
    return {
      ok: false,
      message: `Invalid size ${quote(size)}: the long side may be at most ${MAX_ASPECT_RATIO} times the short side (3:1).`,
    };
  }
  const pixels = width * height;
  if (pixels < MIN_PIXELS) {
    return {
      ok: false,
      message: `Invalid size ${quote(size)}: total pixels must be at least ${formatPixels(MIN_PIXELS)} (got ${formatPixels(pixels)}).`,
    };
  }
  if (pixels > MAX_PIXELS) {
    return {
      ok: false,
      message: `Invalid size ${quote(size)}: total pixels must be at most ${formatPixels(MAX_PIXELS)} (got ${formatPixels(pixels)}).`,
    };
  }
  return { ok: true, width, height, auto: false, experimental: pixels > EXPERIMENTAL_ABOVE_PIXELS };
}

/**
 * The request's `size` field as pixels. Missing or null means the spec's default, `auto`.
 * Throws GatewayError(invalid_request, param "size") with the first rule the size breaks.
 */
export function parseImageSize(size: unknown): ImageSize {
  if (size === undefined || size === null) return { ...AUTO_SIZE, auto: true };
  if (typeof size !== "string")
    throw new GatewayError("invalid_request", "Invalid size: expected a string such as 'auto' or '1024x1024'.", { param: "size" });
  const check = checkImageSize(size);
  if (!check.ok) throw new GatewayError("invalid_request", check.message, { param: "size" });
  return { width: check.width, height: check.height, auto: check.auto };
}
