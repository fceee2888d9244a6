// Token counting for quota reservations and for the simulator's usage numbers.
// Encoding: o200k_base (GPT-4o and later, https://github.com/openai/tiktoken), with gpt-tokenizer's rank file read
// into a compact table (lib/money/bpe.ts).
// Claude uses its own tokenizer, which is not public; o200k_base is a fair stand-in for an estimate
// that is settled against the upstream's reported usage afterwards (docs/decisions/0003-reserve-then-settle.md).
import { countTokens, decode, encode } from "./bpe";

/**
 * How much text is counted exactly before the rest is estimated, in ASCII characters; a non-ASCII character
 * counts as `NON_ASCII_COST` of them. Measured on a 2-core machine (tests/unit/tokens.test.ts): English and code
 * cost ~0.1–0.3 µs per character, but CJK text ~3.5 µs (the tokenizer looks up partial UTF-8 byte pairs by
 * binary search). The budget keeps any prompt, whatever its length or script, to a few milliseconds.
 */
export const EXACT_COUNT_CHARS = 8_192;
const NON_ASCII_COST = 8;

/**
 * How much of one request is counted exactly, in the same units, when the count is for its reservation (a
 * `CountStats` is passed). Past it each text is estimated from samples like a long text's tail, or counted whole
 * when it is short. A request as Claude Code sends it late in a session (~400 KB: system prompt, 24 tool schemas,
 * file contents) took 20-40 ms to count exactly; bounded, a few (bench/RESULTS.md, docs/decisions/0017-counting-long-requests.md).
 * The reservation never goes below the request's bytes / 4 whatever the count (lib/money/reservation.ts).
 */
export const REQUEST_EXACT_CHARS = 32_768;

/** The tokenizer's byte-pair merge is quadratic in the length of one pre-token (a run of letters with no
 * space: CJK text, base64, a long identifier), so text is fed to it in pieces: cut before whitespace within
 * this many characters when there is some (o200k attaches the space to the next word, so the count is
 * unchanged), otherwise a hard cut after `RUN_CHARS` (which may add about one token per cut, under 2%). */
const SEGMENT_CHARS = 256;
const RUN_CHARS = 64;

/** Evenly spaced windows of the estimated tail that are counted exactly, to learn its density. */
const SAMPLE_WINDOWS = 8;
const SAMPLE_WINDOW_CHARS = 128;

/** The floor on tokens per character for the estimated tail: chars / 3, rounded up. English and code run
 * near 1/4, so this leans high, as a reservation should; denser text (base64, CJK) is caught by sampling. */
const MIN_TAIL_DENSITY = 1 / 3;

/** OpenAI charges a fixed 765 tokens for a high-detail 1024x1024 image tile set; used for every image part
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs). */
export const CHAT_IMAGE_TOKENS = 765;
/** The most one image can cost at high detail: 768x2048 after scaling, 8 tiles (85 + 8 x 170). The reservation
 * counts every chat image at this, since the gateway does not decode them. */
export const CHAT_IMAGE_MAX_TOKENS = 1_445;

/** Anthropic charges about width*height/750 tokens per image, at most ~1,600 for the largest image it accepts
 * unresized (https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs). */
export const MESSAGES_IMAGE_TOKENS = 1_600;

/** Role markers and separators that wrap each message (OpenAI cookbook: 3 per message, rounded up). */
export const TOKENS_PER_MESSAGE = 4;

/** Every reply is primed with `<|start|>assistant<|message|>` (OpenAI cookbook). */
const REPLY_PRIMING_TOKENS = 3;

/** Anthropic adds a tool-use system prompt whenever tools are present: 346 tokens for Claude 4 models
 * with tool_choice auto (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview#pricing). */
const MESSAGES_TOOL_SYSTEM_TOKENS = 346;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isBreak(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13;
}

/** Where the piece of `text` that starts at `position` ends (see `SEGMENT_CHARS`). */
function nextCut(text: string, position: number, end: number): number {
  const cut = position + SEGMENT_CHARS;
  if (cut >= end) return end;
  for (let space = cut; space > position; space--) if (isBreak(text.charCodeAt(space))) return space;
  const hard = position + RUN_CHARS;
  return isHighSurrogate(text.charCodeAt(hard - 1)) ? hard - 1 : hard; // never split a surrogate pair
}

function countRange(text: string, start: number, end: number): number {
  let total = 0;
  for (let position = start; position < end; ) {
    const cut = nextCut(text, position, end);
    total += countTokens(text.slice(position, cut));
    position = cut;
  }
  return total;
}

