// The request of /v1/responses (docs/api.md §2.4, §7): which fields are required, which are refused and why, the input
// messages and their images, and the image_generation tool with the image API's rules (docs/api.md §8). Everything here runs
// before the reservation, so a bad request is a 400 that costs nothing. `parseResponsesRequest` is pure (unit-tested
// in tests/unit/responses-request.test.ts); `decodeInputImages` decodes the inline images with sharp.
import sharp from "sharp";
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { IMAGE_MODEL, TEXT_MODEL } from "@/lib/catalog/models";
import { checkImageSize, AUTO_SIZE, type ImageSize } from "@/lib/images/size";
import { observeImageDecode } from "@/lib/platform/metrics";
import type { ImageFormat, ImageInfo } from "@/lib/images/inspect";
import {
  MAX_INPUT_PIXELS,
  MAX_UPLOAD_BYTES,
  MODERATION_LEVELS,
  OUTPUT_FORMATS,
  QUALITIES,
  type ModerationLevel,
  type RequestedQuality,
} from "./image-request";

/** The text models this endpoint serves (docs/api.md §2.4). */
export const RESPONSES_MODELS: ReadonlySet<string> = new Set([TEXT_MODEL]);
export const IMAGE_ACTIONS = ["auto", "generate", "edit"] as const;
export type ImageAction = (typeof IMAGE_ACTIONS)[number];
/** Inline images per request, as many as the edit endpoint takes. */
export const MAX_INPUT_IMAGES = 16;
const ROLES = ["user", "assistant", "system", "developer"] as const;
type Role = (typeof ROLES)[number];
const IMAGE_MEDIA_TYPES: Record<string, ImageFormat> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/webp": "webp",
};

export type InputPart =
  | { type: "input_text"; text: string }
  | { type: "output_text"; text: string }
  | { type: "input_image"; image: number };
export type InputMessage = { role: Role; content: InputPart[] };

/** An inline image as sent: a base64 data URI, checked for shape here and decoded by `decodeInputImages`. */
export type InputImageUri = { param: string; uri: string; base64: string };
export type InputImage = { buffer: Buffer; info: ImageInfo; uri: string };

export type ImageTool = {
  quality: RequestedQuality;
  size: ImageSize;
  outputFormat: ImageFormat;
  /** Only kept for jpeg and webp (docs/api.md §2.1). */
  outputCompression: number | undefined;
  moderation: ModerationLevel;
  action: ImageAction;
  /**
   * The tool as the client set it, validated and normalised, for an upstream with native Responses support: only
   * known fields, never anything else the body carried (SECURITY.md: bodies cannot redirect the upstream). `model` is set per channel.
   */
  fields: Record<string, string | number>;
};

export type ResponsesRequest = {
  model: string;
  instructions: string;
  messages: InputMessage[];
  tool: ImageTool;
  images: InputImageUri[];
};

function invalid(message: string, param: string | null): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

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

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: (issue) => `must be a whole number from ${min} to ${max}; got ${describe(issue.input)}` })
    .int({ error: (issue) => `must be a whole number from ${min} to ${max}; got ${describe(issue.input)}` })
    .min(min, { error: (issue) => `must be from ${min} to ${max}; got ${describe(issue.input)}` })
    .max(max, { error: (issue) => `must be from ${min} to ${max}; got ${describe(issue.input)}` });

/** The image_generation tool (docs/api.md §2.4). Unknown fields are dropped, never forwarded. */
export const imageToolSchema = z.object({
  type: z.literal("image_generation"),
  model: z.string({ error: (issue) => `must be a string such as '${IMAGE_MODEL}'; got ${describe(issue.input)}` }).nullish(),
  quality: choice(QUALITIES).nullish(),
  // Checked by checkImageSize, whose messages name the size rule that was broken.
  size: z.unknown().optional(),
  output_format: choice(OUTPUT_FORMATS).nullish(),
  output_compression: wholeNumber(0, 100).nullish(),
  moderation: choice(MODERATION_LEVELS).nullish(),
  action: choice(IMAGE_ACTIONS).nullish(),
  background: choice(["auto", "opaque", "transparent"]).nullish(),
  // Spec §2.4: "untested". Accepted and passed to a native upstream; the gateway's own stream always sends the
  // finished image as one partial_image event, which is what clients of this service read.
  partial_images: wholeNumber(0, 3).nullish(),
  // Every input image is processed at high fidelity (docs/api.md §2.1): accepted and ignored.
  input_fidelity: choice(["low", "high"]).nullish(),
  input_image_mask: z.unknown().optional(),
});

