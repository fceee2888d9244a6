// The audio API over HTTP through the official openai SDK: /v1/audio/speech and /v1/audio/transcriptions on the
// built-in simulator (real WAV / PCM / MP3 whose length follows the text; the speech fed back into transcription) and
// on recording fake OpenAI-compatible and Azure upstreams (what they received, what was charged, to the micro-dollar);
// bad input of every kind refused with a clear 4xx before any charge.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createReadStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { parseBuffer } from "music-metadata";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { parseForm } from "../helpers/images-setup";

// The seeded prices: std-tts-1 $15 per 1M characters, std-transcribe-1 $100 per 1M seconds (micro-USD per unit).
const PER_CHARACTER = 15;
const PER_SECOND = 100;
const SECONDS_PER_CHARACTER = 0.06;

let gateway: Gateway;
let payer: { userId: string; key: string; keyId: string };
const upstreams: FakeUpstream[] = [];
const folder = mkdtempSync(path.join(tmpdir(), "audio-test-"));

before(async () => {
  gateway = await startGateway();
  payer = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
});
after(async () => {
  // Nothing above is a gateway failure: no error logged (an over-reservation or a handler crash would be).
  assert.doesNotMatch(gateway.output(), /"level":"error"/);
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

const client = (apiKey = payer.key) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 120_000 });

