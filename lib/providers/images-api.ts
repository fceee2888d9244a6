// The image API of every upstream that speaks OpenAI's (`openai` and `azure` channels, each with its own Endpoint,
// ./endpoint.ts):
//   Generations: https://platform.openai.com/docs/api-reference/images/create (JSON)
//   Edits:       https://platform.openai.com/docs/api-reference/images/createEdit (multipart)
// The upstream gets the mapped model, the channel's key and the client's validated fields only (never a field the
// gateway does not know, such as base_url). Edit uploads go on as they arrive (openEdit), or from their temporary
// files when they were stored first; they are never held whole in memory.
// The image comes back unchanged; usage is read from the answer, or computed by the gateway when it is absent.
import type { Readable } from "node:stream";
import { z } from "zod";
import {
  bodyFailure,
  channelDeadlines,
  readUpstreamBytes,
  upstreamBody,
  upstreamFetch,
  type FetchResult,
  type UpstreamInit,
} from "@/lib/providers/http";
import { log } from "@/lib/platform/log";
import { startImageStream } from "@/lib/providers/image-stream";
import { multipartBody } from "@/lib/platform/http/multipart";
import { openLiveMultipart } from "@/lib/providers/live-upload";
import type { ImageFormat } from "@/lib/images/inspect";
import type { ImageUsage } from "@/lib/money/image-usage";
import type { Channel } from "@/lib/channels";
import type { ImageAdapter, ImageCall, ImageDetails, ImageOutcome, LiveEdit } from "@/lib/providers/image-types";
import type { UpstreamFailure } from "@/lib/providers/types";
import type { Endpoint } from "@/lib/providers/endpoint";

/**
 * How long an image may take before the upstream counts as timed out, unless the channel sets `timeoutMs`: the spec
 * observes up to 2 minutes for complex prompts (§8), so the text endpoints' 120 s would cut real generations.
 */
export const IMAGE_TIMEOUT_MS = 300_000;

/** An upstream answer larger than this is refused rather than held in memory (a 3840x2160 PNG is ~15-30 MB). */
export const MAX_IMAGE_RESPONSE_BYTES = 256 * 1024 * 1024;

// Lenient: only what the gateway reads is checked; unknown fields are ignored.
const count = z.number().int().min(0).finite();
const usageSchema = z.looseObject({
  input_tokens: count.optional(),
  input_tokens_details: z.looseObject({ text_tokens: count.optional(), image_tokens: count.optional() }).nullish(),
  output_tokens: count.optional(),
  output_tokens_details: z.looseObject({ text_tokens: count.optional(), image_tokens: count.optional() }).nullish(),
});
const imagesResponseSchema = z.looseObject({
  created: z.number().optional(),
  data: z.array(z.looseObject({ b64_json: z.string().nullish(), url: z.string().nullish(), revised_prompt: z.string().nullish() })).min(1),
  usage: usageSchema.nullish(),
  size: z.string().nullish(),
  quality: z.string().nullish(),
  background: z.string().nullish(),
  output_format: z.string().nullish(),
});

export type UpstreamImageUsage = z.infer<typeof usageSchema>;

/**
 * The upstream's usage object as the gateway's usage. `input_tokens_details` splits text from image input; without
 * it, the gateway's own text count is taken as text and the rest of `input_tokens` as image input. With
 * `output_tokens_details`, its text part is billed as text output. Without any usage: the gateway's own count.
 */