function parseTool(raw: unknown, param: string): ImageTool {
  const result = imageToolSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = [param, ...issue.path.map(String)].join(".");
    throw invalid(`Invalid '${field}': ${issue.message}`, field);
  }
  const tool = result.data;
  if (tool.model && tool.model !== IMAGE_MODEL) {
    throw invalid(`Invalid '${param}.model': the image tool runs '${IMAGE_MODEL}'; got ${describe(tool.model)}`, `${param}.model`);
  }
  if (tool.background === "transparent") {
    throw invalid(
      `Invalid '${param}.background': 'transparent' is not supported; this model cannot produce transparent backgrounds. Use 'opaque' or 'auto', or leave the field out.`,
      `${param}.background`,
    );
  }
  if (tool.input_image_mask !== undefined && tool.input_image_mask !== null) {
    throw invalid(
      `Invalid '${param}.input_image_mask': masks are not available on /v1/responses; use POST /v1/images/edits with a 'mask' file`,
      `${param}.input_image_mask`,
    );
  }
  let size: ImageSize = { ...AUTO_SIZE, auto: true };
  if (tool.size !== undefined && tool.size !== null) {
    if (typeof tool.size !== "string")
      throw invalid(`Invalid '${param}.size': must be a string such as 'auto' or '1024x1024'; got ${describe(tool.size)}`, `${param}.size`);
    const check = checkImageSize(tool.size);
    if (!check.ok) {
      // "Invalid size 'X': rule." from the image API's size rules, re-addressed to the tool's field.
      const rule = /^Invalid size ('.*'): (.*)$/s.exec(check.message);
      throw invalid(rule ? `Invalid '${param}.size': ${rule[1]} ${rule[2]}` : `Invalid '${param}.size': ${check.message}`, `${param}.size`);
    }
    size = { width: check.width, height: check.height, auto: check.auto };
  }
  const outputFormat = tool.output_format ?? "png";
  const outputCompression = outputFormat === "png" ? undefined : (tool.output_compression ?? undefined);

  const fields: Record<string, string | number> = { type: "image_generation" };
  if (tool.quality) fields.quality = tool.quality;
  if (typeof tool.size === "string") fields.size = size.auto ? "auto" : `${size.width}x${size.height}`;
  if (tool.output_format) fields.output_format = tool.output_format;
  if (outputCompression !== undefined) fields.output_compression = outputCompression;
  if (tool.moderation) fields.moderation = tool.moderation;
  if (tool.action) fields.action = tool.action;
  if (tool.background) fields.background = tool.background;
  if (tool.partial_images !== undefined && tool.partial_images !== null) fields.partial_images = tool.partial_images;

  return {
    quality: tool.quality ?? "auto",
    size,
    outputFormat,
    outputCompression,
    moderation: tool.moderation ?? "auto",
    action: tool.action ?? "auto",
    fields,
  };
}

function parseTools(raw: unknown): ImageTool {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw invalid(
      "Invalid 'tools': add a tool of type 'image_generation'; this endpoint serves a text model with the image generation tool",
      "tools",
    );
  }
  let found: { tool: unknown; index: number } | null = null;
  for (const [index, tool] of raw.entries()) {
    const type = typeof tool === "object" && tool !== null ? (tool as { type?: unknown }).type : undefined;
    if (type !== "image_generation") {
      throw invalid(
        `Invalid 'tools[${index}].type': only 'image_generation' tools are available on this endpoint; got ${describe(type)}`,
        `tools[${index}].type`,
      );
    }
    if (found) throw invalid("Invalid 'tools': send one tool of type 'image_generation'", "tools");
    found = { tool, index };
  }
  return parseTool(found!.tool, `tools[${found!.index}]`);
}

