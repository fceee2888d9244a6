// The pieces that keep a large body off the event loop and its payer's money before the work
// (docs/decisions/0018-large-bodies-off-the-event-loop.md): the parse in slices (lib/platform/http/sliced-json.ts), the count of text bytes
// (lib/platform/http/text-bytes.ts), the worker's preparation of a body (lib/gateway/text-request.ts) and the worker
// pool (lib/platform/worker-pool.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseJsonInSlices, SliceError } from "@/lib/platform/http/sliced-json";
import { RUN_BYTES, TextByteCounter } from "@/lib/platform/http/text-bytes";
import { parseJsonObject } from "@/lib/platform/http/json";
import { loadBodyKind, prepareBytes, readTextRequest } from "@/lib/gateway/text-request";
import { chatBody, countBody, messagesBody } from "@/lib/gateway/text/body";
import { responsesBody } from "@/lib/gateway/responses/body";
import { geminiBody, geminiCountBody } from "@/lib/gateway/gemini/body";
import { embeddingsBody } from "@/lib/gateway/embeddings/request";
import { geminiBatchEmbedBody, geminiEmbedOneBody } from "@/lib/gateway/embeddings/gemini-request";
import { countChatRequestInputTokens, countForCharge } from "@/lib/money/tokens";
import { WorkerPool, WorkerUnavailable } from "@/lib/platform/worker-pool";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** The text with every character past ASCII written as `\uXXXX`, as Python's json.dumps writes it. */
function escapeNonAscii(text: string): string {
  return text.replace(/[^ -~\n\t]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const PIECES = ["a", "b", " ", "\\", '"', "\n", "é", "中", "😀", "\u0001", "\ud83d", "/", "u", "0"];

function randomValue(random: () => number, depth: number): unknown {
  const pick = (count: number) => Math.floor(random() * count);
  const text = (max: number) => Array.from({ length: pick(max) }, () => PIECES[pick(PIECES.length)]).join("");
  switch (pick(depth > 5 ? 4 : 7)) {
    case 0:
      return pick(1000) - 500 + (pick(2) ? 0.5 : 0);
    case 1:
      return [true, false, null][pick(3)];
    case 2:
    case 3:
      return text(pick(2) ? 10 : 300);
    case 4:
    case 5:
      return Array.from({ length: pick(12) }, () => randomValue(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let index = pick(10); index > 0; index--) {
        const key = pick(3) ? text(8) : ["__proto__", "1", "10", "constructor"][pick(4)]!;
        Object.defineProperty(object, key, { value: randomValue(random, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return object;
    }
  }
}

test("parsed in slices, any JSON gives what JSON.parse gives: values, key order, __proto__ as a key, escapes cut anywhere", async () => {
  const random = seeded(7);
  for (let round = 0; round < 1500; round++) {
    const value = { root: randomValue(random, 0), list: Array.from({ length: Math.floor(random() * 30) }, () => randomValue(random, 2)) };
    let text = JSON.stringify(value, null, random() < 0.5 ? 1 : undefined);
    // Some bodies escape every non-ASCII character, as Python's json.dumps does.
    if (random() < 0.25) text = escapeNonAscii(text);
    const bytes = Buffer.from(text);
    const pieceBytes = [16, 17, 33, 100, 1000][Math.floor(random() * 5)]!;
    const sliced = await parseJsonInSlices(bytes, { pieceBytes });
    const whole = JSON.parse(text);
    assert.equal(JSON.stringify(sliced), JSON.stringify(whole), `round ${round}, pieces of ${pieceBytes}: ${text.slice(0, 200)}`);
    assert.equal(Object.getPrototypeOf(sliced), Object.prototype);
  }
});

test("parsed in slices: a body too deep is refused with where, as the whole parse refuses it; bytes that are not JSON are refused", async () => {
  const deep = `{"a":[{"b":${"[".repeat(70)}1${"]".repeat(70)}}]}`;
  await assert.rejects(parseJsonInSlices(Buffer.from(deep), { pieceBytes: 16, maxDepth: 64 }), (error: unknown) => {
    assert.ok(error instanceof SliceError);
    assert.match(error.deepAt ?? "", /^a\[0\]\.b/);
    return true;
  });
  assert.throws(() => parseJsonObject(deep), /nested more than 64 levels deep/);
  const fits = `{"a":${"[".repeat(60)}1${"]".repeat(60)}}`;
  assert.deepEqual(await parseJsonInSlices(Buffer.from(fits), { pieceBytes: 16, maxDepth: 64 }), JSON.parse(fits));
  for (const bad of ['{"a":[1,2,]}', '{"a":1 "b":2}', '{"a":"unterminated', '{"a":1}}', '{"a":tru}']) {
    await assert.rejects(parseJsonInSlices(Buffer.from(bad), { pieceBytes: 16 }), SliceError, bad);
  }
});

test("parsed in slices: a 4 MB string with escapes comes out whole; the event loop gets turns while it is read", async () => {
  const text = 'Line one\nwith "quotes", a tab\t, é and 😀 and \\u0041 as text. '.repeat(70_000);
  const bytes = Buffer.from(JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }));
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  const parsed = (await parseJsonInSlices(bytes)) as { messages: { content: string }[] };
  clearInterval(timer);
  assert.equal(parsed.messages[0]!.content, text);
  assert.ok(turns > 0, "timers ran while the body was parsed");
});

/** The bytes of `value` as the reservation sizes it (lib/money/reservation.ts): re-serialized, less `media` characters. */
function reservedBytes(value: unknown, media: number): number {
  return Buffer.byteLength(JSON.stringify(value)) - media;
}

// A data URI's prefix ("data:image/png;base64,") is media to the reservation and partly text here: the bound holds
// within the reservation's allowance of 32 tokens per request (lib/money/reservation.ts), 128 bytes.
const ALLOWANCE_BYTES = 32 * 4;

test("text bytes are a lower bound of the re-serialized body less its media (within the allowance), for bodies written any way", () => {
  const random = seeded(11);
  for (let round = 0; round < 300; round++) {
    const image = Buffer.alloc(Math.floor(random() * 40_000) + 200, round).toString("base64");
    const uri = `data:image/png;base64,${image}`;
    const value = {
      model: "std-5.5",
      max_tokens: 12,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: String(randomValue(random, 3)) },
            { type: "image_url", image_url: { url: uri } },
          ],
        },
        { role: "assistant", content: JSON.stringify(randomValue(random, 1)) },
      ],
      temperature: 1.0,
    };
    // The same body compact, indented, with every non-ASCII character and slash escaped, and numbers padded.
    let text = JSON.stringify(value, null, random() < 0.5 ? 4 : undefined);
    if (random() < 0.5) text = escapeNonAscii(text);
    if (random() < 0.5) text = text.replaceAll("/", "\\/").replace('"temperature":1', '"temperature":1.000000');
    const bytes = Buffer.from(text);
    const counter = new TextByteCounter();
    for (let offset = 0; offset < bytes.length; ) {
      const next = offset + 1 + Math.floor(random() * 5000);
      counter.add(bytes.subarray(offset, next));
      offset = next;
    }
    const whole = new TextByteCounter();
    whole.add(bytes);
    assert.equal(whole.final, counter.final, "the count does not depend on how the body is cut");
    const reserved = reservedBytes(JSON.parse(text), uri.length);
    assert.ok(counter.final <= reserved + ALLOWANCE_BYTES, `round ${round}: ${counter.final} > ${reserved}`);
  }
});

