// `simulator` channels, /v1/audio/speech: the text spoken by the simulator's voice (./voice.ts), as a file a player
// plays: WAV and PCM (24 kHz, 16-bit, mono, as OpenAI's pcm) written here, MP3 encoded with lamejs (pure JavaScript).
// Opus, AAC and FLAC are not written (no maintained pure-JavaScript encoder): a request for them goes to another
// channel, or is refused naming the formats the simulator has. With `stream_format: "sse"` the same bytes go out as
// `speech.audio.delta` events (base64), then `speech.audio.done`.
//
// The work is bounded by the text (4,096 characters at speed 0.25 are 16 minutes of audio) and done in slices of at
// most SLICE_MS, the event loop let go between them, as the client reads: a client that stops reading stops it.
import { setImmediate as nextTurn } from "node:timers/promises";
import { SPEECH_CONTENT_TYPES, type SpeechFormat, type SpeechOptions } from "@/lib/wire/audio-request";
import type { SpeechAdapter } from "@/lib/providers/audio-types";
import { SAMPLE_RATE, Synthesizer } from "./voice";

/** The formats the simulator writes. */
export const SIMULATOR_SPEECH_FORMATS = ["mp3", "wav", "pcm"] as const satisfies readonly SpeechFormat[];

/** How long one slice of synthesis and encoding may run before the event loop is let go. */
export const SLICE_MS = 2;
/** Samples made and encoded at a time: one MPEG-2 Layer III frame pair (1,152 samples, 48 ms at 24 kHz). */
const BLOCK = 1_152;
/** Bytes gathered before they are handed on (the first slice goes at once). */
const HAND_ON_BYTES = 16 * 1024;
/** The MP3's bit rate, kbit/s: plenty for a 24 kHz mono voice. */
const MP3_KBPS = 64;

type Encoder = { encode(samples: Int16Array): Uint8Array; end(): Uint8Array };

function pcmEncoder(): Encoder {
  return {
    // Copied (the block is reused); Int16Array is little-endian on x86-64 and arm64, as pcm and WAV are.
    encode: (samples) => Buffer.from(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)),
    end: () => new Uint8Array(0),
  };
}

async function mp3Encoder(): Promise<Encoder> {
  // Loaded on first use, as the simulator's MP3 is the only user.
  const { Mp3Encoder } = await import("@breezystack/lamejs");
  const encoder = new Mp3Encoder(1, SAMPLE_RATE, MP3_KBPS);
  // lamejs answers Int8Arrays over its own buffers: viewed as bytes, then copied, since it reuses them.
  const bytes = (data: Uint8Array | Int8Array) => Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return { encode: (samples) => bytes(encoder.encodeBuffer(samples)), end: () => bytes(encoder.flush()) };
}

/** The 44-byte header of a PCM WAV file holding `samples` 16-bit mono samples. */
export function wavHeader(samples: number): Buffer {
  const header = Buffer.alloc(44);
  const data = samples * 2;
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data, 40);
  return header;
}

/** The audio file of `options`, in slices: WAV's header first, MP3's last frames at the end. */
export async function* speechFile(options: Pick<SpeechOptions, "input" | "voice" | "speed" | "format">): AsyncGenerator<Uint8Array> {
  const synthesizer = new Synthesizer(options.input, options.voice, options.speed);
  const encoder = options.format === "mp3" ? await mp3Encoder() : pcmEncoder();
  const block = new Int16Array(BLOCK);
  let gathered: Uint8Array[] = options.format === "wav" ? [wavHeader(synthesizer.total)] : [];
  let size = gathered[0]?.length ?? 0;
  let first = true;
  while (synthesizer.remaining > 0) {
    const started = performance.now();
    do {
      const made = synthesizer.next(block);
      const encoded = encoder.encode(made === BLOCK ? block : block.subarray(0, made));
      if (encoded.length) {
        gathered.push(encoded);
        size += encoded.length;
      }
    } while (synthesizer.remaining > 0 && performance.now() - started < SLICE_MS);
    if (synthesizer.remaining === 0) {
      const last = encoder.end();
      if (last.length) gathered.push(last);
    }
    if ((first || size >= HAND_ON_BYTES || synthesizer.remaining === 0) && gathered.length) {
      first = false;
      yield gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered);
      gathered = [];
      size = 0;
    }
    if (synthesizer.remaining > 0) await nextTurn();
  }
}

/** The same bytes as server-sent events: one `speech.audio.delta` per piece (base64), then `speech.audio.done`. */
async function* speechEvents(file: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const piece of file) {
    yield Buffer.from(`data: ${JSON.stringify({ type: "speech.audio.delta", audio: Buffer.from(piece).toString("base64") })}\n\n`);
  }
  yield Buffer.from(`data: ${JSON.stringify({ type: "speech.audio.done" })}\n\n`);
}

export const simulatorSpeechAdapter: SpeechAdapter = {
  formats: SIMULATOR_SPEECH_FORMATS,
  async speak(call) {
    const { options } = call;
    if (!(SIMULATOR_SPEECH_FORMATS as readonly string[]).includes(options.format))
      return {
        ok: false,
        retryable: true,
        status: 400,
        message: `The simulator writes ${SIMULATOR_SPEECH_FORMATS.join(", ")}; '${options.format}' needs a channel whose upstream has it`,
        cause: "unsupported_format",
      };
    const file = speechFile(options);
    return options.sse
      ? { ok: true, contentType: "text/event-stream", chunks: speechEvents(file) }
      : { ok: true, contentType: SPEECH_CONTENT_TYPES[options.format], chunks: file };
  },
};