/**
 * Every token of `text` counted, none estimated (linear in its length, see `SEGMENT_CHARS`), for a charge that is the
 * count itself (/v1/embeddings). Stops once the count passes `stopAbove`: the result is then some number above it.
 */
export function countAllTextTokens(text: string, stopAbove = Infinity): number {
  let total = 0;
  for (let position = 0; position < text.length && total <= stopAbove; ) {
    const cut = nextCut(text, position, text.length);
    total += countTokens(text.slice(position, cut));
    position = cut;
  }
  return total;
}

/**
 * Tokens in `text` (o200k_base). Exact (within ~2% for long runs without spaces, see `SEGMENT_CHARS`) for the
 * first `EXACT_COUNT_CHARS` ASCII characters, or 1/8 as many non-ASCII ones. Beyond that, the tail is estimated
 * as ceil(tail length × density), where density is the larger of 1/3 token per character and the density
 * measured on a few sampled windows of the tail: it leans high because it sizes a reservation. With `stats`, the
 * exact part also draws on (and spends) the request's budget, `REQUEST_EXACT_CHARS`.
 */
export function countTextTokens(text: string, stats?: CountStats): number {
  let total = 0;
  let position = 0;
  const allowed = stats ? Math.min(EXACT_COUNT_CHARS, stats.exactChars) : EXACT_COUNT_CHARS;
  let budget = allowed;
  while (position < text.length && budget > 0) {
    const cut = nextCut(text, position, text.length);
    for (let index = position; index < cut; index++) budget -= text.charCodeAt(index) < 128 ? 1 : NON_ASCII_COST;
    total += countTokens(text.slice(position, cut));
    position = cut;
  }
  if (stats) stats.exactChars = Math.max(0, stats.exactChars - (allowed - budget));
  if (position >= text.length) return total;

  // A tail no longer than the samples would be is counted whole.
  const tailStart = position;
  const tailLength = text.length - tailStart;
  if (tailLength <= SAMPLE_WINDOWS * SAMPLE_WINDOW_CHARS) return total + countRange(text, tailStart, text.length);

  // The tail's own density, from evenly spaced windows; the head says little about what follows it
  // (a short question before a pasted log or base64 blob).
  let sampledTokens = 0;
  let sampledChars = 0;
  const stride = Math.floor(tailLength / SAMPLE_WINDOWS);
  for (let window = 0; window < SAMPLE_WINDOWS; window++) {
    let start = tailStart + window * stride;
    if (isHighSurrogate(text.charCodeAt(start - 1))) start++;
    let end = Math.min(start + SAMPLE_WINDOW_CHARS, text.length);
    if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
    if (end <= start) continue;
    sampledTokens += countRange(text, start, end);
    sampledChars += end - start;
  }
  const density = sampledChars > 0 ? Math.max(MIN_TAIL_DENSITY, sampledTokens / sampledChars) : MIN_TAIL_DENSITY;
  return total + Math.ceil(tailLength * density);
}

/**
 * The first `maxTokens` tokens of `text`, for cutting generated text at a token limit.
 * Only meant for short texts (the simulator's answers); it encodes the whole text.
 */
export function truncateToTokens(text: string, maxTokens: number): { text: string; tokens: number; truncated: boolean } {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return { text, tokens: tokens.length, truncated: false };
  const limit = Math.max(0, Math.floor(maxTokens));
  // A cut inside a multibyte character decodes to U+FFFD; drop it rather than show it.
  return { text: decode(tokens.slice(0, limit)).replace(/\uFFFD+$/, ""), tokens: limit, truncated: true };
}

