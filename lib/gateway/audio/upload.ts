// What a transcription upload is, read while it arrives: its format from its first bytes, and its duration from the
// file's own header (music-metadata, fed the bytes as they pass; an MP3 without a header that states its length is
// measured frame by frame as it streams, never held whole). lib/gateway/audio/transcription.ts sends the same bytes
// upstream as they arrive and reserves the duration before the request is completed.
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { AudioInfo } from "@/lib/providers/audio-types";

/** The formats the vendor takes, by what a file starts with. */
export type AudioFormat = { format: string; mimeType: string };

/** Bytes enough to tell the formats apart (an MP4 brand sits at bytes 8-11). */
export const SNIFF_BYTES = 16;

const ascii = (head: Buffer, start: number, end: number) => head.toString("latin1", start, end);

/**
 * The format of a file from its first bytes: mp3 (an ID3 tag or an MPEG audio frame), mp4 / m4a (`ftyp`), wav
 * (RIFF WAVE), webm (EBML), ogg (`OggS`), flac (`fLaC`); null for anything else.
 */
export function sniffAudio(head: Buffer): AudioFormat | null {
  if (head.length >= 3 && ascii(head, 0, 3) === "ID3") return { format: "mp3", mimeType: "audio/mpeg" };
  // An MPEG audio frame: 11 sync bits, a version that exists, and a layer (ADTS AAC has layer 00).
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x18) !== 0x08 && (head[1]! & 0x06) !== 0)
    return { format: "mp3", mimeType: "audio/mpeg" };
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WAVE") return { format: "wav", mimeType: "audio/wav" };
  if (head.length >= 4 && ascii(head, 0, 4) === "fLaC") return { format: "flac", mimeType: "audio/flac" };
  if (head.length >= 4 && ascii(head, 0, 4) === "OggS") return { format: "ogg", mimeType: "audio/ogg" };
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return { format: "webm", mimeType: "audio/webm" };
  if (head.length >= 12 && ascii(head, 4, 8) === "ftyp") {
    const brand = ascii(head, 8, 12);
    return brand === "M4A " || brand === "M4B " ? { format: "m4a", mimeType: "audio/mp4" } : { format: "mp4", mimeType: "audio/mp4" };
  }
  return null;
}

/** The parser is given this much at a time (about 2 ms of its work on an MP3). */
export const PARSE_PIECE_BYTES = 32 * 1024;

/** How reading a file ended: its format and duration, or why it has none. */
export type AudioReading = { ok: true; info: AudioInfo } | { ok: false; reason: "not_audio" | "no_duration"; detail?: string };

/**
 * The duration of a file fed to it chunk by chunk. write() waits while the parser is behind (the upload waits with
 * it) and never throws; once the parser has what it needs, further bytes are not passed to it.
 */
export class DurationReader {
  readonly #stream = new PassThrough({ highWaterMark: PARSE_PIECE_BYTES });
  #done = false;
  readonly #result: Promise<{ duration?: number; error?: string }>;

  constructor(readonly format: AudioFormat) {
    // Loaded on first use (~60 ms here): a gateway that transcribes nothing does not pay for it at start.
    this.#result = import("music-metadata")
      .then(({ parseStream }) => parseStream(this.#stream, { mimeType: format.mimeType }, { duration: true, skipCovers: true }))
      .then(
        (metadata) => {
          this.#finish();
          const duration = metadata.format.duration;
          return typeof duration === "number" && Number.isFinite(duration) && duration > 0 ? { duration } : {};
        },
        (error: unknown) => {
          this.#finish();
          return { error: error instanceof Error ? error.message : String(error) };
        },
      );
  }

  #finish(): void {
    this.#done = true;
    // Whatever the parser left unread is dropped.
    this.#stream.resume();
  }

  async write(chunk: Buffer): Promise<void> {
    // In pieces, the event loop let go after each: the parser reads what it is given in one run of promise callbacks
    // (an MP3 is read frame by frame, ~65 µs of work per KB here), which for a whole 512 KB chunk held the loop.
    for (let offset = 0; offset < chunk.length && !this.#done; offset += PARSE_PIECE_BYTES) {
      const piece = offset === 0 && chunk.length <= PARSE_PIECE_BYTES ? chunk : chunk.subarray(offset, offset + PARSE_PIECE_BYTES);
      if (!this.#stream.write(piece)) await Promise.race([once(this.#stream, "drain").catch(() => undefined), this.#result]);
      await nextTurn();
    }
  }

  /** The reading once the whole file was written. */
  async end(): Promise<AudioReading> {
    if (!this.#done) this.#stream.end();
    const result = await this.#result;
    if (result.duration) return { ok: true, info: { ...this.format, duration: result.duration } };
    return { ok: false, reason: "no_duration", ...(result.error ? { detail: result.error } : {}) };
  }
}
