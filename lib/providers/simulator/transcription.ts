// `simulator` channels, /v1/audio/transcriptions: a transcript that says it is simulated and gives the duration the
// gateway measured from the file's header, in each response format: json, text, srt and vtt (one cue spanning the
// whole duration), verbose_json (duration, language, one segment, and words when asked for). It reads no audio, so
// the gateway never stores the upload for it; it reports no usage, so the measured duration is charged.
import type { TranscriptionAdapter, TranscriptionCall } from "@/lib/providers/audio-types";

/** "00:00:03,420" (srt) or "00:00:03.420" (vtt). */
export function timestamp(seconds: number, separator: "," | "."): string {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const hours = Math.floor(millis / 3_600_000);
  const minutes = Math.floor((millis % 3_600_000) / 60_000);
  const secs = Math.floor((millis % 60_000) / 1000);
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}${separator}${pad(millis % 1000, 3)}`;
}

/** The words of the simulated transcript. */
export function simulatedText(duration: number): string {
  return `This is a simulated transcription of ${duration.toFixed(2)} seconds of audio.`;
}

/** A language's name as verbose_json gives it ("english"), for the codes most asked for; the code otherwise. */
const LANGUAGE_NAMES: Record<string, string> = {
  en: "english",
  de: "german",
  es: "spanish",
  fr: "french",
  it: "italian",
  ja: "japanese",
  nl: "dutch",
  pt: "portuguese",
  zh: "chinese",
};

function verbose(call: TranscriptionCall, text: string, duration: number) {
  const language = call.options.language ? (LANGUAGE_NAMES[call.options.language.toLowerCase()] ?? call.options.language) : "english";
  const words = text.split(" ");
  const wordTimes = words.map((word, index) => ({
    word: word.replace(/[.,]$/, ""),
    start: Math.round(((index * duration) / words.length) * 1000) / 1000,
    end: Math.round((((index + 1) * duration) / words.length) * 1000) / 1000,
  }));
  const segment = {
    id: 0,
    seek: 0,
    start: 0,
    end: Math.round(duration * 1000) / 1000,
    text: ` ${text}`,
    tokens: [],
    temperature: 0,
    avg_logprob: 0,
    compression_ratio: 1,
    no_speech_prob: 0,
  };
  const granularities = call.options.granularities;
  return {
    task: "transcribe",
    language,
    duration,
    text,
    ...(granularities.length === 0 || granularities.includes("segment") ? { segments: [segment] } : {}),
    ...(granularities.includes("word") ? { words: wordTimes } : {}),
  };
}

export const simulatorTranscriptionAdapter: TranscriptionAdapter = {
  readsFile: false,
  async transcribe(call) {
    const duration = Math.round(call.file.info.duration * 1000) / 1000;
    const text = simulatedText(duration);
    const json = (value: unknown) => ({
      ok: true as const,
      contentType: "application/json",
      body: Buffer.from(JSON.stringify(value)),
      seconds: null,
    });
    const plain = (value: string) => ({
      ok: true as const,
      contentType: "text/plain; charset=utf-8",
      body: Buffer.from(value),
      seconds: null,
    });
    switch (call.options.format) {
      case "json":
        return json({ text });
      case "verbose_json":
        return json(verbose(call, text, duration));
      case "text":
        return plain(`${text}\n`);
      case "srt":
        return plain(`1\n${timestamp(0, ",")} --> ${timestamp(duration, ",")}\n${text}\n\n`);
      case "vtt":
        return plain(`WEBVTT\n\n${timestamp(0, ".")} --> ${timestamp(duration, ".")}\n${text}\n\n`);
    }
  },
};