test("text bytes: plain text counts all but its spaces; a long base64 run none of it; a short one all but its digits", () => {
  const count = (text: string) => {
    const counter = new TextByteCounter();
    counter.add(Buffer.from(text));
    return counter.final;
  };
  assert.equal(count('{"content":"Hello, wide world"}'), '{"content":"Hello, wide world"}'.length - 2);
  assert.equal(count(`"${"QUJD".repeat(RUN_BYTES)}"`), 2);
  assert.equal(count('"abc123"'), 5);
  assert.equal(count('"caf\\u00e9"'), 6, "an escape is one byte");
});

const BIG_CHAT = {
  model: "std-5.5",
  max_tokens: 100,
  tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }],
  messages: Array.from({ length: 3000 }, (_, index) => ({
    role: index % 2 ? "assistant" : "user",
    content: index % 3 ? `Message ${index}: ${"words and more words ".repeat(5)}` : [{ type: "text", text: `Block ${index} é 中文` }],
  })),
};

test("every endpoint's body kind is found where a worker looks for it: exported by its module under its own name", async () => {
  const kinds = [
    chatBody,
    messagesBody,
    countBody,
    responsesBody,
    geminiBody,
    geminiCountBody,
    embeddingsBody,
    geminiBatchEmbedBody,
    geminiEmbedOneBody,
  ];
  for (const kind of kinds) assert.equal(await loadBodyKind({ module: kind.module, name: kind.name }), kind, kind.name);
  await assert.rejects(loadBodyKind({ module: chatBody.module, name: "noSuchBody" }), /exports no body kind named noSuchBody/);
});

