// The request of the two image endpoints (docs/api.md §2.1, §2.2): fields, defaults and allowed values, checked the same
// way whether they arrive as JSON (generations) or as multipart text fields (edits). Pure: no database, no files,
// so every rule is unit-tested on its own (tests/unit/image-request.test.ts).
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { zodError } from "@/lib/platform/http/json";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { parseImageSize, type ImageSize } from "@/lib/images/size";
import type { ImageFormat } from "@/lib/images/inspect";

export const QUALITIES = ["low", "medium", "high", "auto"] as const;
export const OUTPUT_FORMATS = ["png", "jpeg", "webp"] as const;
export const RESPONSE_FORMATS = ["b64_json", "url"] as const;
export const MODERATION_LEVELS = ["auto", "low"] as const;
export const BACKGROUNDS = ["auto", "opaque", "transparent"] as const;
export const INPUT_FIDELITIES = ["low", "high"] as const;

export type RequestedQuality = (typeof QUALITIES)[number];
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
export type ModerationLevel = (typeof MODERATION_LEVELS)[number];

/** The image model's own limit on prompt length (characters). */
export const MAX_PROMPT_CHARACTERS = 32_000;
/** Each uploaded file (docs/api.md §2.2 mask rule 3, §8). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** Input images per edit; the mask comes on top. */
export const MAX_EDIT_IMAGES = 16;
/**
 * Pixels per input image (8192x8192). Not in the spec: a 50 MB PNG of one colour can declare hundreds of megapixels,
 * and decoding such a "decompression bomb" would take gigabytes of memory.
 */
export const MAX_INPUT_PIXELS = 8192 * 8192;

/** The models these endpoints serve (docs/api.md §2.1: fixed to std-image-2). */
export const IMAGE_MODELS: ReadonlySet<string> = new Set([IMAGE_MODEL]);

export type ImageOptions = {
  model: string;
  prompt: string;
  size: ImageSize;
  quality: RequestedQuality;
  outputFormat: ImageFormat;
  /** Only kept for jpeg and webp: the spec says it takes effect only there. */
  outputCompression: number | undefined;
  responseFormat: ResponseFormat;
  moderation: ModerationLevel;
  /**
   * The fields an OpenAI-compatible upstream receives, as the client sent them (validated, normalised): only known
   * fields, so a body can never smuggle `base_url`, `api_base` or anything else through (SECURITY.md: bodies cannot redirect the upstream).
   * `model` is added per channel (mapped); `n` and `response_format` are the gateway's business, never forwarded.
   */
  upstreamFields: Record<string, string | number>;
};

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  return `${typeof value} ${String(value)}`;
}

function choice<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => `must be one of ${values.map((value) => `'${value}'`).join(", ")}; got ${describe(issue.input)}`,
  });
}

/** The JSON body of a generation, and the text fields of an edit (also feeds the OpenAPI document). */
export const imageRequestSchema = z.object({
  model: z.string({ error: (issue) => `must be a string such as '${IMAGE_MODEL}'; got ${describe(issue.input)}` }).nullish(),
  prompt: z
    .string({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? "is required: describe the image to generate"
          : `must be a string; got ${describe(issue.input)}`,
    })
    .refine((value) => value.trim() !== "", { error: "must not be empty" })
    .refine((value) => value.length <= MAX_PROMPT_CHARACTERS, {
      error: `must be at most ${MAX_PROMPT_CHARACTERS.toLocaleString("en")} characters`,
    }),
  // Checked by parseImageSize, whose messages name the size rule that was broken.
  size: z.unknown().optional().meta({
    type: "string",
    description:
      "auto or WIDTHxHEIGHT: multiples of 16, longest side at most 3840, long:short at most 3:1, 655,360 to 8,294,400 pixels; above 2560x1440 is experimental",
  }),
  quality: choice(QUALITIES).nullish(),
  output_format: choice(OUTPUT_FORMATS).nullish(),
  output_compression: z
    .number({ error: (issue) => `must be a whole number from 0 to 100; got ${describe(issue.input)}` })
    .int({ error: (issue) => `must be a whole number from 0 to 100; got ${describe(issue.input)}` })
    .min(0, { error: (issue) => `must be from 0 to 100; got ${describe(issue.input)}` })
    .max(100, { error: (issue) => `must be from 0 to 100; got ${describe(issue.input)}` })
    .nullish(),
  response_format: choice(RESPONSE_FORMATS).nullish(),
  moderation: choice(MODERATION_LEVELS).nullish(),
  background: choice(BACKGROUNDS).nullish(),
  // Accepted for compatibility and ignored: every input image is processed at high fidelity (docs/api.md §2.1).
  input_fidelity: choice(INPUT_FIDELITIES).nullish(),
  stream: z.boolean({ error: (issue) => `must be true or false; got ${describe(issue.input)}` }).nullish(),
  user: z
    .string({ error: (issue) => `must be a string; got ${describe(issue.input)}` })
    .max(256, { error: "must be at most 256 characters" })
    .nullish(),
  // n is silently ignored (docs/api.md §2.1): exactly one image is returned whatever it says, so it is not checked either.
});

/**
 * The options of a generation (JSON body) or an edit (text fields of the form, see `fromFormFields`). Unknown fields
 * are ignored and never forwarded. Throws GatewayError(invalid_request) naming the field and the rule.
 */
