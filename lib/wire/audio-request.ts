// The requests of /v1/audio/speech (JSON) and /v1/audio/transcriptions (multipart text fields), as OpenAI's audio API
// takes them (docs/api.md §2.8): fields, defaults and allowed values. Pure: no database, no files. Unknown fields
// are ignored and never forwarded; each refusal is a 400 naming the field.
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { zodError } from "@/lib/platform/http/json";
import { MAX_AUDIO_UPLOAD_BYTES, VOICES } from "./audio-options";

/** OpenAI's built-in voices and the upload limit (lib/wire/audio-options.ts). */
export { MAX_AUDIO_UPLOAD_BYTES, VOICES };
export const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const;
export const STREAM_FORMATS = ["audio", "sse"] as const;
export const TRANSCRIPT_FORMATS = ["json", "text", "srt", "verbose_json", "vtt"] as const;
export const TIMESTAMP_GRANULARITIES = ["word", "segment"] as const;

export type Voice = (typeof VOICES)[number];
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** The content type of each speech format, as OpenAI answers it. */
export const SPEECH_CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

/** The vendor's limit on `instructions` (characters). */
export const MAX_INSTRUCTIONS_CHARACTERS = 4_096;
/** A transcription's `prompt` (characters): far more than the vendor's 224 tokens that it reads. */
export const MAX_TRANSCRIPTION_PROMPT_CHARACTERS = 10_000;

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

const text = (field: string, what: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined || issue.input === null
        ? `Send '${field}': it is required (${what})`
        : `must be a string; got ${describe(issue.input)}`,
  });

/** Characters as the vendor counts them (Unicode code points: an emoji is one, not two UTF-16 units). */
export function characterCount(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/** The JSON body of /v1/audio/speech (also the OpenAPI document's). */
export const speechRequestSchema = z.object({
  model: text("model", "the speech model, e.g. 'std-tts-1'"),
  input: text("input", "the text to speak").refine((value) => value.trim() !== "", { error: "must not be empty: give the text to speak" }),
  voice: z.enum(VOICES, {
    error: (issue) =>
      issue.input === undefined || issue.input === null
        ? `Send 'voice': it is required (one of ${VOICES.join(", ")})`
        : `must be one of ${VOICES.join(", ")}; got ${describe(issue.input)}`,
  }),
  instructions: z
    .string({ error: (issue) => `must be a string; got ${describe(issue.input)}` })
    .max(MAX_INSTRUCTIONS_CHARACTERS, { error: `must be at most ${MAX_INSTRUCTIONS_CHARACTERS.toLocaleString("en")} characters` })
    .nullish(),
  response_format: choice(SPEECH_FORMATS).nullish(),
  speed: z
    .number({ error: (issue) => `must be a number from 0.25 to 4; got ${describe(issue.input)}` })
    .min(0.25, { error: (issue) => `must be from 0.25 to 4; got ${describe(issue.input)}` })
    .max(4, { error: (issue) => `must be from 0.25 to 4; got ${describe(issue.input)}` })
    .nullish(),
  stream_format: choice(STREAM_FORMATS).nullish(),
});

export type SpeechOptions = {
  model: string;
  input: string;
  /** Code points of `input`: what is reserved and charged. */
  characters: number;
  voice: Voice;
  format: SpeechFormat;
  speed: number;
  instructions: string | undefined;
  /** `stream_format: "sse"`: the audio as server-sent events (base64 deltas) instead of the file's bytes. */
  sse: boolean;
  /** What an OpenAI-compatible upstream receives besides the (mapped) model: the validated fields only. */
  upstreamFields: Record<string, string | number>;
};

/** Throws GatewayError(invalid_request) naming the field and the rule. */
export function parseSpeechOptions(raw: Record<string, unknown>): SpeechOptions {
  const result = speechRequestSchema.safeParse(raw);
  if (!result.success) throw zodError(result.error);
  const body = result.data;
  const format = body.response_format ?? "mp3";
  const speed = body.speed ?? 1;
  const upstreamFields: Record<string, string | number> = { input: body.input, voice: body.voice, response_format: format };
  if (body.speed !== undefined && body.speed !== null) upstreamFields.speed = body.speed;
  if (body.instructions) upstreamFields.instructions = body.instructions;
  if (body.stream_format) upstreamFields.stream_format = body.stream_format;
  return {
    model: body.model,
    input: body.input,
    characters: characterCount(body.input),
    voice: body.voice,
    format,
    speed,
    instructions: body.instructions ?? undefined,
    sse: body.stream_format === "sse",
    upstreamFields,
  };
}

/** The most characters one request may speak, refused before any charge. */
export function checkSpeechLength(options: SpeechOptions, limit: number): void {
  if (options.characters > limit)
    throw new GatewayError(
      "invalid_request",
      `Invalid 'input': it is ${options.characters.toLocaleString("en")} characters long; '${options.model.slice(0, 100)}' speaks at most ${limit.toLocaleString("en")} characters per request`,
      { param: "input" },
    );
}

/** The text fields of /v1/audio/transcriptions (every value arrives as text). */
const transcriptionFieldsSchema = z.object({
  model: text("model", "the transcription model, e.g. 'std-transcribe-1'").refine((value) => value.trim() !== "", {
    error: "must not be empty",
  }),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, { error: "must be a language code such as 'en' (ISO-639-1)" })
    .optional(),
  prompt: z
    .string()
    .max(MAX_TRANSCRIPTION_PROMPT_CHARACTERS, {
      error: `must be at most ${MAX_TRANSCRIPTION_PROMPT_CHARACTERS.toLocaleString("en")} characters`,
    })
    .optional(),
  response_format: choice(TRANSCRIPT_FORMATS).optional(),
  temperature: z
    .string()
    .refine((value) => value.trim() !== "" && Number(value) >= 0 && Number(value) <= 1, { error: "must be a number from 0 to 1" })
    .optional(),
  stream: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
});