export function usageFromUpstream(
  usage: UpstreamImageUsage | null | undefined,
  fallback: ImageUsage,
): { usage: ImageUsage; source: "upstream" | "gateway" } {
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined && !usage.input_tokens_details))
    return { usage: fallback, source: "gateway" };
  let textInputTokens: number;
  let imageInputTokens: number;
  if (
    usage.input_tokens_details &&
    (usage.input_tokens_details.text_tokens !== undefined || usage.input_tokens_details.image_tokens !== undefined)
  ) {
    textInputTokens =
      usage.input_tokens_details.text_tokens ?? Math.max(0, (usage.input_tokens ?? 0) - (usage.input_tokens_details.image_tokens ?? 0));
    imageInputTokens = usage.input_tokens_details.image_tokens ?? Math.max(0, (usage.input_tokens ?? 0) - textInputTokens);
  } else if (usage.input_tokens !== undefined) {
    textInputTokens = Math.min(usage.input_tokens, fallback.textInputTokens);
    imageInputTokens = usage.input_tokens - textInputTokens;
  } else {
    textInputTokens = fallback.textInputTokens;
    imageInputTokens = fallback.imageInputTokens;
  }
  let textOutputTokens = 0;
  let imageOutputTokens: number;
  if (usage.output_tokens_details && usage.output_tokens_details.image_tokens !== undefined) {
    imageOutputTokens = usage.output_tokens_details.image_tokens;
    textOutputTokens =
      usage.output_tokens_details.text_tokens ?? Math.max(0, (usage.output_tokens ?? imageOutputTokens) - imageOutputTokens);
  } else {
    imageOutputTokens = usage.output_tokens ?? fallback.imageOutputTokens;
  }
  return { usage: { textInputTokens, textOutputTokens, imageInputTokens, imageOutputTokens }, source: "upstream" };
}

/** The format of base64 image data (text, or its ASCII bytes), from its first bytes; null when it is none of the three. */
export function sniffFormat(b64: string | Buffer): ImageFormat | null {
  const start = typeof b64 === "string" ? b64.slice(0, 24) : b64.toString("latin1", 0, 24);
  const head = Buffer.from(start, "base64");
  if (head.length >= 4 && head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) return "png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head.length >= 12 && head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "webp";
  return null;
}

const B64_KEY = Buffer.from('"b64_json"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first image of an answer and the rest of it, without turning the image into a JavaScript string: the answer's
 * bytes are searched for the "b64_json" value, the rest is parsed as JSON with that value empty, and the image stays
 * a slice of the bytes read (no copy). A 3840x2160 PNG is ~33 MB of base64; parsing, validating and re-serialising
 * it as text made ~5 copies of it per request. Null when the answer is not laid out that way (an escaped character
 * inside the value, a data URI in `url`): the caller parses it whole.
 */
export function splitImageAnswer(raw: Buffer): { rest: unknown; b64: Buffer } | null {
  const key = raw.indexOf(B64_KEY);
  if (key < 0) return null;
  let position = key + B64_KEY.length;
  const skipSpace = () => {
    while (position < raw.length && (raw[position] === 0x20 || raw[position] === 0x0a || raw[position] === 0x0d || raw[position] === 0x09))
      position++;
  };
  skipSpace();
  if (raw[position] !== 0x3a) return null; // ':'
  position++;
  skipSpace();
  if (raw[position] !== QUOTE) return null;
  const start = position + 1;
  const end = raw.indexOf(QUOTE, start);
  if (end < 0) return null;
  const backslash = raw.indexOf(BACKSLASH, start);
  if (backslash >= 0 && backslash < end) return null;
  let rest: unknown;
  try {
    rest = JSON.parse(raw.toString("utf8", 0, start) + raw.toString("utf8", end));
  } catch {
    return null;
  }
  // The value found must be the first item's image, not a look-alike elsewhere in the answer.
  const first = (rest as { data?: { b64_json?: unknown }[] } | null)?.data?.[0];
  if (first?.b64_json !== "") return null;
  return { rest, b64: raw.subarray(start, end) };
}

function failure(message: string, cause: string): UpstreamFailure {
  return { ok: false, retryable: true, status: 502, message, cause };
}

/** What the answer says besides the image (`parsed`: the answer, checked), or the gateway's own count without it. */
function detailsOf(call: ImageCall, parsed: z.infer<typeof imagesResponseSchema> | null): ImageDetails {
  const item = parsed?.data[0];
  const { usage, source } = usageFromUpstream(parsed?.usage, call.usage);
  return {
    usage,
    usageSource: source,
    size: parsed?.size ?? `${call.width}x${call.height}`,
    quality: parsed?.quality ?? call.options.quality,
    background: parsed?.background ?? "opaque",
    ...(item?.revised_prompt ? { revisedPrompt: item.revised_prompt } : {}),
  };
}

/** A whole answer read into `raw`, as the gateway's result: the first image unchanged, usage read or computed. */
function parseWhole(call: ImageCall, raw: Buffer): ImageOutcome {
  const split = splitImageAnswer(raw);
  let parsed: z.infer<typeof imagesResponseSchema>;
  try {
    const checked = imagesResponseSchema.safeParse(split ? split.rest : JSON.parse(raw.toString("utf8")));
    if (!checked.success) return failure("The upstream's answer holds no image ('data' is missing or empty)", "upstream_malformed");
    parsed = checked.data;
  } catch {
    return failure("The upstream's answer is not valid JSON", "upstream_malformed");
  }
  const item = parsed.data[0]!;
  let b64: string | Buffer | null = split?.b64.length ? split.b64 : item.b64_json || null;
  // Some compatible upstreams answer with a data URI in `url`; an http(s) link is never fetched (SECURITY.md: no caller-supplied URL is fetched).
  const dataUri = item.url ? /^data:image\/[\w+.-]+;base64,(.*)$/s.exec(item.url) : null;
  if (!b64 && dataUri) b64 = dataUri[1]!;
  if (!b64)
    return failure(
      "The upstream answered without image data (no 'b64_json' and no data URI); links to images are not fetched",
      "upstream_no_image",
    );
  const format = sniffFormat(b64);
  if (!format) return failure("The upstream's image is not PNG, JPEG or WebP data", "upstream_malformed");
  return {
    ok: true,
    b64,
    format,
    created: typeof parsed.created === "number" ? parsed.created : Math.floor(Date.now() / 1000),
    ...detailsOf(call, parsed),
  };
}

/** The rest of an answer after `head`, whole; null past `limit` bytes. */
async function readRest(iterator: AsyncIterator<Uint8Array>, head: Buffer, done: boolean, limit: number): Promise<Buffer | null> {
  const chunks: Uint8Array[] = [head];
  let size = head.length;
  while (!done) {
    const next = await iterator.next();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await iterator.return?.();
      return null;
    }
    chunks.push(next.value);
  }
  return chunks.length === 1 ? head : Buffer.concat(chunks, size);
}