/** Splits an inline image into its parts; refuses links (the gateway fetches no caller URL, SECURITY.md: no caller-supplied URL is fetched). */
function parseImageUri(value: unknown, param: string): InputImageUri {
  if (typeof value !== "string" || value === "") {
    throw invalid(`Invalid '${param}': must be a base64 data URI such as 'data:image/png;base64,...'; got ${describe(value)}`, param);
  }
  if (/^https?:\/\//i.test(value)) {
    throw invalid(
      `Invalid '${param}': the gateway does not fetch image URLs; send the image inline as a base64 data URI ('data:image/png;base64,...')`,
      param,
    );
  }
  const comma = value.indexOf(",");
  const header = comma > 0 ? value.slice(0, comma) : "";
  const match = /^data:([\w.+-]+\/[\w.+-]+)((?:;[^;,]*)*)$/i.exec(header);
  if (!match || !match[2]!.toLowerCase().split(";").includes("base64")) {
    throw invalid(`Invalid '${param}': must be a base64 data URI such as 'data:image/png;base64,...'`, param);
  }
  const mediaType = match[1]!.toLowerCase();
  if (!IMAGE_MEDIA_TYPES[mediaType])
    throw invalid(`Invalid '${param}': images must be PNG, JPEG or WebP; got '${mediaType.slice(0, 60)}'`, param);
  const base64 = value.slice(comma + 1);
  if (base64 === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 === 1) {
    throw invalid(`Invalid '${param}': the data after 'base64,' is not valid base64`, param);
  }
  return { param, uri: value, base64 };
}

const textPart = (role: Role, type: string) =>
  role === "assistant" ? type === "output_text" || type === "input_text" : type === "input_text";

function parseMessage(raw: unknown, index: number, images: InputImageUri[]): InputMessage {
  const param = `input[${index}]`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw invalid(`Invalid '${param}': each input item must be a message object with 'role' and 'content'; got ${describe(raw)}`, param);
  const item = raw as Record<string, unknown>;
  if (item.type !== undefined && item.type !== "message") {
    throw invalid(
      `Invalid '${param}.type': only messages (role and content) are accepted here; got ${describe(item.type)}`,
      `${param}.type`,
    );
  }
  const role = item.role;
  if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) {
    throw invalid(
      `Invalid '${param}.role': must be one of ${ROLES.map((name) => `'${name}'`).join(", ")}; got ${describe(role)}`,
      `${param}.role`,
    );
  }
  const typedRole = role as Role;
  if (typeof item.content === "string") {
    return { role: typedRole, content: [{ type: typedRole === "assistant" ? "output_text" : "input_text", text: item.content }] };
  }
  if (!Array.isArray(item.content)) {
    throw invalid(
      `Invalid '${param}.content': must be a string or a list of input_text and input_image items; got ${describe(item.content)}`,
      `${param}.content`,
    );
  }
  const content: InputPart[] = [];
  for (const [partIndex, part] of item.content.entries()) {
    const partParam = `${param}.content[${partIndex}]`;
    const type = typeof part === "object" && part !== null ? (part as { type?: unknown }).type : undefined;
    const fields = (part ?? {}) as Record<string, unknown>;
    if (typeof type === "string" && textPart(typedRole, type)) {
      if (typeof fields.text !== "string")
        throw invalid(`Invalid '${partParam}.text': must be a string; got ${describe(fields.text)}`, `${partParam}.text`);
      content.push({ type: type as "input_text" | "output_text", text: fields.text });
    } else if (type === "input_image" && typedRole !== "assistant") {
      if (fields.file_id !== undefined && fields.file_id !== null) {
        throw invalid(
          `Invalid '${partParam}.file_id': file ids are not available; send the image inline as a base64 data URI in 'image_url'`,
          `${partParam}.file_id`,
        );
      }
      if (fields.detail !== undefined && fields.detail !== null && !["low", "high", "auto"].includes(fields.detail as string)) {
        throw invalid(
          `Invalid '${partParam}.detail': must be one of 'low', 'high', 'auto'; got ${describe(fields.detail)}`,
          `${partParam}.detail`,
        );
      }
      images.push(parseImageUri(fields.image_url, `${partParam}.image_url`));
      if (images.length > MAX_INPUT_IMAGES)
        throw invalid(`Invalid '${partParam}': at most ${MAX_INPUT_IMAGES} input images per request`, partParam);
      content.push({ type: "input_image", image: images.length - 1 });
    } else {
      const allowed = typedRole === "assistant" ? "'output_text'" : "'input_text' or 'input_image'";
      throw invalid(
        `Invalid '${partParam}.type': ${typedRole} content items must be ${allowed}; got ${describe(type)}`,
        `${partParam}.type`,
      );
    }
  }
  return { role: typedRole, content };
}