test("a large body prepared elsewhere (a worker, or in process where none starts) gives the count and body of the small path", async () => {
  const text = JSON.stringify(BIG_CHAT);
  assert.ok(text.length > 256 * 1024, "large enough for the worker path");
  const { body: inlineBody, ...inlinePrepared } = chatBody.prepare(JSON.parse(text), false);
  const prepared = prepareBytes(chatBody, Buffer.from(text));
  assert.ok(!("error" in prepared));
  // Off the event loop, the exact count a charge may need is made with the budget's: the same as counting later.
  const { whole, ...stats } = prepared.stats;
  assert.deepEqual({ ...prepared, stats }, inlinePrepared);
  assert.deepEqual(inlineBody, JSON.parse(text));
  assert.equal(whole, countChatRequestInputTokens(JSON.parse(text)));
  assert.equal(
    countForCharge(prepared.inputTokens, prepared.stats, () => {
      throw new Error("counted again");
    })(),
    whole,
  );
  const read = await readTextRequest(new Request("http://gateway/v1/chat/completions", { method: "POST", body: text }), chatBody, {
    watch: null,
  });
  assert.equal(read.inputTokens, inlinePrepared.inputTokens);
  assert.deepEqual(read.stats, prepared.stats);
  assert.deepEqual(read.body, JSON.parse(text));
  // A bad large body gets the small path's answer.
  const bad = { ...BIG_CHAT, messages: [...BIG_CHAT.messages, { role: "robot", content: "x" }] };
  const refusal = prepareBytes(chatBody, Buffer.from(JSON.stringify(bad)));
  assert.ok("error" in refusal);
  assert.equal(refusal.error.param, "messages.3000.role");
  await assert.rejects(
    readTextRequest(new Request("http://gateway/v1/chat/completions", { method: "POST", body: JSON.stringify(bad) }), chatBody, {
      watch: null,
    }),
    /messages\.3000\.role/,
  );
});

test("the worker pool: a job's answer comes back; a worker that answers nothing is stopped and its jobs fail; one that cannot start says so", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "worker-pool-"));
  try {
    const echo = path.join(folder, "echo.mjs");
    writeFileSync(
      echo,
      `import { parentPort } from "node:worker_threads";
parentPort.on("message", (job) => { if (!job.hang) parentPort.postMessage({ id: job.id, result: job.value * 2 }); });
parentPort.postMessage({ id: -1 });`,
    );
    const pool = new WorkerPool(pathToFileURL(echo), { size: 1, silenceMs: 300 });
    assert.equal(await pool.run<number>({ value: 21 }), 42);
    await assert.rejects(pool.run({ hang: true }), /exited/);
    assert.equal(await pool.run<number>({ value: 2 }), 4, "a new worker takes the next job");
    await pool.close();
    const broken = path.join(folder, "broken.mjs");
    writeFileSync(broken, "throw new Error('no');");
    const none = new WorkerPool(pathToFileURL(broken), { size: 1 });
    await assert.rejects(none.run({ value: 1 }), WorkerUnavailable);
    await assert.rejects(none.run({ value: 1 }), WorkerUnavailable, "for good");
    await assert.rejects(new WorkerPool(null).run({ value: 1 }), WorkerUnavailable);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