/**
 * The upstream's answer as the gateway's result. Asked to stream (`call.stream`), the image is handed on as it
 * arrives once its first bytes show what it is (./image-stream.ts); a failure before that can still go to another
 * channel. Otherwise the answer is read whole.
 */
async function readAnswer(call: ImageCall, result: FetchResult): Promise<ImageOutcome> {
  if (!result.ok) return result;
  const tooLarge = () => failure(`The upstream's answer is larger than ${MAX_IMAGE_RESPONSE_BYTES / 1024 / 1024} MB`, "upstream_too_large");
  if (!call.stream) {
    let raw: Buffer | null;
    try {
      raw = await readUpstreamBytes(result.response, MAX_IMAGE_RESPONSE_BYTES);
    } catch (error) {
      return bodyFailure(error, call.signal);
    }
    return raw === null ? tooLarge() : parseWhole(call, raw);
  }
  const body = upstreamBody(result.response) as AsyncIterable<Uint8Array>;
  const iterator = body[Symbol.asyncIterator]();
  if (Number(result.response.headers.get("content-length") ?? "-1") > MAX_IMAGE_RESPONSE_BYTES) {
    await iterator.return?.();
    return tooLarge();
  }
  let start: Awaited<ReturnType<typeof startImageStream>>;
  let raw: Buffer | null;
  try {
    start = await startImageStream(iterator, MAX_IMAGE_RESPONSE_BYTES);
    if ("stream" in start) {
      const { stream } = start;
      const format = sniffFormat(stream.first);
      if (!format) {
        await iterator.return?.();
        return failure("The upstream's image is not PNG, JPEG or WebP data", "upstream_malformed");
      }
      async function* chunks(): AsyncGenerator<Uint8Array> {
        yield stream.first;
        yield* stream.chunks;
      }
      const details = (): ImageDetails => {
        let rest: unknown;
        try {
          rest = JSON.parse(stream.rest());
        } catch {
          rest = null;
        }
        const checked = imagesResponseSchema.safeParse(rest);
        // The value found must have been the first item's image, not a look-alike elsewhere in the answer.
        const parsed = checked.success && checked.data.data[0]?.b64_json === "" ? checked.data : null;
        if (!parsed)
          log.warn("image answer's fields after the image are unreadable; billed by the gateway's count", { model: call.upstreamModel });
        return detailsOf(call, parsed);
      };
      return { ok: true, format, created: stream.created ?? Math.floor(Date.now() / 1000), stream: { chunks: chunks(), details } };
    }
    raw = await readRest(iterator, start.head, start.done, MAX_IMAGE_RESPONSE_BYTES);
  } catch (error) {
    await iterator.return?.().catch(() => undefined);
    return bodyFailure(error, call.signal);
  }
  return raw === null ? tooLarge() : parseWhole(call, raw);
}

