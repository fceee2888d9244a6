// What an upstream adapter does for the image API (/v1/images/generations and /v1/images/edits). Each channel type
// has its own (lib/providers/<type>/), or shares lib/providers/images-api.ts with the others that speak OpenAI's.
import type { Channel } from "@/lib/channels";
import type { ImageOptions } from "@/lib/wire/image-request";
import type { ImageFormat, ImageInfo } from "@/lib/images/inspect";
import type { ImageUsage } from "@/lib/money/image-usage";
import type { UpstreamFailure } from "./types";

/** An uploaded file, already on disk and inspected (format, size, alpha). */
export type ImageUpload = { field: string; filename: string; contentType: string; path: string; size: number; info: ImageInfo };

export type ImageCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  options: ImageOptions;
  /** The output size in pixels: the requested one, or what `auto` means for this request. */
  width: number;
  height: number;
  /** Edits only: the images in the order sent (the first is the edit base) and the optional mask. */
  images: ImageUpload[];
  mask: ImageUpload | undefined;
  /** The gateway's own count, for an upstream that reports no usage. */
  usage: ImageUsage;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The caller can pass the image on as it arrives (/v1/images): an adapter may then answer with a `stream`. */
  stream?: boolean;
};

/** What an answer says besides the image. */
export type ImageDetails = {
  /** What to bill. */
  usage: ImageUsage;
  /** "upstream" when the upstream reported usage, "gateway" when the gateway computed it. */
  usageSource: "upstream" | "gateway";
  size: string;
  quality: string;
  background: string;
  revisedPrompt?: string;
};

export type ImageSuccess = ImageDetails & {
  ok: true;
  /** The image, base64-encoded, exactly as the upstream produced it: text, or the ASCII bytes of the upstream's
   *  answer (a slice of it, so a large image is not copied on its way through). */
  b64: string | Buffer;
  format: ImageFormat;
  created: number;
};

/**
 * An image passed on while the upstream sends it (only when the call asked for `stream`): a 3840x2160 PNG is ~33 MB
 * of base64, and reading it whole before the first byte went out cost ~330 ms and a buffer of its size per image.
 */
export type ImageStream = {
  /** The base64 text exactly as the upstream wrote it inside its JSON string (so valid inside ours), chunk by chunk.
   *  Throws when the upstream's answer is cut, too large or not what it started as. */
  chunks: AsyncIterable<Uint8Array>;
  /** The rest of the answer; call once `chunks` is done. Falls back to the gateway's own count when the upstream's
   *  usage is missing or unreadable (the image has been delivered by then). */
  details(): ImageDetails;
};

export type StreamedImageSuccess = { ok: true; stream: ImageStream; format: ImageFormat; created: number };

export type ImageOutcome = ImageSuccess | StreamedImageSuccess | UpstreamFailure;

/**
 * An edit sent upstream while the client is still uploading it (docs/decisions/0015-edits-sent-while-uploaded.md): each file part
 * goes on as it arrives; the text fields and the closing boundary only in `finish`, once the whole upload has been
 * checked and the reservation made. Until then the upstream holds an incomplete request it cannot act on (or bill),
 * and `abort` drops it.
 */
export interface LiveEdit {
  /** Sends one file part (the gateway's part header, `head`, then `rest`); resolves when every byte was taken. Once
   *  the upstream has failed or the edit was aborted, the bytes are read and dropped. */
  file(part: { field: string; filename: string; format: ImageFormat }, head: Buffer, rest: AsyncIterable<Buffer>): Promise<void>;
  /** Completes the request and reads the answer (as `edit` would); the failure seen instead, if the upstream failed
   *  while the upload was on its way. */
  finish(call: ImageCall): Promise<ImageOutcome>;
  /** Drops the request unless `finish` was called: the upstream never receives a complete body. */
  abort(): void;
}

export interface ImageAdapter {
  generate(call: ImageCall): Promise<ImageOutcome>;
  edit(call: ImageCall): Promise<ImageOutcome>;
  /** Opens an edit to be sent as it is uploaded (to the channel's mapping of the image model, `upstreamModel`);
   *  absent where the adapter needs the files first (the simulator). */
  openEdit?(target: { channel: Channel; upstreamModel: string; signal: AbortSignal }): LiveEdit;
}
