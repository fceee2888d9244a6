// The audio API's pure parts: the request rules (lib/wire/audio-request.ts), the format sniffed from a file's first
// bytes and the duration read as it streams (lib/gateway/audio/upload.ts), the simulator's WAV header, voice and
// transcript timestamps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GatewayError } from "@/lib/platform/errors";
import { characterCount, checkSpeechLength, parseSpeechOptions, parseTranscriptionOptions } from "@/lib/wire/audio-request";
import { DurationReader, sniffAudio } from "@/lib/gateway/audio/upload";
import { speechFile, wavHeader } from "@/lib/providers/simulator/speech";
import { Synthesizer, samplesPerCharacter } from "@/lib/providers/simulator/voice";
import { timestamp } from "@/lib/providers/simulator/transcription";
import { reportedSeconds, uploadFilename } from "@/lib/providers/audio-api";

function refusal(run: () => unknown, param: string, message: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    assert.match(error.message, message);
    return true;
  });
}

test("characters are code points: an emoji or a CJK character is one", () => {
  assert.equal(characterCount("héllo"), 5);
  assert.equal(characterCount("😀😀"), 2);
  assert.equal(characterCount("漢字"), 2);
  assert.equal(characterCount("\ud83d"), 1, "a lone surrogate counts once");
});

test("speech options: defaults, the fields passed upstream, and each refusal naming its field", () => {
  const options = parseSpeechOptions({ model: "std-tts-1", input: "Hi 😀", voice: "nova", base_url: "http://elsewhere" });
  assert.equal(options.format, "mp3");
  assert.equal(options.speed, 1);
  assert.equal(options.characters, 4);
  assert.deepEqual(options.upstreamFields, { input: "Hi 😀", voice: "nova", response_format: "mp3" });
  const full = parseSpeechOptions({
    model: "m",
    input: "x",
    voice: "ash",
    response_format: "pcm",
    speed: 0.25,
    instructions: "Slowly.",
    stream_format: "sse",
  });
  assert.deepEqual(full.upstreamFields, {
    input: "x",
    voice: "ash",
    response_format: "pcm",
    speed: 0.25,
    instructions: "Slowly.",
    stream_format: "sse",
  });
  assert.equal(full.sse, true);
  refusal(() => parseSpeechOptions({ model: "m", voice: "ash" }), "input", /Send 'input'/);
  refusal(() => parseSpeechOptions({ model: "m", input: "", voice: "ash" }), "input", /must not be empty/);
  refusal(() => parseSpeechOptions({ model: "m", input: "x", voice: "Alloy" }), "voice", /must be one of/);
  refusal(() => parseSpeechOptions({ model: "m", input: "x", voice: "ash", speed: 0.2 }), "speed", /0\.25 to 4/);
  refusal(() => parseSpeechOptions({ model: "m", input: "x", voice: "ash", stream_format: "chunks" }), "stream_format", /'audio', 'sse'/);
  refusal(
    () => checkSpeechLength(parseSpeechOptions({ model: "m", input: "abc", voice: "ash" }), 2),
    "input",
    /3 characters long.*at most 2/,
  );
});

test("transcription options: the fields sent upstream in order, repeated granularities, refusals", () => {
  const options = parseTranscriptionOptions(
    { model: "std-transcribe-1", language: "de", response_format: "verbose_json", temperature: "0.3", prompt: "Hallo" },
    { "timestamp_granularities[]": ["word", "segment", "word"] },
  );
  assert.deepEqual(options.granularities, ["word", "segment"]);
  assert.deepEqual(options.upstreamFields, [
    ["response_format", "verbose_json"],
    ["language", "de"],
    ["prompt", "Hallo"],
    ["temperature", "0.3"],
    ["timestamp_granularities[]", "word"],
    ["timestamp_granularities[]", "segment"],
  ]);
  refusal(() => parseTranscriptionOptions({}, {}), "model", /Send 'model'/);
  refusal(() => parseTranscriptionOptions({ model: "m", temperature: "2" }, {}), "temperature", /0 to 1/);
  refusal(() => parseTranscriptionOptions({ model: "m", language: "english please" }, {}), "language", /ISO-639-1/);
  refusal(() => parseTranscriptionOptions({ model: "m", stream: "true" }, {}), "stream", /not available/);
  refusal(
    () => parseTranscriptionOptions({ model: "m", response_format: "verbose_json" }, { "timestamp_granularities[]": ["line"] }),
    "timestamp_granularities[]",
    /'word' or 'segment'/,
  );
});

