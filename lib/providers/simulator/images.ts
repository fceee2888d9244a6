// `simulator` channels, image API: real images of the exact requested size, format and compression, rendered with
// sharp (lib/providers/simulator/render.ts), deterministic from the prompt; an edit is visibly derived from the first input image
// and the mask. Usage is the gateway's own count (lib/money/image-usage.ts): about 196 output tokens for a low 1024x1024.
import { log } from "@/lib/platform/log";
import { renderEdit, renderImage } from "./render";
import { resolveQuality } from "@/lib/money/image-tokens";
import type { ImageAdapter, ImageCall, ImageOutcome } from "@/lib/providers/image-types";

function success(call: ImageCall, image: Buffer): ImageOutcome {
  return {
    ok: true,
    b64: image.toString("base64"),
    format: call.options.outputFormat,
    usage: call.usage,
    usageSource: "gateway",
    created: Math.floor(Date.now() / 1000),
    size: `${call.width}x${call.height}`,
    quality: resolveQuality(call.options.quality),
    background: "opaque",
  };
}

export const simulatorImageAdapter: ImageAdapter = {
  async generate(call) {
    try {
      const image = await renderImage({
        prompt: call.options.prompt,
        width: call.width,
        height: call.height,
        format: call.options.outputFormat,
        compression: call.options.outputCompression,
        quality: resolveQuality(call.options.quality),
      });
      return success(call, image);
    } catch (error) {
      log.error("simulator could not render an image", { error, channel: call.channel.name });
      return { ok: false, retryable: true, status: 502, message: "The simulator could not render the image", cause: "simulator_render" };
    }
  },

  async edit(call) {
    try {
      const image = await renderEdit({
        prompt: call.options.prompt,
        images: call.images.map((upload) => upload.path),
        maskPath: call.mask?.path,
        width: call.width,
        height: call.height,
        format: call.options.outputFormat,
        compression: call.options.outputCompression,
      });
      return success(call, image);
    } catch (error) {
      // The headers were read before (lib/images/inspect.ts); a file that fails only now is damaged further in, as
      // a truncated upload would be. That is the caller's input, so a 400 that no other channel would change.
      log.warn("simulator could not decode an uploaded image", { error: (error as Error).message, channel: call.channel.name });
      return {
        ok: false,
        retryable: false,
        status: 400,
        message: "An uploaded image could not be decoded: its header is valid but the image data is damaged or truncated",
        cause: "undecodable_input",
      };
    }
  },
};
