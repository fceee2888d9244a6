// How many bytes of a JSON body, at least, are text that a reservation counts at four bytes per token
// (docs/billing.md, "Money before work"): counted as the body streams in, before anything is parsed. A reservation
// leaves out inline media (base64 images, files, audio) and counts the body as the gateway re-serializes it, so what is
// counted here is only what must survive both:
// - whitespace never counts (outside strings JSON.stringify drops it);
// - digits never count (a number may be written longer than it is re-serialized, `1.000` as `1`);
// - an escape counts as one byte (`\u00e9` is re-serialized as the two bytes of `é`, `\/` as `/`);
// - a run of at least RUN_BYTES base64 characters (letters, digits, `+ / = - _`, escapes) never counts: it may be
//   media;
// - every other byte counts once.
// For a body without duplicate keys this is a lower bound of its re-serialized size less its media. It is a JavaScript
// loop over every byte (~1 ns a byte here), run only while a body's size could pass what its payer has left.

/** The shortest run of base64 characters treated as possible media (~190 bytes of image). */
export const RUN_BYTES = 256;

const BASE64 = new Uint8Array(256);
const DIGIT = new Uint8Array(256);
for (let code = 0; code < 256; code++) {
  const character = String.fromCharCode(code);
  if (/[A-Za-z0-9+/=_\\-]/.test(character)) BASE64[code] = 1;
  if (/[0-9]/.test(character)) DIGIT[code] = 1;
}
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export class TextByteCounter {
  /** Text bytes of the runs already settled. */
  #total = 0;
  /** The open run of base64 characters: its length, and what it counts if it stays shorter than RUN_BYTES. */
  #run = 0;
  #pending = 0;
  /** 0 outside an escape; 1 after a backslash; 2 to 5 in the hex digits of `\uXXXX`. */
  #escape = 0;

  add(chunk: Uint8Array): void {
    let total = this.#total;
    let run = this.#run;
    let pending = this.#pending;
    let inEscape = this.#escape;
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index]!;
      if (inEscape >= 2) {
        run++;
        inEscape = inEscape === 5 ? 0 : inEscape + 1;
        continue;
      }
      if (inEscape === 1) {
        inEscape = byte === LETTER_U ? 2 : 0;
        if (BASE64[byte]) {
          run++;
          continue;
        }
      } else if (byte === BACKSLASH) {
        inEscape = 1;
        run++;
        pending++;
        continue;
      } else if (BASE64[byte]) {
        run++;
        if (!DIGIT[byte]) pending++;
        continue;
      } else if (!isSpace(byte)) {
        if (run < RUN_BYTES) total += pending;
        run = 0;
        pending = 0;
        total++;
        continue;
      }
      // The end of a run: a space, or an escaped character that is not base64 (`\"`).
      if (run < RUN_BYTES) total += pending;
      run = 0;
      pending = 0;
    }
    this.#total = total;
    this.#run = run;
    this.#pending = pending;
    this.#escape = inEscape;
  }

  /** The text bytes so far, counting an open run only once it can no longer be media. */
  get count(): number {
    return this.#total;
  }

  /** The text bytes of the whole body once it has ended (an open run is settled). */
  get final(): number {
    return this.#total + (this.#run < RUN_BYTES ? this.#pending : 0);
  }
}
