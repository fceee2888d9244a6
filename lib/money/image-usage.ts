// Token usage of one image request (docs/api.md §1 billing: input text + input images, edits only + output image), as the
// gateway computes it: the upper bound it reserves, what the simulator reports, and the fallback when an upstream
// reports nothing. Pure.
import { countTextTokens } from "./tokens";
import { imageInputTokens, imageOutputTokens, resolveQuality, type ImageQuality } from "./image-tokens";

/** Image output tokens of each progress image (`partial_images`), as the vendor bills them: 100 each
 *  (https://platform.openai.com/docs/guides/image-generation, "Streaming"). */
export const PARTIAL_IMAGE_TOKENS = 100;

export type ImageUsage = { textInputTokens: number; textOutputTokens: number; imageInputTokens: number; imageOutputTokens: number };

export type ImageUsageInput = {
  prompt: string;
  /** Output size in pixels. */
  width: number;
  height: number;
  quality: ImageQuality | "auto";
  /** Dimensions of the input images of an edit (the mask is not billed). */
  inputs?: readonly { width: number; height: number }[];
};

/** What the request uses, with `auto` quality resolved the way the simulator renders it (medium). */
export function imageUsage(input: ImageUsageInput): ImageUsage {
  return {
    textInputTokens: countTextTokens(input.prompt),
    textOutputTokens: 0,
    imageInputTokens: (input.inputs ?? []).reduce((total, image) => total + imageInputTokens(image.width, image.height), 0),
    imageOutputTokens: imageOutputTokens(input.width, input.height, resolveQuality(input.quality)),
  };
}

/**
 * The most the request can use, reserved before anything goes upstream: `auto` quality may turn out high on an
 * upstream, so it is reserved as high; the settlement refunds the difference.
 */
export function imageUsageUpperBound(input: ImageUsageInput): ImageUsage {
  return imageUsage({ ...input, quality: input.quality === "auto" ? "high" : input.quality });
}

/**
 * An image whose stream was cut after `previews` progress images and before the finished one: the vendor read its
 * prompt (and input images) and made those progress images, and bills them; the finished image was never made
 * (docs/billing.md, Responses).
 */
export function previewsUsage(image: ImageUsage, previews: number): ImageUsage {
  return {
    textInputTokens: image.textInputTokens,
    textOutputTokens: 0,
    imageInputTokens: image.imageInputTokens,
    imageOutputTokens: previews * PARTIAL_IMAGE_TOKENS,
  };
}

export function addImageUsage(items: readonly ImageUsage[]): ImageUsage {
  const total: ImageUsage = { textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 };
  for (const item of items) {
    total.textInputTokens += item.textInputTokens;
    total.textOutputTokens += item.textOutputTokens;
    total.imageInputTokens += item.imageInputTokens;
    total.imageOutputTokens += item.imageOutputTokens;
  }
  return total;
}