function deadlines(channel: Channel): { timeoutMs: number; idleTimeoutMs?: number } {
  const { timeoutMs, idleTimeoutMs } = channelDeadlines(channel.settings);
  return { timeoutMs: timeoutMs ?? IMAGE_TIMEOUT_MS, idleTimeoutMs };
}

/** The text fields an edit sends: the mapped model and the client's validated options, nothing else. */
function editFields(call: ImageCall): Record<string, string> {
  const fields: Record<string, string> = { model: call.upstreamModel };
  for (const [name, value] of Object.entries(call.options.upstreamFields)) fields[name] = String(value);
  return fields;
}

/** The filename a part carries: the client's, or one made from the field and the format. */
function partFilename(field: string, filename: string, format: ImageFormat): string {
  return filename || `${field.replace(/\W/g, "") || "image"}.${format === "jpeg" ? "jpg" : format}`;
}

/**
 * The edit as the upload arrives (LiveEdit in lib/providers/image-types.ts), on the live multipart request of
 * ./live-upload.ts: file parts written as they come, the text fields and the closing boundary only in finish(). The
 * upstream's answer, or its failure, before finish() means that channel has failed; finish() reports it.
 */
function openEdit(
  endpoint: Endpoint,
  { channel, upstreamModel, signal }: { channel: Channel; upstreamModel: string; signal: AbortSignal },
): LiveEdit {
  const live = openLiveMultipart(
    endpoint.url(channel, "images/edits", upstreamModel),
    { accept: "application/json", ...endpoint.auth(channel) },
    { signal, ...deadlines(channel) },
  );
  return {
    file: (part, head, rest) =>
      live.file(
        { field: part.field, filename: partFilename(part.field, part.filename, part.format), contentType: `image/${part.format}` },
        head,
        rest,
      ),
    finish: async (call) => readAnswer(call, await live.finish(Object.entries(editFields(call)))),
    abort: () => live.abort(),
  };
}

export function imagesApiAdapter(endpoint: Endpoint): ImageAdapter {
  return {
    openEdit: (target) => openEdit(endpoint, target),

    async generate(call) {
      const body = { model: call.upstreamModel, ...call.options.upstreamFields };
      const result = await upstreamFetch(
        endpoint.url(call.channel, "images/generations", call.upstreamModel),
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...endpoint.auth(call.channel) },
          body: JSON.stringify(body),
        },
        { signal: call.signal, ...deadlines(call.channel) },
      );
      return readAnswer(call, result);
    },

    async edit(call) {
      // The files under the field names the client used, images first and in order, then the mask.
      const files = [...call.images, ...(call.mask ? [call.mask] : [])].map((upload) => ({
        field: upload.field,
        filename: partFilename(upload.field, upload.filename, upload.info.format),
        contentType: `image/${upload.info.format}`,
        path: upload.path,
        size: upload.size,
      }));
      const multipart = multipartBody(editFields(call), files);
      const result = await upstreamFetch(
        endpoint.url(call.channel, "images/edits", call.upstreamModel),
        {
          method: "POST",
          headers: {
            "content-type": multipart.contentType,
            "content-length": String(multipart.contentLength),
            accept: "application/json",
            ...endpoint.auth(call.channel),
          },
          // A Node stream: undici sends it as it is, without a Web stream adapter.
          body: multipart.nodeStream() as unknown as Readable,
          duplex: "half",
        } as UpstreamInit,
        { signal: call.signal, ...deadlines(call.channel) },
      );
      return readAnswer(call, result);
    },
  };
}
