// The simulator's voice: a buzz shaped by formants, one sound per character of the text, as 16-bit mono samples at
// 24 kHz (OpenAI's pcm format). Not speech, but audio that a player plays and a listener hears follow the text:
// vowels sound like vowels (their two formants), other letters like a voiced consonant from their code, a few with a
// hiss (s, f, h, x, z, c), spaces and punctuation as pauses. Each voice has its own pitch; the pitch rises and falls
// over a phrase. Deterministic: the same text, voice and speed give the same samples.
import type { Voice } from "@/lib/wire/audio-request";

export const SAMPLE_RATE = 24_000;
/** Each character lasts this long at speed 1 (about 15 characters a second, as people read aloud). */
export const SECONDS_PER_CHARACTER = 0.06;

const PITCH: Record<Voice, number> = {
  alloy: 170,
  ash: 120,
  ballad: 140,
  cedar: 110,
  coral: 210,
  echo: 130,
  fable: 160,
  marin: 200,
  nova: 220,
  onyx: 100,
  sage: 180,
  shimmer: 230,
  verse: 150,
};

/** First and second formants (Hz) of the vowels. */
const VOWELS: Record<string, [number, number]> = {
  a: [800, 1200],
  e: [450, 2100],
  i: [300, 2600],
  o: [500, 900],
  u: [350, 750],
  y: [300, 2000],
};
const HISS = new Set(["s", "f", "h", "x", "z", "c"]);
const PAUSE = /[\s.,;:!?¡¿…"'()[\]{}\-–—]/u;

/** Samples per character at this speed. */
export function samplesPerCharacter(speed: number): number {
  return Math.round((SECONDS_PER_CHARACTER * SAMPLE_RATE) / speed);
}

type Sound = { gains: Float32Array; hiss: number; pitch: number };

const MAX_HARMONICS = 24;
const PEAK = 0.45 * 32_767;

/** The harmonics' gains for formants `f1`, `f2` at pitch `pitch`, scaled so that the loudest sum stays near PEAK. */
function sound(pitch: number, f1: number, f2: number, hiss: number): Sound {
  const count = Math.min(MAX_HARMONICS, Math.floor(3_600 / pitch));
  const gains = new Float32Array(count);
  let total = 0;
  for (let k = 1; k <= count; k++) {
    const frequency = k * pitch;
    const gain = Math.exp(-(((frequency - f1) / 180) ** 2)) + 0.6 * Math.exp(-(((frequency - f2) / 220) ** 2)) + 0.08 / k;
    gains[k - 1] = gain;
    total += gain;
  }
  for (let k = 0; k < count; k++) gains[k] = (gains[k]! / total) * PEAK * (1 - hiss * 0.6);
  return { gains, hiss, pitch };
}

/** A character's sound, or null for a pause. */
function soundOf(character: string, index: number, base: number): Sound | null {
  if (PAUSE.test(character)) return null;
  const lower = character.toLowerCase().normalize("NFD")[0] ?? character;
  // The pitch rises and falls over about twelve characters.
  const pitch = base * (1 + 0.07 * Math.sin((index / 12) * 2 * Math.PI));
  const vowel = VOWELS[lower];
  if (vowel) return sound(pitch, vowel[0], vowel[1], 0);
  const code = lower.codePointAt(0) ?? 0;
  return sound(pitch, 250 + ((code * 37) % 400), 1_100 + ((code * 91) % 1_300), HISS.has(lower) ? 0.5 : 0);
}

/**
 * The samples of a text, made a few at a time (`next`), so a caller can encode and send them in slices. The whole
 * is `total` samples: `samplesPerCharacter(speed)` per character.
 */
export class Synthesizer {
  readonly total: number;
  readonly #characters: string[];
  readonly #perCharacter: number;
  readonly #base: number;
  #position = 0;
  #phase = 0;
  #noise = 0x2545f491;
  #low = 0;
  #sound: Sound | null = null;
  #soundIndex = -1;

  constructor(text: string, voice: Voice, speed: number) {
    this.#characters = Array.from(text);
    this.#perCharacter = samplesPerCharacter(speed);
    this.#base = PITCH[voice];
    this.total = this.#characters.length * this.#perCharacter;
  }

  get remaining(): number {
    return this.total - this.#position;
  }

  /** The next `count` samples (fewer at the end) into `out`; returns how many were written. */
  next(out: Int16Array, count = out.length): number {
    const n = Math.min(count, this.remaining, out.length);
    const per = this.#perCharacter;
    const ramp = Math.max(1, Math.floor(per * 0.18));
    for (let i = 0; i < n; i++) {
      const position = this.#position + i;
      const index = Math.floor(position / per);
      if (index !== this.#soundIndex) {
        this.#soundIndex = index;
        this.#sound = soundOf(this.#characters[index]!, index, this.#base);
      }
      const current = this.#sound;
      if (!current) {
        out[i] = 0;
        continue;
      }
      const within = position - index * per;
      // A raised-cosine rise and fall in each character: syllable-like pulses, no clicks.
      const edge = Math.min(within, per - 1 - within);
      const envelope = edge >= ramp ? 1 : 0.5 - 0.5 * Math.cos((Math.PI * edge) / ramp);
      this.#phase += (2 * Math.PI * current.pitch) / SAMPLE_RATE;
      if (this.#phase > 2 * Math.PI) this.#phase -= 2 * Math.PI;
      // sin(kθ) by the recurrence sin(kθ) = 2 cos θ sin((k-1)θ) - sin((k-2)θ): one sine and one cosine per sample.
      const s1 = Math.sin(this.#phase);
      const twoCos = 2 * Math.cos(this.#phase);
      let previous = 0;
      let value = s1;
      let sum = 0;
      const { gains } = current;
      for (let k = 0; k < gains.length; k++) {
        sum += gains[k]! * value;
        const following = twoCos * value - previous;
        previous = value;
        value = following;
      }
      if (current.hiss) {
        this.#noise = (Math.imul(this.#noise, 1_103_515_245) + 12_345) | 0;
        const white = (this.#noise >> 8) / 8_388_608;
        // A first difference: the hiss sits high, where s and f do.
        sum += (white - this.#low) * current.hiss * PEAK * 0.35;
        this.#low = white;
      }
      out[i] = Math.max(-32_768, Math.min(32_767, Math.round(sum * envelope)));
    }
    this.#position += n;
    return n;
  }
}