test("formats from the first bytes", () => {
  const cases: [number[] | string, string | null][] = [
    ["ID3\u0004", "mp3"],
    [[0xff, 0xfb, 0x90, 0x00], "mp3"],
    [[0xff, 0xf3, 0x84, 0xc4], "mp3"],
    [[0xff, 0xf1, 0x50, 0x80], null], // ADTS AAC: layer 00
    ["RIFF\u0000\u0000\u0000\u0000WAVEfmt ", "wav"],
    ["RIFF\u0000\u0000\u0000\u0000AVI LIST", null],
    ["fLaC\u0000", "flac"],
    ["OggS\u0000", "ogg"],
    [[0x1a, 0x45, 0xdf, 0xa3, 0x01], "webm"],
    ["\u0000\u0000\u0000\u0020ftypM4A \u0000", "m4a"],
    ["\u0000\u0000\u0000\u0020ftypisom\u0000", "mp4"],
    ["%PDF-1.7", null],
    ["hello", null],
  ];
  for (const [bytes, format] of cases) {
    const head = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes);
    assert.equal(sniffAudio(head)?.format ?? null, format, head.toString("hex"));
  }
});

test("the simulator's WAV: header sizes, length per character and speed, audible samples; its duration read back", async () => {
  assert.equal(samplesPerCharacter(1), 1440);
  assert.equal(samplesPerCharacter(4), 360);
  assert.equal(samplesPerCharacter(0.25), 5760);
  const header = wavHeader(1000);
  assert.equal(header.readUInt32LE(4), 36 + 2000);
  assert.equal(header.readUInt32LE(40), 2000);
  const synthesizer = new Synthesizer("Hi, you.", "alloy", 2);
  assert.equal(synthesizer.total, 8 * 720);
  const samples = new Int16Array(synthesizer.total);
  assert.equal(synthesizer.next(samples), synthesizer.total);
  assert.equal(synthesizer.remaining, 0);
  const peak = (from: number, to: number) => samples.subarray(from, to).reduce((most, value) => Math.max(most, Math.abs(value)), 0);
  assert.ok(peak(0, 720) > 5_000, "'H' is heard");
  assert.equal(peak(2 * 720, 4 * 720), 0, "', ' is a pause");
  const parts: Buffer[] = [];
  for await (const part of speechFile({ input: "Hello there", voice: "fable", speed: 1, format: "wav" })) parts.push(Buffer.from(part));
  const file = Buffer.concat(parts);
  const reader = new DurationReader(sniffAudio(file)!);
  for (let offset = 0; offset < file.length; offset += 1000) await reader.write(file.subarray(offset, offset + 1000));
  const reading = await reader.end();
  assert.ok(reading.ok);
  assert.equal(reading.info.format, "wav");
  assert.ok(Math.abs(reading.info.duration - 11 * 0.06) < 1e-9);
});

test("transcript timestamps, the seconds an upstream reports, and the file name sent upstream", () => {
  assert.equal(timestamp(4.38, ","), "00:00:04,380");
  assert.equal(timestamp(3_725.0456, "."), "01:02:05.046");
  assert.equal(reportedSeconds({ text: "x", usage: { type: "duration", seconds: 5 } }), 5);
  assert.equal(reportedSeconds({ text: "x", duration: 4.4 }), 4.4);
  assert.equal(reportedSeconds({ text: "x", usage: { type: "tokens", input_tokens: 10 } }), null);
  assert.equal(reportedSeconds({ text: "x", duration: -1 }), null);
  assert.equal(uploadFilename("talk.m4a", "m4a"), "talk.m4a");
  assert.equal(uploadFilename("", "wav"), "audio.wav");
  assert.equal(uploadFilename("blob", "mp3"), "audio.mp3");
});
