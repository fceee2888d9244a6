// What an upstream adapter does for the audio API (/v1/audio/speech and /v1/audio/transcriptions). Each channel type
// that has one names it in its Provider (lib/providers/registry.ts); the OpenAI-dialect types share
// lib/providers/audio-api.ts, the simulator has its own (lib/providers/simulator/speech.ts, transcription.ts).
import type { Channel } from "@/lib/channels";
import type { SpeechFormat, SpeechOptions, TranscriptionOptions } from "@/lib/wire/audio-request";
import type { UpstreamFailure } from "./types";

export type SpeechCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  options: SpeechOptions;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
};

/**
 * The audio as it is made: the file's bytes (or, with `stream_format: "sse"`, the event stream) chunk by chunk.
 * `chunks` throws when the upstream's answer is cut; whoever reads it must read it to its end or call return().
 */
export type SpeechSuccess = { ok: true; contentType: string; chunks: AsyncIterable<Uint8Array> };
export type SpeechOutcome = SpeechSuccess | UpstreamFailure;

export interface SpeechAdapter {
  /** The formats the adapter can write; every one when absent. A request for another goes to a channel that has it. */
  formats?: readonly SpeechFormat[];
  speak(call: SpeechCall): Promise<SpeechOutcome>;
}

/** What the gateway read from an uploaded audio file's own header (lib/gateway/audio/upload.ts). */
export type AudioInfo = {
  /** The file's format, as a file extension the vendor takes: mp3, mp4, m4a, wav, webm, ogg, flac. */
  format: string;
  /** Its media type, for the part sent upstream. */
  mimeType: string;
  /** Seconds of audio, fractions kept. */
  duration: number;
};

/** A transcription's file: on disk when it was stored (`path`), else only its header's reading (a live upload). */
export type AudioUpload = { field: string; filename: string; path: string; size: number; info: AudioInfo };

export type TranscriptionCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  options: TranscriptionOptions;
  file: AudioUpload;
  signal: AbortSignal;
};

/** The transcript, as the upstream wrote it (JSON or text), and the seconds it says it billed when it says so. */
export type TranscriptionSuccess = { ok: true; contentType: string; body: Buffer; seconds: number | null };
export type TranscriptionOutcome = TranscriptionSuccess | UpstreamFailure;

/**
 * A transcription sent upstream while the client is still uploading it (as image edits are,
 * docs/decisions/0015-edits-sent-while-uploaded.md): the file part goes on as it arrives; the text fields and the
 * closing boundary only in `finish`, once the upload was read and checked and the reservation made. Until then the
 * upstream holds an incomplete request it cannot act on (or bill), and `abort` drops it.
 */
export interface LiveTranscription {
  /** Sends the file part (its header, `head`, then `rest`); resolves when every byte was taken. Once the upstream has
   *  failed or the request was aborted, the bytes are read and dropped. */
  file(part: { field: string; filename: string; mimeType: string }, head: Buffer, rest: AsyncIterable<Buffer>): Promise<void>;
  /** Completes the request and reads the answer; the failure seen instead when the upstream failed during the upload. */
  finish(call: TranscriptionCall): Promise<TranscriptionOutcome>;
  /** Drops the request unless `finish` was called. */
  abort(): void;
}

export interface TranscriptionAdapter {
  /** Whether the adapter sends the file's bytes (false: the simulator, which reads only the measured duration). */
  readsFile: boolean;
  /** From the stored file (`call.file.path`), or from the duration alone when `readsFile` is false. */
  transcribe(call: TranscriptionCall): Promise<TranscriptionOutcome>;
  /** Opens a transcription to be sent as it is uploaded; absent where the adapter does not send the file. */
  open?(target: { channel: Channel; upstreamModel: string; signal: AbortSignal }): LiveTranscription;
}