export type TranscriptionOptions = {
  model: string;
  language: string | undefined;
  prompt: string | undefined;
  format: TranscriptFormat;
  granularities: ("word" | "segment")[];
  /** The text fields an OpenAI-compatible upstream receives besides the (mapped) model, in order; a name may repeat. */
  upstreamFields: [string, string][];
};

/** The fields of a transcription form (`lists`: the values of the repeated `name[]` fields). */
export function parseTranscriptionOptions(fields: Record<string, string>, lists: Record<string, string[]>): TranscriptionOptions {
  const result = transcriptionFieldsSchema.safeParse(fields);
  if (!result.success) throw zodError(result.error);
  const body = result.data;
  if (body.stream === "true")
    throw new GatewayError("invalid_request", "Invalid 'stream': streamed transcriptions are not available here; leave 'stream' out", {
      param: "stream",
    });
  const format = body.response_format ?? "json";
  const granularities: ("word" | "segment")[] = [];
  for (const value of lists["timestamp_granularities[]"] ?? []) {
    if (!(TIMESTAMP_GRANULARITIES as readonly string[]).includes(value))
      throw new GatewayError(
        "invalid_request",
        `Invalid 'timestamp_granularities[]': must be 'word' or 'segment'; got ${describe(value)}`,
        {
          param: "timestamp_granularities[]",
        },
      );
    if (!granularities.includes(value as "word")) granularities.push(value as "word");
  }
  if (granularities.length && format !== "verbose_json")
    throw new GatewayError(
      "invalid_request",
      "Invalid 'timestamp_granularities[]': timestamps come only with response_format 'verbose_json'",
      { param: "timestamp_granularities[]" },
    );
  const upstreamFields: [string, string][] = [["response_format", format]];
  if (body.language) upstreamFields.push(["language", body.language]);
  if (body.prompt) upstreamFields.push(["prompt", body.prompt]);
  if (body.temperature !== undefined) upstreamFields.push(["temperature", body.temperature]);
  for (const granularity of granularities) upstreamFields.push(["timestamp_granularities[]", granularity]);
  return { model: body.model, language: body.language, prompt: body.prompt, format, granularities, upstreamFields };
}