export function parseImageOptions(raw: Record<string, unknown>): ImageOptions {
  const result = imageRequestSchema.safeParse(raw);
  if (!result.success) throw zodError(result.error);
  const body = result.data;

  const model = body.model ?? IMAGE_MODEL;
  if (!IMAGE_MODELS.has(model)) {
    throw new GatewayError(
      "invalid_request",
      `Invalid 'model': '${model.slice(0, 100)}' is not an image model; the image API serves ${[...IMAGE_MODELS].map((name) => `'${name}'`).join(", ")}`,
      { param: "model" },
    );
  }
  if (body.background === "transparent") {
    throw new GatewayError(
      "invalid_request",
      "Invalid 'background': 'transparent' is not supported; this model cannot produce transparent backgrounds. Use 'opaque' or 'auto', or leave the field out.",
      { param: "background" },
    );
  }
  if (body.stream === true) {
    throw new GatewayError(
      "invalid_request",
      "Invalid 'stream': streaming is not available on the image API; leave 'stream' out or set it to false (the Responses API streams images)",
      { param: "stream" },
    );
  }
  const size = parseImageSize(body.size);
  const quality = body.quality ?? "auto";
  const outputFormat = body.output_format ?? "png";
  const outputCompression = outputFormat === "png" ? undefined : (body.output_compression ?? undefined);

  const upstreamFields: Record<string, string | number> = { prompt: body.prompt };
  // Normalised ("1024X1024" is sent as "1024x1024"), so the upstream sees the size the gateway validated and bills.
  if (typeof body.size === "string") upstreamFields.size = size.auto ? "auto" : `${size.width}x${size.height}`;
  if (body.quality) upstreamFields.quality = body.quality;
  if (body.output_format) upstreamFields.output_format = body.output_format;
  if (outputCompression !== undefined) upstreamFields.output_compression = outputCompression;
  if (body.moderation) upstreamFields.moderation = body.moderation;
  if (body.background) upstreamFields.background = body.background;
  if (body.user) upstreamFields.user = body.user;

  return {
    model,
    prompt: body.prompt,
    size,
    quality,
    outputFormat,
    outputCompression,
    responseFormat: body.response_format ?? "b64_json",
    moderation: body.moderation ?? "auto",
    upstreamFields,
  };
}

const NUMERIC_FIELDS = new Set(["output_compression", "n"]);
const BOOLEAN_FIELDS = new Set(["stream"]);

/**
 * Multipart text fields as the values JSON would carry: whole numbers for the numeric fields, true/false for the
 * boolean ones. Anything else stays a string, so `output_compression=abc` fails the same check as in JSON.
 */
export function fromFormFields(fields: Record<string, string>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const text = value.trim();
    if (NUMERIC_FIELDS.has(name) && /^-?\d+(\.\d+)?$/.test(text)) raw[name] = Number(text);
    else if (BOOLEAN_FIELDS.has(name) && (text === "true" || text === "false")) raw[name] = text === "true";
    else raw[name] = value;
  }
  return raw;
}

/** Fields that would make the gateway fetch something or read an image from text: refused (SECURITY.md: no caller-supplied URL is fetched). */
const URL_LIKE_FIELDS = ["image", "image[]", "images", "images[]", "image_url", "mask", "mask_url", "file_id"];

export type EditFile = { field: string; filename: string; contentType: string; path: string; size: number };

/**
 * Which uploaded files are the images and which is the mask (docs/api.md §2.2): `image[]` (or `image`) files in the order
 * sent, at most one `mask`. Text fields carrying an image or a URL are refused: the gateway fetches no caller URL.
 */
export function sortEditFiles<T extends EditFile>(fields: Record<string, string>, files: T[]): { images: T[]; mask: T | undefined } {
  for (const name of Object.keys(fields)) {
    if (URL_LIKE_FIELDS.includes(name) || /^image\[\d*\]$/.test(name)) {
      throw new GatewayError(
        "invalid_request",
        `Invalid '${name}': images must be uploaded as files in the multipart form ('image[]' and 'mask'); the gateway does not fetch image URLs or read images from text fields`,
        { param: name },
      );
    }
  }
  const images: T[] = [];
  let mask: T | undefined;
  for (const file of files) {
    if (file.field === "image[]" || file.field === "image") images.push(file);
    else if (file.field === "mask") {
      if (mask) throw new GatewayError("invalid_request", "Invalid 'mask': send at most one mask file", { param: "mask" });
      mask = file;
    } else {
      throw new GatewayError(
        "invalid_request",
        `Unexpected file in the field '${file.field.slice(0, 100)}': send the images as 'image[]' (or 'image') and the mask as 'mask'`,
        { param: file.field },
      );
    }
  }
  if (images.length === 0)
    throw new GatewayError("invalid_request", "Missing 'image[]': upload at least one image file to edit", { param: "image[]" });
  if (images.length > MAX_EDIT_IMAGES) {
    throw new GatewayError("invalid_request", `Too many images in 'image[]': at most ${MAX_EDIT_IMAGES}, got ${images.length}`, {
      param: "image[]",
    });
  }
  return { images, mask };
}

/**
 * What `size: auto` means for an edit: the common size closest to the first image's shape (square, landscape
 * 1536x1024 or portrait 1024x1536), so an edit keeps its subject's orientation. Generations use 1024x1024.
 */
export function autoEditSize(width: number, height: number): { width: number; height: number } {
  const aspect = width / height;
  if (aspect >= 1.25) return { width: 1536, height: 1024 };
  if (aspect <= 0.8) return { width: 1024, height: 1536 };
  return { width: 1024, height: 1024 };
}
