// Renderer of the offline `simulator` channel (docs/decisions/0008-offline-simulator.md): real images of the requested size and
// format, deterministic from the prompt so tests can compare bytes, and visibly labelled as simulated.
import { createHash } from "node:crypto";
import { mulberry32 } from "@/lib/platform/random";
import sharp, { type OverlayOptions, type Sharp } from "sharp";
import type { ImageFormat } from "@/lib/images/inspect";
import type { ImageQuality } from "@/lib/money/image-tokens";

export interface RenderOptions {
  prompt: string;
  width: number;
  height: number;
  format: ImageFormat;
  /** 0–100, the request's `output_compression`; only jpeg and webp use it (docs/api.md §2.1). */
  compression?: number;
  quality?: ImageQuality;
}

export interface RenderEditOptions {
  prompt: string;
  /** Paths of the uploaded images; the first is the edit base, the rest are references. */
  images: string[];
  /** Applied to the first image; its transparent (alpha 0) area is what gets edited. */
  maskPath?: string;
  width: number;
  height: number;
  format: ImageFormat;
  compression?: number;
}

/** Encoder quality when the request sets no output_compression: visibly clean, still small. */
const DEFAULT_ENCODER_QUALITY = 85;
/** Shapes per quality, so low/medium/high outputs differ the way a real model's detail would. */
const SHAPES: Record<ImageQuality, number> = { low: 4, medium: 8, high: 14 };
const FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
const PROMPT_CHARACTERS = 60;

/**
 * output_compression as the vendor means it: the percentage of quality kept, so 100 is the best quality (largest
 * file) and 0 the strongest compression. It maps straight onto the encoders' quality (0 becomes 1, their minimum).
 */
export function encoderQuality(compression: number | undefined): number {
  if (compression === undefined || !Number.isFinite(compression)) return DEFAULT_ENCODER_QUALITY;
  const clamped = Math.min(100, Math.max(0, Math.round(compression)));
  return Math.max(1, clamped);
}

function encode(image: Sharp, format: ImageFormat, compression: number | undefined): Promise<Buffer> {
  if (format === "jpeg") return image.jpeg({ quality: encoderQuality(compression) }).toBuffer();
  if (format === "webp") return image.webp({ quality: encoderQuality(compression), effort: 2 }).toBuffer();
  // Level 3 without adaptive filtering keeps a 3840x2160 PNG well under a second; the files are a bit larger.
  return image.png({ compressionLevel: 3, adaptiveFiltering: false }).toBuffer();
}

/** A small seeded generator (mulberry32): the same prompt always draws the same picture. */
function seededRandom(prompt: string): () => number {
  return mulberry32(createHash("sha256").update(prompt).digest().readUInt32BE(0));
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  // librsvg's hsl() support varies across versions; hex is understood everywhere.
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const section = (hue / 60) % 6;
  const second = chroma * (1 - Math.abs((section % 2) - 1));
  const [red, green, blue] =
    section < 1
      ? [chroma, second, 0]
      : section < 2
        ? [second, chroma, 0]
        : section < 3
          ? [0, chroma, second]
          : section < 4
            ? [0, second, chroma]
            : section < 5
              ? [second, 0, chroma]
              : [chroma, 0, second];
  const offset = lightness - chroma / 2;
  return `#${[red, green, blue]
    .map((channel) =>
      Math.round((channel + offset) * 255)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function truncatePrompt(prompt: string): string {
  // By code point, so an emoji is never cut in half; control characters are not valid XML.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  const characters = Array.from(prompt.replace(/[\u0000-\u001f\u007f]+/g, " ").trim());
  return characters.length > PROMPT_CHARACTERS ? `${characters.slice(0, PROMPT_CHARACTERS - 1).join("")}…` : characters.join("");
}

/**
 * The SIMULATOR label with the prompt and size; transparent around the text so it can be laid over anything.
 * `top` puts it near the top edge, for edits, where the centre is the user's own picture.
 */
function labelSvg(width: number, height: number, prompt: string, detail: string, placement: "centre" | "top" = "centre"): string {
  const short = Math.min(width, height);
  const promptLine = truncatePrompt(prompt);
  const title = Math.round(short * 0.11);
  // An average glyph is about 0.6 em wide in the sans fonts above: shrink long prompts to fit 90% of the width.
  const line = Math.max(1, Math.round(Math.min(short * 0.035, (width * 0.9) / (Math.max(promptLine.length, 20) * 0.6))));
  const centre = placement === "centre" ? height / 2 : Math.round(title * 1.3);
  const text = (y: number, size: number, weight: string, content: string) =>
    `<text x="${width / 2}" y="${y}" font-family="${FONT}" font-size="${size}" font-weight="${weight}" text-anchor="middle" ` +
    `fill="#ffffff" stroke="#000000" stroke-opacity="0.35" stroke-width="${Math.max(1, size / 30)}">${escapeXml(content)}</text>`;
  return (
    text(centre, title, "bold", "SIMULATOR") +
    text(centre + line * 2, line, "normal", promptLine) +
    text(centre + line * 3.6, line * 0.8, "normal", detail)
  );
}

function svgDocument(width: number, height: number, body: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`,
  );
}