async function ledger(requestId: string) {
  const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data as any[];
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

async function balanceOf(userId: string): Promise<number> {
  const users = (await gateway.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[];
  return users.find((user) => user.id === userId)!.balance;
}

async function speak(body: OpenAI.Audio.SpeechCreateParams & Record<string, unknown>) {
  const { data, response } = await client().audio.speech.create(body).withResponse();
  return {
    bytes: Buffer.from(await data.arrayBuffer()),
    type: response.headers.get("content-type"),
    requestId: response.headers.get("x-request-id")!,
  };
}

function saved(name: string, bytes: Buffer): string {
  const file = path.join(folder, name);
  writeFileSync(file, bytes);
  return file;
}

function post(pathname: string, body: BodyInit, apiKey = payer.key, type?: string): Promise<Response> {
  return fetch(`${gateway.url}${pathname}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, ...(type ? { "content-type": type } : {}) },
    body,
  });
}

function form(parts: [string, string | Buffer, string?][]): FormData {
  const data = new FormData();
  for (const [name, value, filename] of parts)
    if (typeof value === "string") data.append(name, value);
    else data.append(name, new Blob([new Uint8Array(value)]), filename ?? "file");
  return data;
}

async function expect4xx(response: Response, status: number, param: string | null, message: RegExp): Promise<void> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error.param, param, text);
  assert.match(body.error.message, message);
  assert.equal(typeof body.error.type, "string");
}

async function withChannel<T>(upstream: FakeUpstream, settings: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  const { id } = await gateway.admin("POST", "/api/admin/channels", {
    name: "fake audio upstream",
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "upstream-audio-secret",
    models: ["std-tts-1", "std-transcribe-1"],
    modelMapping: { "std-tts-1": "real-tts-9", "std-transcribe-1": "real-whisper-3" },
    priority: 50,
    ...settings,
  });
  try {
    return await run();
  } finally {
    await gateway.admin("DELETE", `/api/admin/channels/${id}`);
  }
}

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

const TEXT = "The quick brown fox jumps over the lazy dog, and the simulator speaks it.";
const CHARACTERS = Array.from(TEXT).length;

describe("speech on the simulator", () => {
  test("WAV: a valid header, 24 kHz 16-bit mono, 60 ms per character; charged characters x price, as reserved", async () => {
    const { bytes, type, requestId } = await speak({ model: "std-tts-1", input: TEXT, voice: "alloy", response_format: "wav" });
    assert.equal(type, "audio/wav");
    assert.equal(bytes.toString("latin1", 0, 4), "RIFF");
    assert.equal(bytes.toString("latin1", 8, 16), "WAVEfmt ");
    assert.equal(bytes.readUInt16LE(20), 1, "PCM");
    assert.equal(bytes.readUInt16LE(22), 1, "mono");
    assert.equal(bytes.readUInt32LE(24), 24_000);
    assert.equal(bytes.readUInt16LE(34), 16);
    const samples = bytes.readUInt32LE(40) / 2;
    assert.equal(bytes.length, 44 + samples * 2);
    assert.equal(samples, CHARACTERS * 1440);
    let loud = 0;
    for (let offset = 44; offset < bytes.length; offset += 2) loud = Math.max(loud, Math.abs(bytes.readInt16LE(offset)));
    assert.ok(loud > 5_000, `audible, not silence (peak ${loud})`);
    const metadata = await parseBuffer(bytes, { mimeType: "audio/wav" });
    assert.ok(Math.abs(metadata.format.duration! - CHARACTERS * SECONDS_PER_CHARACTER) < 0.001);
    const row = await ledger(requestId);
    assert.equal(row.cost, CHARACTERS * PER_CHARACTER);
    assert.equal(row.reserved, row.cost);
    assert.equal(row.status, "success");
    assert.equal(row.detail.characters, CHARACTERS);
  });

  test("MP3 by default (frame sync, audio/mpeg), and the duration follows the text and the speed; PCM is raw samples", async () => {
    const normal = await speak({ model: "std-tts-1", input: TEXT, voice: "onyx" });
    assert.equal(normal.type, "audio/mpeg");
    assert.equal(normal.bytes[0], 0xff);
    assert.equal(normal.bytes[1]! & 0xe0, 0xe0, "an MPEG frame sync");
    const duration = (await parseBuffer(normal.bytes, { mimeType: "audio/mpeg" }, { duration: true })).format.duration!;
    assert.ok(Math.abs(duration - CHARACTERS * SECONDS_PER_CHARACTER) < 0.15, `${duration} s`);
    const fast = await speak({ model: "std-tts-1", input: TEXT, voice: "onyx", speed: 2 });
    const fastDuration = (await parseBuffer(fast.bytes, { mimeType: "audio/mpeg" }, { duration: true })).format.duration!;
    assert.ok(Math.abs(fastDuration - duration / 2) < 0.15, `${fastDuration} s at speed 2`);
    const pcm = await speak({ model: "std-tts-1", input: "Hi there", voice: "nova", response_format: "pcm", speed: 0.5 });
    assert.equal(pcm.type, "audio/pcm");
    assert.equal(pcm.bytes.length, 8 * 2880 * 2);
  });

  test("stream_format sse: speech.audio.delta events whose bytes make the file, then speech.audio.done", async () => {
    const response = await post(
      "/v1/audio/speech",
      JSON.stringify({ model: "std-tts-1", input: "Hello", voice: "echo", response_format: "wav", stream_format: "sse" }),
      payer.key,
      "application/json",
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = (await response.text())
      .split("\n\n")
      .filter(Boolean)
      .map((block) => JSON.parse(block.replace(/^data: /, "")));
    assert.equal(events.at(-1).type, "speech.audio.done");
    const bytes = Buffer.concat(events.slice(0, -1).map((event) => Buffer.from(event.audio, "base64")));
    assert.ok(events.slice(0, -1).every((event) => event.type === "speech.audio.delta"));
    assert.equal(bytes.toString("latin1", 0, 4), "RIFF");
    assert.equal(bytes.length, 44 + 5 * 1440 * 2);
  });

  test("bad input: a clear 400/404 naming the field, and nothing charged", async () => {
    const user = await createUserWithKey(gateway, { balance: 1_000_000 });
    const before = await balanceOf(user.userId);
    const json = (body: unknown) => post("/v1/audio/speech", JSON.stringify(body), user.key, "application/json");
    const base = { model: "std-tts-1", input: "Hello", voice: "alloy" };
    await expect4xx(await json({ model: "std-tts-1", voice: "alloy" }), 400, "input", /Send 'input': it is required/);
    await expect4xx(await json({ ...base, input: "   " }), 400, "input", /must not be empty/);
    await expect4xx(await json({ ...base, input: "x".repeat(4_097) }), 400, "input", /4,097 characters long.*at most 4,096/);
    await expect4xx(await json({ ...base, voice: "robot" }), 400, "voice", /must be one of alloy/);
    await expect4xx(await json({ ...base, speed: 5 }), 400, "speed", /0\.25 to 4/);
    await expect4xx(await json({ ...base, response_format: "ogg" }), 400, "response_format", /must be one of/);
    await expect4xx(
      await json({ ...base, response_format: "flac" }),
      400,
      "response_format",
      /'flac' is not available.*'mp3', 'wav', 'pcm'/,
    );
    await expect4xx(await json({ ...base, model: "no-such-voice-model" }), 404, "model", /does not exist/);
    await expect4xx(await json({ ...base, model: "std-5.5" }), 400, "model", /is a text model.*takes a speech model/);
    await expect4xx(await json({ ...base, model: "std-transcribe-1" }), 400, "model", /is a transcription model/);
    // Exactly 4,096 characters (an emoji is one) is accepted.
    const longest = await json({ ...base, input: `${"y".repeat(4_095)}😀`, response_format: "pcm", speed: 4 });
    assert.equal(longest.status, 200);
    assert.equal((await longest.arrayBuffer()).byteLength, 4_096 * 360 * 2);
    assert.equal(await balanceOf(user.userId), before - 4_096 * PER_CHARACTER, "only the good request was charged");
  });
});

describe("transcription on the simulator", () => {
  test("the simulator's own speech fed back: the measured duration, in every response format; charged seconds x price", async () => {
    const wav = saved("speech.wav", (await speak({ model: "std-tts-1", input: TEXT, voice: "sage", response_format: "wav" })).bytes);
    const mp3 = saved("speech.mp3", (await speak({ model: "std-tts-1", input: TEXT, voice: "sage" })).bytes);
    const seconds = CHARACTERS * SECONDS_PER_CHARACTER;
    const { data, response } = await client()
      .audio.transcriptions.create({ file: createReadStream(wav), model: "std-transcribe-1" })
      .withResponse();
    assert.equal(data.text, `This is a simulated transcription of ${seconds.toFixed(2)} seconds of audio.`);
    const row = await ledger(response.headers.get("x-request-id")!);
    assert.equal(row.cost, Math.ceil(seconds * PER_SECOND));
    assert.equal(row.reserved, Math.ceil(seconds) * PER_SECOND);
    assert.equal(row.detail.secondsSource, "gateway");
    assert.equal(row.detail.format, "wav");

    const verbose = await client().audio.transcriptions.create({
      file: createReadStream(mp3),
      model: "std-transcribe-1",
      response_format: "verbose_json",
      language: "en",
      timestamp_granularities: ["word", "segment"],
    });
    assert.ok(Math.abs(verbose.duration - seconds) < 0.15, `mp3 measured ${verbose.duration} s`);
    assert.equal(verbose.language, "english");
    assert.equal(verbose.segments!.length, 1);
    assert.equal(verbose.segments![0]!.end, verbose.duration);
    assert.equal(verbose.words!.at(-1)!.end, verbose.duration);

    const srt = await client().audio.transcriptions.create({
      file: createReadStream(wav),
      model: "std-transcribe-1",
      response_format: "srt",
    });
    assert.equal(srt as unknown as string, `1\n00:00:00,000 --> 00:00:0${seconds.toFixed(3).replace(".", ",")}\n${data.text}\n\n`);
    const vtt = await client().audio.transcriptions.create({
      file: createReadStream(wav),
      model: "std-transcribe-1",
      response_format: "vtt",
    });
    assert.match(
      vtt as unknown as string,
      new RegExp(`^WEBVTT\\n\\n00:00:00\\.000 --> 00:00:0${seconds.toFixed(3).replace(".", "\\.")}\\n`),
    );
    const text = await client().audio.transcriptions.create({
      file: await toFile(Buffer.from(await (await import("node:fs/promises")).readFile(wav)), "speech.wav"),
      model: "std-transcribe-1",
      response_format: "text",
    });
    assert.equal(text as unknown as string, `${data.text}\n`);
  });

  test("bad uploads: not audio, no readable duration, too large, missing fields, wrong model; nothing charged", async () => {
    const user = await createUserWithKey(gateway, { balance: 1_000_000 });
    const before = await balanceOf(user.userId);
    const send = (parts: [string, string | Buffer, string?][]) => post("/v1/audio/transcriptions", form(parts), user.key);
    const wav = (await speak({ model: "std-tts-1", input: "Hi", voice: "ash", response_format: "wav" })).bytes;
    const notAudio = Buffer.from("These are notes about audio, not audio at all.\n".repeat(50));
    const noDuration = Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10]), Buffer.alloc(10), Buffer.alloc(4_000, 0x41)]);
    await expect4xx(
      await send([
        ["model", "std-transcribe-1"],
        ["file", notAudio, "notes.mp3"],
      ]),
      400,
      "file",
      /not audio in a format.*mp3, mp4, m4a, wav, webm, ogg or flac/,
    );
    await expect4xx(
      await send([
        ["file", noDuration, "broken.mp3"],
        ["model", "std-transcribe-1"],
      ]),
      400,
      "file",
      /duration .* cannot be read/,
    );
    await expect4xx(await send([["model", "std-transcribe-1"]]), 400, "file", /Send 'file'/);
    await expect4xx(await send([["file", wav, "a.wav"]]), 400, "model", /Send 'model'/);
    await expect4xx(
      await send([
        ["model", "std-transcribe-1"],
        ["audio", wav, "a.wav"],
      ]),
      400,
      "audio",
      /send one audio file, in the field 'file'/,
    );
    await expect4xx(
      await send([
        ["model", "std-tts-1"],
        ["file", wav, "a.wav"],
      ]),
      400,
      "model",
      /is a speech model.*takes a transcription model/,
    );
    await expect4xx(
      await send([
        ["model", "whisper-9000"],
        ["file", wav, "a.wav"],
      ]),
      404,
      "model",
      /does not exist/,
    );
    await expect4xx(
      await send([
        ["model", "std-transcribe-1"],
        ["response_format", "docx"],
        ["file", wav, "a.wav"],
      ]),
      400,
      "response_format",
      /must be one of/,
    );
    await expect4xx(
      await send([
        ["model", "std-transcribe-1"],
        ["timestamp_granularities[]", "word"],
        ["file", wav, "a.wav"],
      ]),
      400,
      "timestamp_granularities[]",
      /only with response_format 'verbose_json'/,
    );
    const huge = Buffer.concat([wav.subarray(0, 44), Buffer.alloc(25 * 1024 * 1024)]);
    const tooLarge = await send([
      ["model", "std-transcribe-1"],
      ["file", huge, "huge.wav"],
    ]);
    assert.equal(tooLarge.status, 413);
    assert.match((await tooLarge.json()).error.message, /larger than the 25 MB limit/);
    const json = await post("/v1/audio/transcriptions", JSON.stringify({ model: "std-transcribe-1" }), user.key, "application/json");
    await expect4xx(json, 400, null, /multipart\/form-data/);
    assert.equal(await balanceOf(user.userId), before, "nothing was charged");
  });
});

describe("an OpenAI-compatible upstream (recording fake)", () => {
  test("speech: the mapped model and the fields go upstream, the bytes come back as sent; charged characters x price", async () => {
    const audio = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(200_000, 0x55)]);
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "audio/mpeg" });
      for (let offset = 0; offset < audio.length; offset += 50_000) response.write(audio.subarray(offset, offset + 50_000));
      response.end();
    });
    await withChannel(upstream, {}, async () => {
      const result = await speak({
        model: "std-tts-1",
        input: TEXT,
        voice: "coral",
        speed: 1.25,
        instructions: "Cheerful.",
        ...{ base_url: "http://elsewhere" },
      });
      assert.ok(result.bytes.equals(audio), "the upstream's bytes, unchanged");
      assert.equal(result.type, "audio/mpeg");
      const received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/audio/speech");
      assert.equal(received.headers.authorization, "Bearer upstream-audio-secret");
      assert.deepEqual(received.body, {
        model: "real-tts-9",
        input: TEXT,
        voice: "coral",
        response_format: "mp3",
        speed: 1.25,
        instructions: "Cheerful.",
      });
      const row = await ledger(result.requestId);
      assert.equal(row.channelName, "fake audio upstream");
      assert.equal(row.cost, CHARACTERS * PER_CHARACTER);
      assert.equal(row.reserved, row.cost);
      // flac is the upstream's to write.
      const flac = await speak({ model: "std-tts-1", input: "Hello", voice: "coral", response_format: "flac" });
      assert.equal(upstream.received.at(-1)!.body.response_format, "flac");
      assert.equal((await ledger(flac.requestId)).cost, 5 * PER_CHARACTER);
    });
  });

  test("speech: an upstream failure charges nothing", async () => {
    const upstream = await fake((_request, response) => sendJson(response, 500, { error: { message: "boom" } }));
    const user = await createUserWithKey(gateway, { balance: 1_000_000 });
    await withChannel(upstream, {}, async () => {
      const response = await post(
        "/v1/audio/speech",
        JSON.stringify({ model: "std-tts-1", input: "Hello", voice: "alloy" }),
        user.key,
        "application/json",
      );
      // The simulator (the next channel) answers: failover before the first byte.
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data as any[];
      assert.equal(rows.length, 1);
      assert.equal(rows[0].channelName, "Built-in simulator (offline)");
    });
    await withChannel(upstream, { priority: 50 }, async () => {
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string; status: string }[];
      const simulator = channels.find((channel) => channel.type === "simulator")!;
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
      try {
        const before = await balanceOf(user.userId);
        const response = await post(
          "/v1/audio/speech",
          JSON.stringify({ model: "std-tts-1", input: "Hello", voice: "alloy" }),
          user.key,
          "application/json",
        );
        assert.equal(response.status, 502);
        const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data as any[];
        assert.equal(rows[0].cost, 0);
        assert.equal(await balanceOf(user.userId), before);
      } finally {
        await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
      }
    });
  });

  test("speech: audio cut off by the upstream half-way charges nothing", async () => {
    const upstream = await fake((_request, response) => {
      response.writeHead(200, { "content-type": "audio/mpeg" });
      response.write(Buffer.alloc(30_000, 0x11));
      setTimeout(() => response.destroy(), 50);
    });
    const user = await createUserWithKey(gateway, { balance: 1_000_000 });
    await withChannel(upstream, {}, async () => {
      const before = await balanceOf(user.userId);
      const response = await post(
        "/v1/audio/speech",
        JSON.stringify({ model: "std-tts-1", input: "Hello", voice: "alloy" }),
        user.key,
        "application/json",
      );
      assert.equal(response.status, 200);
      await assert.rejects(response.arrayBuffer());
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data as any[];
      assert.equal(rows[0].cost, 0);
      assert.equal(rows[0].status, "error");
      assert.equal(await balanceOf(user.userId), before);
    });
  });

  test("transcription: the whole file and the fields go upstream as uploaded; charged the upstream's reported seconds", async () => {
    const upstream = await fake((_request, response) =>
      sendJson(response, 200, { text: "hello from upstream", usage: { type: "duration", seconds: 5 } }),
    );
    const wav = saved("upstream.wav", (await speak({ model: "std-tts-1", input: TEXT, voice: "verse", response_format: "wav" })).bytes);
    await withChannel(upstream, {}, async () => {
      const { data, response } = await client()
        .audio.transcriptions.create({
          file: createReadStream(wav),
          model: "std-transcribe-1",
          language: "en",
          prompt: "A fox.",
          temperature: 0.2,
        })
        .withResponse();
      assert.equal(data.text, "hello from upstream");
      const received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/audio/transcriptions");
      assert.equal(received.headers.authorization, "Bearer upstream-audio-secret");
      assert.equal(received.headers["transfer-encoding"], "chunked", "sent as it was uploaded");
      const parsed = await parseForm(received.headers, received.raw);
      assert.deepEqual(parsed.fields, {
        model: "real-whisper-3",
        response_format: "json",
        language: "en",
        prompt: "A fox.",
        temperature: "0.2",
      });
      assert.equal(parsed.files.length, 1);
      assert.equal(parsed.files[0]!.filename, "upstream.wav");
      assert.equal(parsed.files[0]!.type, "audio/wav");
      assert.ok(parsed.files[0]!.data.equals(await (await import("node:fs/promises")).readFile(wav)), "the whole file, byte for byte");
      const row = await ledger(response.headers.get("x-request-id")!);
      // The vendor bills whole seconds (4.38 s measured, 5 reported): the reservation holds it.
      assert.equal(row.cost, 5 * PER_SECOND);
      assert.equal(row.detail.secondsSource, "upstream");
      assert.equal(row.reserved, Math.ceil(CHARACTERS * SECONDS_PER_CHARACTER) * PER_SECOND);
    });
  });
});

describe("transcription failures upstream", () => {
  test("a failing first channel gives way to the next before any answer; with no other, a 502 and no charge", async () => {
    const upstream = await fake((_request, response) => sendJson(response, 503, { error: { message: "overloaded" } }));
    const user = await createUserWithKey(gateway, { balance: 1_000_000 });
    const wav = (await speak({ model: "std-tts-1", input: TEXT, voice: "marin", response_format: "wav" })).bytes;
    const send = () =>
      post(
        "/v1/audio/transcriptions",
        form([
          ["file", wav, "fox.wav"],
          ["model", "std-transcribe-1"],
        ]),
        user.key,
      );
    await withChannel(upstream, {}, async () => {
      const served = await send();
      assert.equal(served.status, 200);
      assert.match((await served.json()).text, /simulated transcription of 4\.38 seconds/);
      assert.equal(upstream.received.at(-1)!.path, "/v1/audio/transcriptions", "the live upload was tried first");
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[];
      const simulator = channels.find((channel) => channel.type === "simulator")!;
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
      try {
        const before = await balanceOf(user.userId);
        const failed = await send();
        assert.equal(failed.status, 502);
        const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${failed.headers.get("x-request-id")}`)).data as any[];
        assert.equal(rows[0].cost, 0);
        assert.equal(await balanceOf(user.userId), before);
      } finally {
        await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
      }
    });
  });
});

