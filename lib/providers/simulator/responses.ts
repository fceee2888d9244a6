// `simulator` channels, /v1/responses: the offline stand-in for a text model that calls the image tool
// (docs/decisions/0008-offline-simulator.md). It reads the request the way a model would, deterministically: how many images were asked for ("three
// images", "3 pictures", "a couple of photos": 1 to 4), whether to edit the input image (action `auto`: an image is
// present and the prompt asks for a change), and a rewritten prompt per image. It then streams the same events as the
// real service (docs/api.md §6) with realistic pacing and token counts (docs/api.md §8: about 1,600-2,300 text tokens per call;
// image tokens from lib/money/image-tokens.ts), rendering real images of the requested size and format.
//
// Channel settings (free-form JSON per channel):
//   responsesThinkMs  time before the first image (default 800 ms)
//   responsesImageMs  time per image (default 2,500 ms; the real service takes 13-20 s, docs/api.md §8)
//   keepaliveMs       heartbeat interval while an image is generating (lib/gateway/responses/handler.ts)
import { createHash } from "node:crypto";
import { mulberry32 } from "@/lib/platform/random";
import { countTextTokens } from "@/lib/money/tokens";
import { renderEdit, renderImage } from "./render";
import { resolveQuality } from "@/lib/money/image-tokens";
import { addImageUsage, imageUsage, PARTIAL_IMAGE_TOKENS, previewsUsage, type ImageUsage } from "@/lib/money/image-usage";
import { autoEditSize } from "@/lib/wire/image-request";
import { ResponseBuilder, toolEcho, type ResponsesEvent } from "@/lib/wire/responses-events";
import { userText, type ImageAction } from "@/lib/wire/responses-request";
import type { ResponsesCall, ResponsesSource, ResponsesUsage } from "@/lib/providers/responses-types";
import { RESPONSES_LIMITS } from "@/lib/money/reservation";
import sharp from "sharp";

export const DEFAULT_THINK_MS = 800;
export const DEFAULT_IMAGE_MS = 2_500;
/** At most this many images per response, however many the prompt asks for. */
export const MAX_IMAGES_PER_RESPONSE = RESPONSES_LIMITS.images;
/** The image tool's own instructions, which the real service adds to every call's input. */
const TOOL_PROMPT_TOKENS = 1_400;
/** Tokens of one tool call besides its prompt (name, arguments' JSON). */
const TOOL_CALL_TOKENS = 14;

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  "a couple of": 2,
  "a pair of": 2,
  "a few": 3,
  several: 3,
};
const IMAGE_NOUNS =
  "images?|pictures?|photos?|photographs?|illustrations?|drawings?|paintings?|sketch(?:es)?|renders?|renderings?|variations?|versions?|" +
  "options?|icons?|logos?|wallpapers?|posters?|designs?|portraits?|scenes?|shots?|artworks?|concepts?";
const COUNT_PATTERN = new RegExp(
  `\\b(\\d{1,2}|${Object.keys(NUMBER_WORDS).join("|")})\\s+(?:[\\p{L}-]+\\s+){0,3}?(?:${IMAGE_NOUNS})\\b`,
  "iu",
);
const CHANGE_PATTERN =
  /\b(edit|change|changed|make (?:it|this|them|the)|turn|add|remove|replace|modify|recolou?r|adjust|convert|transform|swap|erase|fix|retouch|into|instead|without|more|less)\b/i;

const STYLES = [
  "soft natural light",
  "rich fine detail",
  "balanced composition",
  "shallow depth of field",
  "vivid but natural colours",
  "gentle atmospheric haze",
  "crisp focus on the subject",
  "warm evening tones",
  "cool morning light",
  "clean uncluttered background",
  "subtle film grain",
  "high dynamic range",
];
const VARIATIONS = [
  "seen from the front",
  "from a low angle",
  "as a wide shot showing more of the surroundings",
  "as a close-up with fine detail",
];

/** How many images the prompt asks for: 1 unless it names a number of images (the response makes at most 4). */
export function requestedImageCount(text: string): number {
  const match = COUNT_PATTERN.exec(text);
  if (!match) return 1;
  const word = match[1]!.toLowerCase();
  const count = /^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? 1);
  return Math.max(1, count);
}

/** What action `auto` means for this prompt: edit when there is an image and the prompt asks for a change. */
export function chooseAction(action: ImageAction, text: string, hasImage: boolean): "generate" | "edit" {
  if (action === "generate") return "generate";
  if (action === "edit") return "edit";
  return hasImage && CHANGE_PATTERN.test(text) ? "edit" : "generate";
}