/** JSON of anything that is not plain text (tool arguments, schemas, unknown blocks), as the model sees it. */
function countJsonTokens(value: unknown, stats?: CountStats): number {
  if (value === undefined || value === null) return 0;
  return countTextTokens(typeof value === "string" ? value : JSON.stringify(value), stats);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What a count saw besides tokens, for the reservation's bound (lib/money/reservation.ts): characters of inline
 * media (images, files) that are priced by their own formula rather than by size, and the longest prompt-cache
 * write the request asks for (a write costs more than fresh input).
 */
export type CountStats = {
  mediaChars: number;
  cacheWrite: "none" | "5m" | "1h";
  imageHeadroom: number;
  /** What is left of `REQUEST_EXACT_CHARS`. */
  exactChars: number;
  /** Every text counted exactly, when that count was made already, off the event loop (a body worker,
   *  lib/gateway/text-request.ts): what `countForCharge` then uses. */
  whole?: number;
};

export function newCountStats(): CountStats {
  return { mediaChars: 0, cacheWrite: "none", imageHeadroom: 0, exactChars: REQUEST_EXACT_CHARS };
}

/**
 * The count a charge uses when the upstream reports no usage: every text counted, never the request budget's
 * estimate. It is the reservation's own count when that spent less than its budget, else the whole count made with it
 * (`stats.whole`), else `countWhole()`, run on the first call only.
 */
export function countForCharge(reservationCount: number, stats: CountStats, countWhole: () => number): () => number {
  let counted = stats.exactChars > 0 ? reservationCount : stats.whole;
  return () => (counted ??= countWhole());
}

function noteCacheControl(value: unknown, stats: CountStats | undefined): void {
  if (!stats || !isObject(value) || !isObject(value.cache_control)) return;
  if (value.cache_control.ttl === "1h") stats.cacheWrite = "1h";
  else if (stats.cacheWrite === "none") stats.cacheWrite = "5m";
}

function noteMedia(value: unknown, stats: CountStats | undefined): void {
  if (stats && typeof value === "string") stats.mediaChars += value.length;
}

/** A data URI or base64 payload says nothing to the tokenizer; its size only matters for files. */
function base64Length(source: unknown): number {
  if (!isObject(source)) return 0;
  const data = typeof source.data === "string" ? source.data : typeof source.file_data === "string" ? source.file_data : "";
  return data.length;
}

/** A PDF or other file whose page count is unknown: assume ~1 token per 4 decoded bytes (upper-leaning for
 * PDFs, which cost about 1,500–3,000 tokens per page of ~10–50 KB). */
function fileTokens(base64Chars: number): number {
  return Math.ceil((base64Chars * 3) / 4 / 4);
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat/create)

/** The parts of a chat message that cost input tokens; extra fields are ignored. */
export interface ChatMessageLike {
  role?: string;
  content?: unknown;
  name?: string | null;
  tool_calls?: unknown;
  tool_call_id?: string | null;
}

function countChatContent(content: unknown, stats?: CountStats): number {
  if (typeof content === "string") return countTextTokens(content, stats);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) {
    if (!isObject(part)) continue;
    switch (part.type) {
      case "text":
      case "input_text":
        total += countTextTokens(typeof part.text === "string" ? part.text : "", stats);
        break;
      case "refusal":
        total += countTextTokens(typeof part.refusal === "string" ? part.refusal : "", stats);
        break;
      case "image_url":
      case "input_image":
        total += CHAT_IMAGE_TOKENS;
        if (stats) stats.imageHeadroom += CHAT_IMAGE_MAX_TOKENS - CHAT_IMAGE_TOKENS;
        noteMedia(isObject(part.image_url) ? part.image_url.url : part.image_url, stats);
        break;
      case "file":
        total += fileTokens(base64Length(part.file));
        noteMedia(isObject(part.file) ? part.file.file_data : undefined, stats);
        break;
      case "input_audio":
        // ~10 tokens per second of audio; 16 kB/s of base64 WAV is a typical upper bound.
        total += Math.ceil(base64Length(isObject(part.input_audio) ? part.input_audio : undefined) / 1_600);
        noteMedia(isObject(part.input_audio) ? part.input_audio.data : undefined, stats);
        break;
      default:
        total += countJsonTokens(part, stats);
    }
  }
  return total;
}

/**
 * Input tokens of OpenAI chat messages: text parts exactly (see `countTextTokens`), each image part a fixed
 * `CHAT_IMAGE_TOKENS`, assistant tool calls as their name and arguments, plus `TOKENS_PER_MESSAGE` per message
 * and the reply priming. `system` is an extra system prompt counted as one more message.
 */
export function countChatInputTokens(messages: readonly ChatMessageLike[], system?: string, stats?: CountStats): number {
  let total = REPLY_PRIMING_TOKENS;
  if (system) total += TOKENS_PER_MESSAGE + countTextTokens(system, stats);
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countChatContent(message.content, stats);
    // The schemas pass unknown fields on as they came: a name that is not a string is counted as JSON, not trusted.
    if (message.name)
      total += 1 + (typeof message.name === "string" ? countTextTokens(message.name, stats) : countJsonTokens(message.name, stats));
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        const fn = isObject(call) && isObject(call.function) ? call.function : {};
        total += TOKENS_PER_MESSAGE + countJsonTokens(fn.name, stats) + countJsonTokens(fn.arguments, stats);
      }
    }
  }
  return total;
}

/**
 * Chat Completions fields that cost no input: sampling settings, limits, flags and ids. Everything else in a request
 * is read by the model or may be: the fields counted below by their meaning, and any field the gateway does not
 * know by its serialized size (docs/billing.md, the request-field table).
 */
