// /v1/images/generations (JSON) and /v1/images/edits (multipart): validate (docs/api.md §2.1, §2.2, §8), filter the prompt
// (content policy), authorise the model, reserve the upper bound, relay through the channels, settle to the usage
// the upstream reported (one ledger row with the text / image-input / image-output breakdown), answer per §2.3.
// Bad input is refused before the reservation, so it never costs anything.
import { GatewayError } from "@/lib/platform/errors";
import { readJsonObjectWatched } from "@/lib/platform/http/watched-body";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { parseMultipart, type UploadedFile } from "@/lib/platform/http/multipart";
import { lingeringBody } from "@/lib/platform/http/linger";
import { DirectResponse, type BodyPart } from "@/lib/platform/http/direct-body";
import { costOf, type Price } from "@/lib/money/prices";
import { newCountStats } from "@/lib/money/tokens";
import { textInputBound } from "@/lib/money/reservation";
import { AUTO_SIZE, EXPERIMENTAL_ABOVE_PIXELS } from "@/lib/images/size";
import { infoFromHead, inspectImage, validateMask, type ImageInfo } from "@/lib/images/inspect";
import { readImageHead, type HeadResult } from "@/lib/images/head";
import { costMicros, imageCostBreakdown } from "@/lib/money/image-tokens";
import { imageUsage, imageUsageUpperBound, type ImageUsage } from "@/lib/money/image-usage";
import { checkPrompt } from "@/lib/moderation/store";
import { authoriseModel, gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { requireFundsBeforeBody, requirePrice, reserve } from "@/lib/money/reserve";
import { withFailover } from "@/lib/gateway/relay";
import { channelsFor, upstreamModel, type Channel } from "@/lib/channels";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import {
  autoEditSize,
  fromFormFields,
  MAX_EDIT_IMAGES,
  MAX_INPUT_PIXELS,
  MAX_UPLOAD_BYTES,
  parseImageOptions,
  sortEditFiles,
  type ImageOptions,
} from "@/lib/wire/image-request";
import type { ImageCall, ImageDetails, ImageUpload, LiveEdit } from "@/lib/providers/image-types";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { providerOf } from "@/lib/providers";

/** A generation body holds a prompt and a few options; 1 MB is far more than any of them needs. */
export const GENERATION_BODY_LIMIT = 1024 * 1024;

type Kind = "generate" | "edit";

/** Micro-USD per part of the usage, each rounded on its own, for the ledger row's detail. */
function partCosts(usage: ImageUsage, price: Price) {
  const image = imageCostBreakdown(usage, price);
  const textOutput = costMicros(usage.textOutputTokens, price.textOutput);
  return textOutput ? { ...image, textOutput, total: image.total + textOutput } : image;
}

/** Stands for the image in the serialised answer, which is then written around it (the image is not copied). */
const IMAGE_DATA = "\u0001image-data\u0001";
/** The marker as JSON.stringify writes it inside a string. */
const IMAGE_DATA_JSON = JSON.stringify(IMAGE_DATA).slice(1, -1);

/** The body of §2.3: exactly one image, as base64 or as a data URI; plus what was made and what it used. */
function imagesResponse(image: { created: number; format: string }, details: ImageDetails, options: ImageOptions, b64: string) {
  const item = options.responseFormat === "url" ? { url: `data:image/${image.format};base64,${b64}` } : { b64_json: b64 };
  const { textInputTokens, imageInputTokens, textOutputTokens, imageOutputTokens } = details.usage;
  return {
    created: image.created,
    data: [{ ...item, ...(details.revisedPrompt ? { revised_prompt: details.revisedPrompt } : {}) }],
    background: details.background,
    output_format: image.format,
    quality: details.quality,
    size: details.size,
    usage: {
      input_tokens: textInputTokens + imageInputTokens,
      input_tokens_details: { text_tokens: textInputTokens, image_tokens: imageInputTokens },
      output_tokens: imageOutputTokens + textOutputTokens,
      output_tokens_details: { image_tokens: imageOutputTokens, text_tokens: textOutputTokens },
      total_tokens: textInputTokens + imageInputTokens + imageOutputTokens + textOutputTokens,
    },
  };
}

/** The answer's JSON before and after the image (the image is written between them as the upstream sent it). */
function aroundImage(image: { created: number; format: string }, details: ImageDetails, options: ImageOptions): [string, string] {
  const text = JSON.stringify(imagesResponse(image, details, options, IMAGE_DATA));
  const marker = text.indexOf(IMAGE_DATA_JSON);
  return [text.slice(0, marker), text.slice(marker + IMAGE_DATA_JSON.length)];
}

async function serveImage(
  context: GatewayContext,
  kind: Kind,
  options: ImageOptions,
  images: ImageUpload[],
  mask: ImageUpload | undefined,
  live?: LiveUpload,
): Promise<Response> {
  const model = options.model;
  await authoriseModel(context.principal, model);
  // Refused prompts go no further: no reservation, no upstream call, nothing charged.
  await checkPrompt(options.prompt, options.moderation);
  const price = await requirePrice(model);

  const first = images[0]?.info;
  const { width, height } = !options.size.auto
    ? options.size
    : kind === "edit" && first
      ? autoEditSize(first.width, first.height)
      : AUTO_SIZE;
  const sizing = { prompt: options.prompt, width, height, quality: options.quality, inputs: images.map((image) => image.info) };
  const usage = imageUsage(sizing);
  // The prompt is reserved like any text input (docs/billing.md); the image tokens by the vendor's formula for the
  // size and quality the upstream receives (auto quality as high), edits' input images by their dimensions.
  const bound = imageUsageUpperBound(sizing);
  bound.textInputTokens = textInputBound(bound.textInputTokens, { bytes: Buffer.byteLength(options.prompt), items: 0 }, newCountStats());
  const reservation = await reserve(context, model, price, costOf(bound, price));

  try {
    const { channel, result } = await withFailover(
      context,
      model,
      reservation,
      (candidate) => {
        const call: ImageCall = {
          channel: candidate,
          publicModel: model,
          upstreamModel: upstreamModel(candidate, model, model),
          options,
          width,
          height,
          images,
          mask,
          usage,
          signal: context.request.signal,
          stream: true,
        };
        return candidate.id === live?.channel.id ? live.edit.finish(call) : providerOf(candidate.type).images[kind](call);
      },
      live?.candidates,
    );
    const settle = (details: ImageDetails, outcome: { status: "success" | "cancelled"; error?: string }) =>
      reservation.settle({
        usage: details.usage,
        channel: { id: channel.id, name: channel.name },
        status: outcome.status,
        httpStatus: 200,
        stream: false,
        ...(outcome.error ? { error: outcome.error } : {}),
        detail: {
          size: details.size,
          // Outputs above 2560x1440 are experimental (docs/api.md §8).
          ...(width * height > EXPERIMENTAL_ABOVE_PIXELS ? { experimental: true } : {}),
          quality: details.quality,
          outputFormat: result.format,
          responseFormat: options.responseFormat,
          moderation: options.moderation,
          ...(kind === "edit" ? { inputImages: images.length, mask: Boolean(mask) } : {}),
          usageSource: details.usageSource,
          // Each part priced on its own, so an operator can see what the image input and output cost.
          costs: partCosts(details.usage, price),
        },
      });
    if ("stream" in result) {
      // The image goes out as it arrives (its JSON head first, then the upstream's bytes, then the fields that follow
      // it, which hold the usage): no buffer of its size, and the first byte as soon as the upstream's first bytes.
      const { stream } = result;
      const gatewayCount: ImageDetails = {
        usage,
        usageSource: "gateway",
        size: `${width}x${height}`,
        quality: options.quality,
        background: "opaque",
      };
      const [head] = aroundImage(result, gatewayCount, options);
      async function* body(): AsyncGenerator<BodyPart> {
        let finished = false;
        try {
          yield head;
          for await (const chunk of stream.chunks) yield chunk;
          const details = stream.details();
          settle(details, { status: "success" });
          finished = true;
          yield aroundImage(result, details, options)[1];
        } finally {
          if (!finished) {
            if (context.request.signal.aborted) {
              // The client left while the image was on its way: the upstream made it and bills it, so it is charged
              // at the vendor's formula for its size and quality (docs/billing.md, "The invariant").
              settle(gatewayCount, { status: "cancelled", error: "The client closed the connection during the image" });
            } else {
              // The upstream's answer broke off inside the image: the client got no image, so nothing is charged.
              reservation.release({ status: "error", httpStatus: 502, error: "The upstream's answer was cut off inside the image" });
            }
          }
        }
      }
      return new DirectResponse([body()], { status: 200, headers: { "content-type": "application/json" } });
    }
    // The answer is serialised around a marker and written as [before, image, after]: the image goes out as the bytes
    // the upstream sent (at most twice its size in memory per image).
    const [before, after] = aroundImage(result, result, options);
    settle(result, { status: "success" });
    return new DirectResponse([before, result.b64, after], { status: 200, headers: { "content-type": "application/json" } });
  } catch (error) {
    // withFailover has released already when every channel failed; anything else must not keep the money.
    reservation.release({ error: error instanceof Error ? error.message : "failed" });
    throw error;
  }
}

export const imageGenerations = gatewayRoute(
  { endpoint: "/v1/images/generations", dialect: "openai", scheme: "bearer", operation: "image_generation" },
  async (context) => {
    // A body refused unread or for its size is drained briefly, so the client reads the answer (lib/platform/http/linger.ts).
    const body = lingeringBody(context.request);
    let raw: Record<string, unknown>;
    try {
      if (/^multipart\/form-data/i.test(context.request.headers.get("content-type") ?? "")) {
        throw new GatewayError(
          "invalid_request",
          "This endpoint takes a JSON body (Content-Type: application/json); to edit uploaded images, use POST /v1/images/edits",
        );
      }
      raw = await readJsonObjectWatched(body.request, GENERATION_BODY_LIMIT, paidBodyWatch(context));
    } finally {
      body.release();
    }
    return serveImage(context, "generate", parseImageOptions(raw), [], undefined);
  },
);

/** Which file a message is about: "'image[]' (image 2 of 3)" when several images were sent. */
function where(file: UploadedFile, index: number, total: number): string {
  return total > 1 && file.field !== "mask" ? `'${file.field}' (image ${index + 1} of ${total})` : `'${file.field}'`;
}

async function inspectUpload(file: UploadedFile, index: number, total: number, head: HeadResult | undefined): Promise<ImageUpload> {
  let info: ImageInfo;
  try {
    info = head ? infoFromHead(head, file.field) : await inspectImage(file.path, file.field);
  } catch (error) {
    if (error instanceof GatewayError)
      throw new GatewayError(error.code, error.message.replace(`'${file.field}'`, where(file, index, total)), { param: file.field });
    throw error;
  }
  if (info.width * info.height > MAX_INPUT_PIXELS) {
    throw new GatewayError(
      "invalid_request",
      `The image in ${where(file, index, total)} is ${info.width}x${info.height}: input images may have at most ${MAX_INPUT_PIXELS.toLocaleString("en")} pixels (8192x8192)`,
      { param: file.field },
    );
  }
  return { field: file.field, filename: file.filename, contentType: file.contentType, path: file.path, size: file.size, info };
}

/** An edit going upstream while it is uploaded: the channels in the order tried, the request open at the first, and
 *  whether each file is also kept on disk for the others. */
type LiveUpload = { candidates: Channel[]; channel: Channel; edit: LiveEdit; keepCopies: boolean; heads: Map<UploadedFile, HeadResult> };

/**
 * The edit sent to the first channel while the client uploads it (docs/decisions/0015-edits-sent-while-uploaded.md), or null to
 * store the upload first: when that channel's adapter needs the files (the simulator) or its settings say
 * `streamUploads: false`, or when the key may not use the model (refused as before). When another channel could take over after a failure, each file is also written to
 * a temporary file as it passes, for that channel.
 */
async function openLiveUpload(context: GatewayContext): Promise<LiveUpload | null> {
  let candidates: Channel[];
  try {
    await authoriseModel(context.principal, IMAGE_MODEL);
    candidates = await channelsFor(IMAGE_MODEL);
  } catch {
    return null;
  }
  const channel = candidates[0];
  // `settings.streamUploads: false`: an upstream that wants the body's length up front (no chunked request bodies).
  const open = channel && channel.settings.streamUploads !== false ? providerOf(channel.type).images.openEdit : undefined;
  if (!channel || !open) return null;
  const edit = open({ channel, upstreamModel: upstreamModel(channel, IMAGE_MODEL, IMAGE_MODEL), signal: context.request.signal });
  return { candidates, channel, edit, keepCopies: candidates.length > 1, heads: new Map() };
}

const EDIT_FILE_FIELDS: ReadonlySet<string> = new Set(["image[]", "image", "mask"]);

/** Writes to a temporary file, waiting when the disk is behind. */
function copyWriter(path: string): { write(chunk: Buffer): Promise<void>; close(): Promise<void> } {
  const file = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const failed = new Promise<never>((_, reject) => file.once("error", reject));
  failed.catch(() => undefined);
  return {
    write: (chunk) => (file.write(chunk) ? Promise.resolve() : Promise.race([once(file, "drain").then(() => undefined), failed])),
    close: () => Promise.race([new Promise<void>((resolve) => file.end(resolve)), failed]),
  };
}

/**
 * Where an uploaded file's bytes go in a live edit: its header is read from the first bytes (format, size, alpha),
 * then it is written upstream as it arrives, files one after another in the order sent (and to its temporary file
 * when other channels may need it). A file that is no image, or in a field an edit does not take, is read and dropped
 * and the upstream request abandoned: the upload is refused once it has been read, with the same message as from disk.
 */
function liveSink(live: LiveUpload): (file: UploadedFile, stream: Readable) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  return async (file, stream) => {
    const copy = live.keepCopies && file.path ? copyWriter(file.path) : null;
    const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let head: Buffer = Buffer.alloc(0);
    let result: HeadResult = { more: true };
    let done = false;
    let size = 0;
    try {
      while ("more" in result) {
        const next = await iterator.next();
        if (next.done) done = true;
        else {
          head = head.length ? Buffer.concat([head, next.value]) : next.value;
          await copy?.write(next.value);
        }
        result = readImageHead(head, done);
      }
      live.heads.set(file, result);
      size = head.length;
      async function* rest(): AsyncGenerator<Buffer> {
        while (!done) {
          const next = await iterator.next();
          if (next.done) return;
          size += next.value.length;
          await copy?.write(next.value);
          yield next.value;
        }
      }
      if (!("info" in result) || !EDIT_FILE_FIELDS.has(file.field)) {
        live.edit.abort();
        for await (const _chunk of rest());
      } else {
        const part = { field: file.field, filename: file.filename, format: result.info.format };
        const sent = queue.then(() => live.edit.file(part, head, rest()));
        queue = sent.catch(() => undefined);
        await sent;
      }
      await copy?.close();
    } finally {
      file.size = size;
    }
  };
}

