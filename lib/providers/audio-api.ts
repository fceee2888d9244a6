// The audio API of every upstream that speaks OpenAI's (`openai` and `azure` channels, each with its own Endpoint,
// ./endpoint.ts):
//   Speech:         POST .../audio/speech (JSON) → the audio file's bytes, or server-sent events with stream_format "sse"
//   Transcriptions: POST .../audio/transcriptions (multipart) → JSON, or text for text / srt / vtt
// The upstream gets the mapped model, the channel's key and the client's validated fields only. The speech comes back
// as the upstream sends it, chunk by chunk; an upload goes on as it arrives (open), or from its temporary file when it
// was stored first. A transcript is small: it is read whole, and the seconds the upstream billed read from it.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { bodyFailure, channelDeadlines, readUpstreamBytes, upstreamBody, upstreamFetch, type FetchResult, type UpstreamInit } from "./http";
import { closingPart, FILE_PART_END, fieldPart, filePartHeader, multipartBoundary } from "@/lib/platform/http/multipart";
import { SPEECH_CONTENT_TYPES } from "@/lib/wire/audio-request";
import { openLiveMultipart } from "./live-upload";
import type { Channel } from "@/lib/channels";
import type { Endpoint } from "./endpoint";
import type { SpeechAdapter, TranscriptionAdapter, TranscriptionCall, TranscriptionOutcome } from "./audio-types";
import type { UpstreamFailure } from "./types";

/** A transcript larger than this is refused rather than held in memory (an hour of speech is ~60 KB of text). */
export const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

/** How long a transcription may take before the upstream counts as timed out, unless the channel sets `timeoutMs`. */
export const TRANSCRIPTION_TIMEOUT_MS = 300_000;

function failure(message: string, cause: string): UpstreamFailure {
  return { ok: false, retryable: true, status: 502, message, cause };
}

function deadlines(channel: Channel, fallback?: number): { timeoutMs?: number; idleTimeoutMs?: number } {
  const { timeoutMs, idleTimeoutMs } = channelDeadlines(channel.settings);
  return { timeoutMs: timeoutMs ?? fallback, idleTimeoutMs };
}

/** The seconds an OpenAI transcript says were billed: `usage.seconds` (`type: "duration"`), else `duration`. */
export function reportedSeconds(answer: unknown): number | null {
  if (!answer || typeof answer !== "object") return null;
  const { usage, duration } = answer as { usage?: { type?: unknown; seconds?: unknown }; duration?: unknown };
  const valid = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0;
  if (usage && typeof usage === "object" && valid(usage.seconds)) return usage.seconds as number;
  return valid(duration) ? (duration as number) : null;
}

/** The transcript as the gateway's result: the upstream's bytes unchanged, the billed seconds read from JSON. */
async function readTranscript(call: TranscriptionCall, result: FetchResult): Promise<TranscriptionOutcome> {
  if (!result.ok) return result;
  let raw: Buffer | null;
  try {
    raw = await readUpstreamBytes(result.response, MAX_TRANSCRIPT_BYTES);
  } catch (error) {
    return bodyFailure(error, call.signal);
  }
  if (raw === null)
    return failure(`The upstream's transcript is larger than ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MB`, "upstream_too_large");
  const json = call.options.format === "json" || call.options.format === "verbose_json";
  let seconds: number | null = null;
  if (json) {
    let answer: unknown;
    try {
      answer = JSON.parse(raw.toString("utf8"));
    } catch {
      return failure("The upstream's transcript is not valid JSON", "upstream_malformed");
    }
    if (!answer || typeof answer !== "object" || typeof (answer as { text?: unknown }).text !== "string")
      return failure("The upstream's transcript has no 'text'", "upstream_malformed");
    seconds = reportedSeconds(answer);
  }
  const declared = result.response.headers.get("content-type");
  const contentType = json ? "application/json" : declared && !/json/i.test(declared) ? declared : "text/plain; charset=utf-8";
  return { ok: true, contentType, body: raw, seconds };
}

function fieldsOf(call: TranscriptionCall): [string, string][] {
  return [["model", call.upstreamModel], ...call.options.upstreamFields];
}

/** The file's name upstream: the client's, or one with the extension of its format (the vendor reads the extension). */
export function uploadFilename(filename: string, format: string): string {
  const given = filename.replace(/[\r\n"]/g, "").slice(-200);
  return given && /\.[A-Za-z0-9]{2,5}$/.test(given) ? given : `audio.${format}`;
}

/** The form of a stored upload: the fields, then the file read from disk as the body is pulled. */
function storedForm(call: TranscriptionCall): { contentType: string; contentLength: number; stream: Readable } {
  const boundary = multipartBoundary();
  const fields = fieldsOf(call).map(([name, value]) => fieldPart(boundary, name, value));
  const { file } = call;
  const header = filePartHeader(boundary, "file", uploadFilename(file.filename, file.info.format), file.info.mimeType);
  const closing = closingPart(boundary);
  const contentLength =
    fields.reduce((total, part) => total + part.length, 0) + header.length + file.size + FILE_PART_END.length + closing.length;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* fields;
    yield header;
    if (file.size > 0) yield* createReadStream(file.path, { start: 0, end: file.size - 1, highWaterMark: 1024 * 1024 });
    yield FILE_PART_END;
    yield closing;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength,
    stream: Readable.from(chunks(), { objectMode: false }),
  };
}

export function speechApiAdapter(endpoint: Endpoint): SpeechAdapter {
  return {
    async speak(call) {
      const { options } = call;
      const result = await upstreamFetch(
        endpoint.url(call.channel, "audio/speech", call.upstreamModel),
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: options.sse ? "text/event-stream" : "*/*",
            ...endpoint.auth(call.channel),
          },
          body: JSON.stringify({ model: call.upstreamModel, ...options.upstreamFields }),
        },
        { signal: call.signal, ...deadlines(call.channel) },
      );
      if (!result.ok) return result;
      const declared = result.response.headers.get("content-type");
      const contentType = declared ?? (options.sse ? "text/event-stream" : SPEECH_CONTENT_TYPES[options.format]);
      return { ok: true, contentType, chunks: upstreamBody(result.response) as AsyncIterable<Uint8Array> };
    },
  };
}

export function transcriptionApiAdapter(endpoint: Endpoint): TranscriptionAdapter {
  return {
    readsFile: true,

    async transcribe(call) {
      const form = storedForm(call);
      const result = await upstreamFetch(
        endpoint.url(call.channel, "audio/transcriptions", call.upstreamModel),
        {
          method: "POST",
          headers: {
            "content-type": form.contentType,
            "content-length": String(form.contentLength),
            accept: "application/json, text/plain",
            ...endpoint.auth(call.channel),
          },
          body: form.stream,
          duplex: "half",
        } as UpstreamInit,
        { signal: call.signal, ...deadlines(call.channel, TRANSCRIPTION_TIMEOUT_MS) },
      );
      return readTranscript(call, result);
    },

    open({ channel, upstreamModel, signal }) {
      const live = openLiveMultipart(
        endpoint.url(channel, "audio/transcriptions", upstreamModel),
        { accept: "application/json, text/plain", ...endpoint.auth(channel) },
        { signal, ...deadlines(channel, TRANSCRIPTION_TIMEOUT_MS) },
      );
      return {
        file: (part, head, rest) => live.file({ field: part.field, filename: part.filename, contentType: part.mimeType }, head, rest),
        finish: async (call) => readTranscript(call, await live.finish(fieldsOf(call))),
        abort: () => live.abort(),
      };
    },
  };
}
