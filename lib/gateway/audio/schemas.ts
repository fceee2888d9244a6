// What the audio endpoints take and answer, for /openapi.json and the answer check (docs/routes.md): the multipart body
// of /v1/audio/transcriptions as the document describes it; the JSON body of /v1/audio/speech is the very schema the
// handler validates with (lib/wire/audio-request.ts).
import { z } from "zod";
import type { MultipartField } from "@/lib/platform/http/route-definition";

const option = (description: string) => ({ type: "string", description });

export const transcriptionMultipart: Record<string, MultipartField> = {
  file: {
    type: "string",
    format: "binary",
    description: "The audio: mp3, mp4, m4a, wav, webm, ogg or flac, at most 25 MB, whose header gives its duration",
  },
  model: option("Required: a transcription model (std-transcribe-1)"),
  language: option("The spoken language as an ISO-639-1 code, e.g. en"),
  prompt: option("Text to guide the style, or the previous segment's text"),
  response_format: option("json (the default), text, srt, verbose_json or vtt"),
  temperature: { type: "number", description: "0 to 1" },
  "timestamp_granularities[]": option("word and/or segment (repeat the field); verbose_json only"),
};

/** The media types /v1/audio/speech answers in. */
export const SPEECH_ANSWER_TYPES = [
  "audio/mpeg",
  "audio/opus",
  "audio/aac",
  "audio/flac",
  "audio/wav",
  "audio/pcm",
  "text/event-stream",
] as const;

/** /v1/audio/speech: the audio file's bytes (or `speech.audio.*` events with stream_format "sse"), never JSON. */
export const speechAnswer = z.string().describe("The audio, in the requested format (Content-Type audio/mpeg, audio/wav, audio/pcm, ...)");

/** /v1/audio/transcriptions as JSON (json and verbose_json); text, srt and vtt come as text/plain. */
export const transcriptionAnswer = z.looseObject({
  text: z.string(),
  duration: z.number().optional(),
  language: z.string().optional(),
  segments: z.array(z.looseObject({ start: z.number(), end: z.number(), text: z.string() })).optional(),
});