export const imageEdits = gatewayRoute(
  { endpoint: "/v1/images/edits", dialect: "openai", scheme: "bearer", operation: "image_edit" },
  async (context) => {
    // Every file is refused past 50 MB while it streams (SECURITY.md: uploads over 50 MB); the connection lingers briefly after a
    // refusal so that the client reads the 413 instead of a reset. The files go to the first channel as they arrive
    // (openLiveUpload), and also to temporary files when another channel may need them; a channel that renders from
    // files (the simulator) gets the upload stored first.
    const body = lingeringBody(context.request);
    let upload: Awaited<ReturnType<typeof parseMultipart>>;
    let live: LiveUpload | null = null;
    try {
      await requireFundsBeforeBody(context);
      if (/^application\/json/i.test(context.request.headers.get("content-type") ?? "")) {
        throw new GatewayError(
          "invalid_request",
          "This endpoint takes multipart/form-data with the images uploaded as files ('image[]', optional 'mask'); image URLs and file ids are not accepted",
        );
      }
      live = await openLiveUpload(context);
      upload = await parseMultipart(body.request, {
        maxFileBytes: MAX_UPLOAD_BYTES,
        maxFiles: MAX_EDIT_IMAGES + 1,
        ...(live ? { sink: liveSink(live), sinkKeepsCopies: live.keepCopies } : {}),
      });
    } catch (error) {
      live?.edit.abort();
      throw error;
    } finally {
      body.release();
    }
    try {
      const { images: files, mask: maskFile } = sortEditFiles(upload.fields, upload.files);
      const options = parseImageOptions(fromFormFields(upload.fields));
      const images: ImageUpload[] = [];
      for (const [index, file] of files.entries()) images.push(await inspectUpload(file, index, files.length, live?.heads.get(file)));
      const mask = maskFile ? await inspectUpload(maskFile, 0, 1, live?.heads.get(maskFile)) : undefined;
      if (mask) validateMask(images[0]!.info, mask.info);
      return await serveImage(context, "edit", options, images, mask, live ?? undefined);
    } finally {
      // Nothing is sent once the answer is being read; before that, the upstream's incomplete request is dropped.
      live?.edit.abort();
      await upload.cleanup();
    }
  },
);