describe("an Azure OpenAI resource (recording fake)", () => {
  test("speech and transcription go to the deployment's audio paths with api-version and the api-key header", async () => {
    const wav = (await speak({ model: "std-tts-1", input: TEXT, voice: "alloy", response_format: "wav" })).bytes;
    const upstream = await fake((request, response) => {
      if (request.path.includes("/audio/speech")) {
        response.writeHead(200, { "content-type": "audio/wav" }).end(Buffer.from("RIFF0000WAVEfmt "));
        return;
      }
      sendJson(response, 200, { text: "azure words", duration: 4.4 });
    });
    const { id } = await gateway.admin("POST", "/api/admin/channels", {
      name: "fake azure audio",
      type: "azure",
      baseUrl: upstream.url,
      apiKey: "azure-audio-key",
      models: ["std-tts-1", "std-transcribe-1"],
      modelMapping: { "std-tts-1": "tts-deployment", "std-transcribe-1": "whisper-deployment" },
      priority: 60,
    });
    try {
      const speech = await speak({ model: "std-tts-1", input: "Hello", voice: "alloy", response_format: "wav" });
      assert.equal(speech.bytes.toString("latin1"), "RIFF0000WAVEfmt ");
      const said = upstream.received.at(-1)!;
      assert.equal(said.path, "/openai/deployments/tts-deployment/audio/speech?api-version=2024-10-21");
      assert.equal(said.headers["api-key"], "azure-audio-key");
      assert.equal(said.headers.authorization, undefined);
      const { data, response } = await client()
        .audio.transcriptions.create({ file: await toFile(wav, "hello.wav"), model: "std-transcribe-1", response_format: "verbose_json" })
        .withResponse();
      assert.equal(data.text, "azure words");
      assert.equal(upstream.received.at(-1)!.path, "/openai/deployments/whisper-deployment/audio/transcriptions?api-version=2024-10-21");
      const row = await ledger(response.headers.get("x-request-id")!);
      assert.equal(row.cost, 440, "the upstream's duration x price");
      assert.equal(row.reserved, 500);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });
});