const CHAT_UNPRICED: ReadonlySet<string> = new Set([
  "model",
  "max_tokens",
  "max_completion_tokens",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "n",
  "stop",
  "seed",
  "user",
  "metadata",
  "logprobs",
  "top_logprobs",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "parallel_tool_calls",
  "tool_choice",
  "function_call",
  "reasoning_effort",
  "service_tier",
  "store",
  "verbosity",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "web_search_options",
]);

/**
 * Input tokens of a whole Chat Completions request: the messages (`countChatInputTokens`), the tool and legacy
 * function definitions, the response format's schema, a predicted output, and every field the gateway does not
 * know, as JSON. `stats` collects what the reservation needs besides the count.
 */
export function countChatRequestInputTokens(
  body: { messages: readonly ChatMessageLike[]; tools?: readonly unknown[] | null },
  stats?: CountStats,
): number {
  let total = countChatInputTokens(body.messages, undefined, stats);
  for (const [field, value] of Object.entries(body as object)) {
    if (field === "messages" || value === undefined || value === null || CHAT_UNPRICED.has(field)) continue;
    if ((field === "tools" || field === "functions") && Array.isArray(value))
      for (const tool of value) total += countJsonTokens(tool, stats);
    else if (field === "prediction" && isObject(value))
      total += typeof value.content === "string" ? countTextTokens(value.content, stats) : countChatContent(value.content, stats);
    else total += countJsonTokens(value, stats);
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages (https://docs.anthropic.com/en/api/messages)

/** The parts of a Messages request that cost input tokens; extra fields are ignored. */
export interface MessagesBodyLike {
  system?: unknown;
  messages: readonly { role?: string; content?: unknown }[];
  tools?: readonly unknown[] | null;
}

function countMessagesContent(content: unknown, stats?: CountStats): number {
  if (typeof content === "string") return countTextTokens(content, stats);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const block of content) {
    if (!isObject(block)) continue;
    noteCacheControl(block, stats);
    switch (block.type) {
      case "text":
        total += countTextTokens(typeof block.text === "string" ? block.text : "", stats);
        break;
      case "image":
        total += MESSAGES_IMAGE_TOKENS;
        if (isObject(block.source)) noteMedia(block.source.data, stats);
        break;
      case "document": {
        const source = isObject(block.source) ? block.source : {};
        if (source.type === "text") total += countJsonTokens(source.data, stats);
        else if (source.type === "content") total += countMessagesContent(source.content, stats);
        else {
          total += fileTokens(base64Length(source)) || MESSAGES_IMAGE_TOKENS;
          noteMedia(source.data, stats);
        }
        break;
      }
      case "tool_use":
      case "server_tool_use":
        total += countJsonTokens(block.name, stats) + countJsonTokens(block.input, stats);
        break;
      case "tool_result":
        total += TOKENS_PER_MESSAGE + countMessagesContent(block.content, stats);
        break;
      case "thinking":
        total += countJsonTokens(block.thinking, stats);
        break;
      case "redacted_thinking":
        total += Math.ceil((typeof block.data === "string" ? block.data.length : 0) / 4);
        break;
      default:
        total += countJsonTokens(block, stats);
    }
  }
  return total;
}

/** Messages fields that cost no input: limits, sampling settings, flags and ids (see `CHAT_UNPRICED`). */
const MESSAGES_UNPRICED: ReadonlySet<string> = new Set([
  "model",
  "max_tokens",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "tool_choice",
  "thinking",
  "service_tier",
  "cache_control",
]);

/**
 * Input tokens of an Anthropic Messages request: the system prompt (string or blocks), every message (string or
 * blocks; images a fixed `MESSAGES_IMAGE_TOKENS`), `TOKENS_PER_MESSAGE` per message, the tool definitions plus
 * Anthropic's tool-use system prompt when tools are present, and every field the gateway does not know, as JSON.
 */
export function countMessagesInputTokens(body: MessagesBodyLike, stats?: CountStats): number {
  let total = REPLY_PRIMING_TOKENS;
  noteCacheControl(body, stats);
  for (const [field, value] of Object.entries(body as object)) {
    if (value === undefined || value === null || MESSAGES_UNPRICED.has(field)) continue;
    if (field === "system") total += countMessagesContent(value, stats);
    else if (field === "messages" && Array.isArray(value)) {
      for (const message of value)
        total += TOKENS_PER_MESSAGE + countMessagesContent(isObject(message) ? message.content : undefined, stats);
    } else if (field === "tools" && Array.isArray(value)) {
      if (value.length > 0) total += MESSAGES_TOOL_SYSTEM_TOKENS;
      for (const tool of value) {
        noteCacheControl(tool, stats);
        total += countJsonTokens(tool, stats);
      }
    } else total += countJsonTokens(value, stats);
  }
  return total;
}