function sceneSvg(options: Required<Pick<RenderOptions, "prompt" | "width" | "height" | "quality">>): Buffer {
  const { prompt, width, height, quality } = options;
  const random = seededRandom(prompt);
  const hue = random() * 360;
  const start = hslToHex(hue, 0.65, 0.5);
  const end = hslToHex((hue + 90 + random() * 120) % 360, 0.6, 0.22);
  const angle = random() * Math.PI * 2;
  const x = Math.cos(angle) / 2;
  const y = Math.sin(angle) / 2;
  const parts = [
    `<defs><linearGradient id="background" x1="${0.5 - x}" y1="${0.5 - y}" x2="${0.5 + x}" y2="${0.5 + y}">` +
      `<stop offset="0" stop-color="${start}"/><stop offset="1" stop-color="${end}"/></linearGradient></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#background)"/>`,
  ];
  const short = Math.min(width, height);
  for (let index = 0; index < SHAPES[quality]; index += 1) {
    const colour = hslToHex(random() * 360, 0.7, 0.35 + random() * 0.4);
    const opacity = (0.25 + random() * 0.45).toFixed(2);
    const centreX = Math.round(random() * width);
    const centreY = Math.round(random() * height);
    const size = Math.round(short * (0.08 + random() * 0.3));
    const kind = Math.floor(random() * 3);
    if (kind === 0) {
      parts.push(`<circle cx="${centreX}" cy="${centreY}" r="${size}" fill="${colour}" fill-opacity="${opacity}"/>`);
    } else if (kind === 1) {
      const rotation = Math.round(random() * 90);
      parts.push(
        `<rect x="${centreX - size}" y="${centreY - size / 2}" width="${size * 2}" height="${size}" rx="${Math.round(size / 8)}" ` +
          `fill="${colour}" fill-opacity="${opacity}" transform="rotate(${rotation} ${centreX} ${centreY})"/>`,
      );
    } else {
      const points = [0, 1, 2].map((corner) => {
        const pointAngle = random() * Math.PI * 2 + (corner * Math.PI * 2) / 3;
        return `${Math.round(centreX + Math.cos(pointAngle) * size)},${Math.round(centreY + Math.sin(pointAngle) * size)}`;
      });
      parts.push(`<polygon points="${points.join(" ")}" fill="${colour}" fill-opacity="${opacity}"/>`);
    }
  }
  parts.push(labelSvg(width, height, prompt, `${width}x${height} · ${quality}`));
  return svgDocument(width, height, parts.join(""));
}

/** A generated image of exactly width×height in the requested format; the same options give the same bytes. */
export async function renderImage(options: RenderOptions): Promise<Buffer> {
  const { prompt, width, height, format, compression, quality = "medium" } = options;
  // No alpha in the output: the spec does not support transparent backgrounds.
  const image = sharp(sceneSvg({ prompt, width, height, quality })).removeAlpha();
  return encode(image, format, compression);
}

/** The tint of an edit, drawn from the prompt so different prompts edit visibly differently. */
function editTint(prompt: string): { r: number; g: number; b: number } {
  const digest = createHash("sha256").update(`edit:${prompt}`).digest();
  const hex = hslToHex((digest.readUInt16BE(0) / 65536) * 360, 0.85, 0.5);
  return { r: parseInt(hex.slice(1, 3), 16), g: parseInt(hex.slice(3, 5), 16), b: parseInt(hex.slice(5, 7), 16) };
}

/**
 * An edit derived from the first input: resized and cropped to the target, tinted where the mask is transparent
 * (everywhere when there is no mask), with the other inputs as thumbnails and the SIMULATOR label on top.
 */
export async function renderEdit(options: RenderEditOptions): Promise<Buffer> {
  const { prompt, images, maskPath, width, height, format, compression } = options;
  const [firstPath, ...references] = images;
  if (!firstPath) throw new Error("renderEdit needs at least one input image");

  // Cover + centre crop, the same way for image and mask, so the mask stays aligned with what it was drawn on.
  // Linear and nearest-neighbour kernels: a simulator needs no Lanczos, and they halve the time of a 4K edit.
  const fit = { width, height, fit: "cover" as const, position: "centre" as const };
  const [base, editArea] = await Promise.all([
    sharp(firstPath)
      .autoOrient()
      .resize({ ...fit, kernel: "linear" })
      .removeAlpha()
      .raw()
      .toBuffer(),
    // Edit area = where the mask is transparent, so the tint layer's alpha is the mask's alpha inverted.
    maskPath
      ? sharp(maskPath)
          .autoOrient()
          .ensureAlpha()
          .resize({ ...fit, kernel: "nearest" })
          .extractChannel("alpha")
          .negate()
          .raw()
          .toBuffer()
      : undefined,
  ]);
  const raw = { raw: { width, height, channels: 3 as const } };
  const tinted = sharp(base, raw).tint(editTint(prompt));

  // Layers go to composite as raw pixels rather than encoded images: nothing is compressed only to be decoded again.
  let editLayer: OverlayOptions;
  if (editArea) {
    const pixels = await tinted
      .joinChannel(editArea, { raw: { width, height, channels: 1 } })
      .raw()
      .toBuffer();
    editLayer = { input: pixels, raw: { width, height, channels: 4 }, left: 0, top: 0 };
  } else {
    editLayer = { input: await tinted.raw().toBuffer(), raw: { width, height, channels: 3 }, left: 0, top: 0 };
  }

  const overlays: OverlayOptions[] = [editLayer];
  const thumbnail = Math.max(16, Math.round(Math.min(width, height) / 6));
  const margin = Math.round(thumbnail / 8);
  let left = width - margin - thumbnail;
  for (const reference of references) {
    if (left < 0) break;
    const input = await sharp(reference).autoOrient().resize(thumbnail, thumbnail, { fit: "cover" }).removeAlpha().raw().toBuffer();
    overlays.push({ input, raw: { width: thumbnail, height: thumbnail, channels: 3 }, left, top: height - margin - thumbnail });
    left -= thumbnail + margin;
  }
  overlays.push({
    input: svgDocument(width, height, labelSvg(width, height, prompt, `${width}x${height} · edit`, "top")),
    left: 0,
    top: 0,
  });

  const image = sharp(base, raw).composite(overlays).removeAlpha();
  return encode(image, format, compression);
}
