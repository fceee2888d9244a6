// The compact o200k_base encoder (lib/money/bpe.ts) against gpt-tokenizer's own, which reads the same ranks: the
// same tokens for any text, and the table kept off the JavaScript heap.
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import v8 from "node:v8";
import { countTokens as referenceCount, encode as referenceEncode } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens, decode, encode, loadTokenizer } from "@/lib/money/bpe";

const PLAIN = { disallowedSpecial: new Set<string>() };

test("the table is loaded without growing the JavaScript heap (gpt-tokenizer's own takes ~20 MB of it)", () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  loadTokenizer();
  assert.equal(countTokens("warm"), 1);
  gc();
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 4 * 1024 * 1024, `the heap grew by ${(grown / 1024 / 1024).toFixed(1)} MB`);
});

test("the same tokens as gpt-tokenizer for words, code, numbers, contractions, scripts, emoji and broken text", () => {
  const samples = [
    "Say hello to the benchmark.",
    "I'm sure you're right; they'll see WE'VE DONE it.",
    "    indented\n\tcode(); // comment\r\n\r\n  return x+1;",
    "1234567890 3.14159 1,000,000 ２０２６年",
    "naïve café Ünïcödé e\u0301 \u200b zero width",
    "日本語のテキストです。漢字とかな、そしてカタカナ。中文文本。한국어 텍스트.",
    "emoji 😀🎉👩‍👩‍👧 flags 🇫🇷🇯🇵",
    "lone surrogates \ud800 and \udfff in text",
    "aGVsbG8gd29ybGQ=QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk=",
    "https://example.com/path/to/file.json?query=1&other=two#frag",
    "x".repeat(500),
    "",
  ];
  for (const text of samples) assert.deepEqual(encode(text), referenceEncode(text, PLAIN), JSON.stringify(text));
});

test("special-token strings are plain text, as for the reference told to treat them so", () => {
  for (const text of ["<|endoftext|>", "a <|im_start|>system<|im_sep|> b", "<|fim_prefix|><|endofprompt|>"]) {
    assert.deepEqual(encode(text), referenceEncode(text, PLAIN), text);
    assert.equal(decode(encode(text)), text);
  }
});

test("random text from a mixed alphabet: the same counts as gpt-tokenizer, and decode gives the text back", () => {
  const alphabet = [
    ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n\t\r.,;:'\"!?-_/\\()[]{}<>|@#$%^&*+=~`",
    ..."éüñçøßÆ日本語中文한국어αβγδЖщ\u0301\u200b",
    "😀",
    "🎉",
  ];
  let state = 20261125;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 1500; round++) {
    let text = "";
    const length = Math.floor(random() * 160);
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * alphabet.length)];
    assert.equal(countTokens(text), referenceCount(text, PLAIN), JSON.stringify(text));
    assert.equal(decode(encode(text)), text, JSON.stringify(text));
  }
});

test("a cut inside a multibyte character decodes to U+FFFD, not to an exception", () => {
  const tokens = encode("🎉🎉🎉");
  const text = decode(tokens.slice(0, 1));
  assert.ok(text === "🎉" || text.endsWith("\ufffd"), JSON.stringify(text));
});

test("mostly-ASCII text (cut by hand, not by the pattern) with the characters that decide a piece: the same counts", () => {
  // ASCII runs are cut by the encoder's own scanner; a non-ASCII character next to one hands that piece back to the
  // pattern. These characters are each a different Unicode class the pattern treats apart: lowercase, uppercase and
  // title-case letters, a modifier letter, an ideograph, a combining mark, a fullwidth digit, no-break and line
  // separator spaces, an arrow (a symbol, as Claude Code's Read tool prints line numbers), a curly apostrophe.
  const ascii = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     \n\n\t\r\v\f.,;:'\"!?-_/\\()[]{}<>|@#$%^&*+=~`"];
  const rare = ["é", "Ж", "ǅ", "ʰ", "日", "\u0301", "２", "\u00a0", "\u2028", "→", "’", "\u0000", "\u001f", "\u007f"];
  const words = ["don't", "WE'LL", "it's", "they'RE", "I'VE", "x'd", "'s", "HTTPServer", "__init__", "1234567", " //", "});\n\n"];
  let state = 20261126;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 3000; round++) {
    let text = "";
    const length = Math.floor(random() * 200);
    while (text.length < length) {
      const pick = random();
      if (pick < 0.03) text += rare[Math.floor(random() * rare.length)];
      else if (pick < 0.1) text += words[Math.floor(random() * words.length)];
      else text += ascii[Math.floor(random() * ascii.length)];
    }
    assert.equal(countTokens(text), referenceCount(text, PLAIN), JSON.stringify(text));
    assert.deepEqual(encode(text), referenceEncode(text, PLAIN), JSON.stringify(text));
  }
});
