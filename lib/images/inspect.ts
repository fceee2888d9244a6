// Header-only checks of uploaded images (docs/api.md §2.2 mask rules) before anything is sent upstream.
import sharp, { type Metadata } from "sharp";
import { GatewayError } from "@/lib/platform/errors";
import type { HeadResult } from "./head";

export type ImageFormat = "png" | "jpeg" | "webp";

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  hasAlpha: boolean;
}

const SUPPORTED: ReadonlySet<string> = new Set(["png", "jpeg", "webp"]);

/**
 * Format, dimensions and alpha of an image file. sharp's metadata() reads the header only, so a 50 MB upload is not
 * decoded here. `field` names the form field in the error a client sees (e.g. "image[]" or "mask").
 */
export async function inspectImage(path: string, field = "image"): Promise<ImageInfo> {
  let metadata: Metadata;
  try {
    metadata = await sharp(path).metadata();
  } catch {
    throw new GatewayError("invalid_request", `The file in '${field}' is not a PNG, JPEG or WebP image.`, { param: field });
  }
  const format = metadata.format;
  if (!format || !SUPPORTED.has(format) || !metadata.width || !metadata.height) {
    const found = format ? ` (found ${format})` : "";
    throw new GatewayError("invalid_request", `The file in '${field}' must be a PNG, JPEG or WebP image${found}.`, { param: field });
  }
  return { format: format as ImageFormat, width: metadata.width, height: metadata.height, hasAlpha: metadata.hasAlpha };
}

/** The header read from an upload's first bytes (./head.ts) as inspectImage would report it, with the same refusals. */
export function infoFromHead(head: HeadResult, field = "image"): ImageInfo {
  if ("info" in head) return head.info;
  if ("invalid" in head && head.found) {
    throw new GatewayError("invalid_request", `The file in '${field}' must be a PNG, JPEG or WebP image (found ${head.found}).`, {
      param: field,
    });
  }
  throw new GatewayError("invalid_request", `The file in '${field}' is not a PNG, JPEG or WebP image.`, { param: field });
}

/** The mask rules of docs/api.md §2.2: same format and dimensions as the first image, and an alpha channel. */
export function validateMask(first: ImageInfo, mask: ImageInfo): void {
  if (mask.format !== first.format) {
    throw new GatewayError(
      "invalid_request",
      `The mask must have the same format as the first image: the image is ${first.format}, the mask is ${mask.format}.`,
      { param: "mask" },
    );
  }
  if (mask.width !== first.width || mask.height !== first.height) {
    throw new GatewayError(
      "invalid_request",
      `The mask must have the same dimensions as the first image: the image is ${first.width}x${first.height}, the mask is ${mask.width}x${mask.height}.`,
      { param: "mask" },
    );
  }
  if (!mask.hasAlpha) {
    throw new GatewayError(
      "invalid_request",
      "The mask must have an alpha channel: transparent areas mark where the image should be edited.",
      {
        param: "mask",
      },
    );
  }
}