/**
 * The spec's rules for every /v1/responses request (§7), whatever its tools: no previous_response_id, no n, a
 * stream, instructions, and a non-empty list as input. (`parseResponsesRequest` applies them too, in its own order.)
 */
export function checkSpecRules(raw: Record<string, unknown>): void {
  if (raw.previous_response_id !== undefined && raw.previous_response_id !== null) {
    throw invalid(
      "'previous_response_id' is not available on this endpoint (it works only over the vendor's WebSocket transport, not over HTTP): send the whole conversation in 'input' instead",
      "previous_response_id",
    );
  }
  if (raw.n !== undefined && raw.n !== null) throw invalid("'n' is not available on /v1/responses", "n");
  if (raw.stream !== true)
    throw invalid("Streaming is required: set 'stream' to true; /v1/responses answers only as a server-sent event stream", "stream");
  if (
    raw.instructions === undefined ||
    raw.instructions === null ||
    (typeof raw.instructions === "string" && raw.instructions.trim() === "")
  ) {
    throw invalid("Instructions are required", "instructions");
  }
  if (typeof raw.instructions !== "string")
    throw invalid(`Invalid 'instructions': must be a string; got ${describe(raw.instructions)}`, "instructions");
  if (!Array.isArray(raw.input)) throw invalid("Input must be a list", "input");
  if (raw.input.length === 0) throw invalid("Invalid 'input': must hold at least one message", "input");
}

/**
 * The validated request. The rules the spec names (§7) come first, with their exact messages; then the model, the
 * input and the tool. Throws GatewayError(invalid_request) naming the field.
 */
export function parseResponsesRequest(raw: Record<string, unknown>): ResponsesRequest {
  if (raw.previous_response_id !== undefined && raw.previous_response_id !== null) {
    throw invalid(
      "'previous_response_id' is not available on this endpoint (it works only over the vendor's WebSocket transport, not over HTTP): send the whole conversation in 'input' instead",
      "previous_response_id",
    );
  }
  if (raw.n !== undefined && raw.n !== null) {
    throw invalid(
      "'n' is not available on /v1/responses: ask for several images in the prompt instead (for example \"three images of a lighthouse\"); the model then calls the image tool once per image",
      "n",
    );
  }
  if (raw.stream !== true) {
    throw invalid("Streaming is required: set 'stream' to true; /v1/responses answers only as a server-sent event stream", "stream");
  }
  if (raw.model === undefined || raw.model === null || raw.model === "")
    throw invalid(`Invalid 'model': is required; use '${TEXT_MODEL}'`, "model");
  if (typeof raw.model !== "string")
    throw invalid(`Invalid 'model': must be a string such as '${TEXT_MODEL}'; got ${describe(raw.model)}`, "model");
  if (!RESPONSES_MODELS.has(raw.model)) {
    const hint = raw.model === IMAGE_MODEL ? ` ('${IMAGE_MODEL}' is the image model: it is called through the image_generation tool)` : "";
    throw invalid(`Invalid 'model': /v1/responses serves the text model '${TEXT_MODEL}'; got ${describe(raw.model)}${hint}`, "model");
  }
  if (
    raw.instructions === undefined ||
    raw.instructions === null ||
    (typeof raw.instructions === "string" && raw.instructions.trim() === "")
  ) {
    throw invalid("Instructions are required", "instructions");
  }
  if (typeof raw.instructions !== "string")
    throw invalid(`Invalid 'instructions': must be a string; got ${describe(raw.instructions)}`, "instructions");
  if (!Array.isArray(raw.input)) throw invalid("Input must be a list", "input");
  if (raw.input.length === 0) throw invalid("Invalid 'input': must hold at least one message", "input");

  const images: InputImageUri[] = [];
  const messages = raw.input.map((item, index) => parseMessage(item, index, images));
  const tool = parseTools(raw.tools);
  if (tool.action === "edit" && images.length === 0) {
    const param = `tools[${(raw.tools as unknown[]).findIndex((entry) => (entry as { type?: unknown }).type === "image_generation")}].action`;
    throw invalid(
      "action 'edit' needs an image to edit: add an input_image (a base64 data URI) to the input, or use action 'generate' or 'auto'",
      param,
    );
  }
  return { model: raw.model, instructions: raw.instructions, messages, tool, images };
}