function seeded(text: string): () => number {
  return mulberry32(createHash("sha256").update(`responses:${text}`).digest().readUInt32LE(0));
}

/** The subject of an image request: the prompt without the request around it ("please make three images of ..."). */
export function subjectOf(text: string): string {
  let subject = text.replace(/\s+/g, " ").trim().slice(0, 400);
  subject = subject.replace(
    /^(?:please\s+)?(?:(?:can|could|would) you\s+)?(?:please\s+)?(?:generate|create|make|draw|paint|render|design|produce|show me|give me|i want|i'd like|i would like)\s+(?:me\s+)?/i,
    "",
  );
  subject = subject.replace(new RegExp(`${COUNT_PATTERN.source}(?:\\s+(?:of|showing|with|for))?\\s*`, "iu"), "");
  subject = subject.replace(new RegExp(`^(?:an?|the|some)\\s+(?:${IMAGE_NOUNS})\\s+(?:of|showing)\\s+`, "iu"), "");
  subject = subject.replace(/[\s.!?,;:]+$/u, "").trim();
  if (!subject) return "An abstract composition of shapes and colour";
  return subject[0]!.toUpperCase() + subject.slice(1);
}

/** The rewritten prompts, one per image: the subject, a variation when there are several, two style notes. */
export function revisePrompts(text: string, count: number, action: "generate" | "edit"): string[] {
  if (action === "edit") {
    // An edit's request is an instruction ("make it blue"): kept whole, only tidied.
    const instruction =
      text
        .replace(/\s+/g, " ")
        .trim()
        .slice(0, 400)
        .replace(/[\s.!?,;:]+$/u, "") || "Refresh the image";
    const sentence = instruction[0]!.toUpperCase() + instruction.slice(1);
    return Array.from(
      { length: count },
      (_, index) =>
        `Edit the provided image: ${sentence}. Keep the original composition, framing and lighting, and change only what is asked` +
        (count > 1 ? `; version ${index + 1} of ${count}, ${VARIATIONS[index]!.replace(/^as /, "shown as ")}.` : "."),
    );
  }
  const subject = subjectOf(text);
  const random = seeded(subject);
  return Array.from({ length: count }, (_, index) => {
    const first = STYLES[Math.floor(random() * STYLES.length)]!;
    let second = STYLES[Math.floor(random() * STYLES.length)]!;
    if (second === first) second = STYLES[(STYLES.indexOf(first) + 5) % STYLES.length]!;
    const variation = count > 1 ? `, ${VARIATIONS[index]}` : "";
    return `${subject}${variation}, ${first}, ${second}.`;
  });
}

function setting(call: ResponsesCall, name: string, fallback: number): number {
  const value = Number(call.channel.settings[name]);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

type Planned = { itemId: string; prompt: string; usage: ImageUsage };

export function simulatorResponses(call: ResponsesCall): ResponsesSource {
  const { request, signal } = call;
  const tool = request.tool;
  const text = userText(request.messages, "last") || userText(request.messages);
  const action = chooseAction(tool.action, text, call.images.length > 0);
  const count = requestedImageCount(text);
  // Past the limit the response makes what it may and ends incomplete, saying why (never a silent "completed").
  const prompts = revisePrompts(text, Math.min(count, MAX_IMAGES_PER_RESPONSE), action);
  const first = call.images[0]?.info;
  const { width, height } = !tool.size.auto ? tool.size : action === "edit" && first ? autoEditSize(first.width, first.height) : tool.size;
  const quality = resolveQuality(tool.quality);
  const random = seeded(`${request.instructions}\n${text}`);
  // The model's hidden reasoning before it calls the tool, and the tool's own prompt in the input (docs/api.md §8 totals).
  const reasoningTokens = 120 + Math.floor(random() * 260);
  const inputTokens = call.inputTokens + TOOL_PROMPT_TOKENS + Math.floor(random() * 150);
  const thinkMs = setting(call, "responsesThinkMs", DEFAULT_THINK_MS);
  const imageMs = setting(call, "responsesImageMs", DEFAULT_IMAGE_MS);
  const previews = typeof tool.fields.partial_images === "number" ? tool.fields.partial_images : 0;
  const builder = new ResponseBuilder({ model: call.publicModel, instructions: request.instructions, tool: toolEcho(tool) });
  const started: Planned[] = [];
  const generated = new Set<string>();

  const textCounts = () => ({
    inputTokens,
    outputTokens: reasoningTokens + started.reduce((total, image) => total + countTextTokens(image.prompt) + TOOL_CALL_TOKENS, 0),
    reasoningTokens,
  });
  const imageTotals = (items: Planned[]) => addImageUsage(items.map((image) => image.usage));

  async function render(prompt: string): Promise<Buffer> {
    const format = tool.outputFormat;
    if (action === "edit") {
      const paths = (await call.files.uploads()).map((upload) => upload.path);
      return renderEdit({ prompt, images: paths, width, height, format, compression: tool.outputCompression });
    }
    return renderImage({ prompt, width, height, format, compression: tool.outputCompression, quality });
  }

  async function* events(): AsyncGenerator<ResponsesEvent, void, undefined> {
    yield* builder.start();
    await sleep(thinkMs, signal);
    for (const prompt of prompts) {
      if (signal.aborted) return;
      const { itemId, outputIndex, events: opening } = builder.imageStart();
      const base = imageUsage({ prompt, width, height, quality, inputs: action === "edit" ? call.images.map((image) => image.info) : [] });
      // Each progress image is billed as the vendor bills it (docs/billing.md, Responses).
      const usage = { ...base, imageOutputTokens: base.imageOutputTokens + previews * PARTIAL_IMAGE_TOKENS };
      started.push({ itemId, prompt, usage });
      yield* opening;
      await sleep(imageMs * 0.15, signal);
      if (signal.aborted) return;
      yield builder.imageGenerating(itemId, outputIndex);
      // Rendering and the pacing run together: a 4K render that takes longer than the pacing is not slowed further.
      // Progress images, when asked for, come during the pacing: the image at a fraction of its size, less blurred
      // each time.
      const rendering = render(prompt);
      let thumbnail: Promise<Buffer> | null = null;
      for (let index = 0; index < previews; index++) {
        const [image] = await Promise.all([rendering, sleep((imageMs * 0.85) / (previews + 1), signal)]);
        if (signal.aborted) return;
        // The image is decoded and shrunk once; each preview only blurs the small copy.
        thumbnail ??= thumbnailOf(image, width, height);
        const preview = await previewOf(await thumbnail, index, previews, tool.outputFormat);
        yield builder.imagePreview(itemId, outputIndex, index, {
          b64: preview.toString("base64"),
          outputFormat: tool.outputFormat,
          size: `${width}x${height}`,
        });
      }
      const [image] = await Promise.all([rendering, sleep(previews ? (imageMs * 0.85) / (previews + 1) : imageMs * 0.85, signal)]);
      if (signal.aborted) return;
      generated.add(itemId);
      yield* builder.imageDone(
        itemId,
        outputIndex,
        {
          b64: image.toString("base64"),
          size: `${width}x${height}`,
          quality,
          outputFormat: tool.outputFormat,
          background: "opaque",
          revisedPrompt: prompt,
        },
        previews,
      );
    }
    if (count > MAX_IMAGES_PER_RESPONSE) yield builder.incomplete(textCounts(), imageTotals(started), "max_images");
    else yield builder.completed(textCounts(), imageTotals(started));
  }

  return {
    events: events(),
    usage(delivered): ResponsesUsage {
      const billed = started.filter((image) => delivered.images.has(image.itemId));
      // Cut after its progress images, before the finished one: those progress images, not the image.
      const previewed = started.flatMap((image) => {
        const count = delivered.images.has(image.itemId) ? 0 : (delivered.previews.get(image.itemId) ?? 0);
        return count ? [previewsUsage(image.usage, count)] : [];
      });
      const counts = textCounts();
      return {
        text: { inputTokens: counts.inputTokens, outputTokens: counts.outputTokens },
        image: addImageUsage([imageTotals(billed), ...previewed]),
        imagesGenerated: generated.size,
        imagesDelivered: billed.length,
        previewsDelivered: [...delivered.previews.values()].reduce((total, count) => total + count, 0),
        detail: { path: "simulator", action, imagesRequested: count, size: `${width}x${height}`, quality, outputFormat: tool.outputFormat },
      };
    },
  };
}

/** The finished image at an eighth of its size (at least 64 px wide), the base of its progress images. */
function thumbnailOf(image: Buffer, width: number, height: number): Promise<Buffer> {
  const small = Math.max(64, Math.round(width / 8));
  return sharp(image)
    .resize(small, Math.max(1, Math.round((height * small) / width)))
    .png({ compressionLevel: 0 })
    .toBuffer();
}

/** A progress image: the thumbnail, blurred less as it nears the end, in the requested format. */
async function previewOf(thumbnail: Buffer, index: number, total: number, format: string): Promise<Buffer> {
  const blurred = sharp(thumbnail).blur(Math.max(0.3, 6 * (1 - (index + 1) / (total + 1))));
  return (format === "jpeg" ? blurred.jpeg() : format === "webp" ? blurred.webp() : blurred.png()).toBuffer();
}