/** Base64 characters decoded to read an image's header: 48 KB of image, past any ordinary EXIF block of a JPEG. */
const HEADER_BASE64_CHARS = 64 * 1024;

/**
 * Format and dimensions of every inline image from the first bytes of its base64 only, before the reservation: a
 * request the balance cannot cover is refused without decoding anything (docs/billing.md, "money before work").
 * An image whose header is not within those bytes is sized as the largest input image allowed. Sizes are refused
 * here too, from the base64 length.
 */
export async function inspectInputImageHeaders(images: InputImageUri[]): Promise<ImageInfo[]> {
  const infos: ImageInfo[] = [];
  for (const image of images) {
    if ((image.base64.length / 4) * 3 > MAX_UPLOAD_BYTES + 3) {
      throw invalid(`Invalid '${image.param}': the image is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, image.param);
    }
    const head = Buffer.from(image.base64.slice(0, HEADER_BASE64_CHARS - (HEADER_BASE64_CHARS % 4)), "base64");
    let info: ImageInfo = { format: "png", width: 8192, height: 8192, hasAlpha: false };
    try {
      const metadata = await sharp(head).metadata();
      if (["png", "jpeg", "webp"].includes(metadata.format ?? "") && metadata.width && metadata.height) {
        info = { format: metadata.format as ImageFormat, width: metadata.width, height: metadata.height, hasAlpha: metadata.hasAlpha };
      }
    } catch {
      // Unreadable from the head: sized as the largest allowed; the full decode after the reservation decides.
    }
    infos.push(info);
  }
  return infos;
}

/**
 * Decodes every inline image completely (not only its header), so damaged data is a 400 now rather than a failed
 * edit halfway through the stream. Sizes are capped like uploads to the edit endpoint.
 */
export async function decodeInputImages(images: InputImageUri[]): Promise<InputImage[]> {
  const decoded: InputImage[] = [];
  for (const image of images) {
    // Base64 holds 3 bytes per 4 characters: refuse before decoding anything too large.
    if ((image.base64.length / 4) * 3 > MAX_UPLOAD_BYTES + 3) {
      throw invalid(`Invalid '${image.param}': the image is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, image.param);
    }
    const buffer = Buffer.from(image.base64, "base64");
    observeImageDecode();
    let info: ImageInfo;
    try {
      const metadata = await sharp(buffer).metadata();
      if (!["png", "jpeg", "webp"].includes(metadata.format ?? "") || !metadata.width || !metadata.height) throw new Error("unsupported");
      info = { format: metadata.format as ImageFormat, width: metadata.width, height: metadata.height, hasAlpha: metadata.hasAlpha };
    } catch {
      throw invalid(`Invalid '${image.param}': the data is not a PNG, JPEG or WebP image`, image.param);
    }
    if (info.width * info.height > MAX_INPUT_PIXELS) {
      throw invalid(
        `Invalid '${image.param}': the image is ${info.width}x${info.height}; input images may have at most ${MAX_INPUT_PIXELS.toLocaleString("en")} pixels (8192x8192)`,
        image.param,
      );
    }
    try {
      // Shrink-on-load keeps this cheap for JPEG and WebP; a truncated or corrupt body fails here.
      await sharp(buffer, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" }).resize(64, 64, { fit: "inside" }).raw().toBuffer();
    } catch {
      throw invalid(`Invalid '${image.param}': the image data is damaged or truncated`, image.param);
    }
    decoded.push({ buffer, info, uri: image.uri });
  }
  return decoded;
}

/** The text of the user's messages, for the content policy and for the simulator's planner. */
export function userText(messages: InputMessage[], which: "all" | "last" = "all"): string {
  const users = messages.filter((message) => message.role === "user");
  const chosen = which === "last" ? users.slice(-1) : users;
  return chosen
    .flatMap((message) => message.content.map((part) => (part.type === "input_text" ? part.text : "")))
    .filter((text) => text.trim() !== "")
    .join("\n");
}
