// AWS event-stream frames read as they arrive (lib/providers/event-stream.ts), from the frames the Bedrock fake sends
// (tests/fakes/bedrock-wire.ts): split at every byte boundary, cut mid-frame, damaged, too large, aborted.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { SseEventTooLargeError, TruncatedStreamError, type SseEvent } from "@/lib/platform/sse";
import { bedrockModelPath, signBedrockRequest } from "@/lib/providers/aws-sign";
import {
  converseStreamEvents,
  type EventStreamFrame,
  EventStreamFrameError,
  invokeStreamEvents,
  isBedrockException,
  readEventStream,
} from "@/lib/providers/event-stream";
import { upstreamBody, upstreamFetch } from "@/lib/providers/http";
import { defaultCredentials, startFakeBedrock } from "../fakes/bedrock.ts";
import { chunkFrame, converseEvents, converseFrame, defaultUsage, exceptionFrame, messagesEvents } from "../fakes/bedrock-wire.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const ANSWER = {
  text: "Bonjour tout le monde, ça va?",
  usage: defaultUsage,
  toolCall: { id: "tooluse_01", name: "get_weather", input: { city: "Paris" } },
};

const converse = converseEvents(ANSWER);
const converseBytes = Buffer.concat(converse.map(([type, body], index) => converseFrame(type, body, index)));
const messages = messagesEvents(MODEL, ANSWER);
const invokeBytes = Buffer.concat(messages.map((event, index) => chunkFrame(event, index)));

/** A Web stream delivering `bytes` cut at the given offsets. */
function body(bytes: Uint8Array, cuts: number[] = []): ReadableStream<Uint8Array> {
  const offsets = [...new Set([0, ...cuts.filter((cut) => cut > 0 && cut < bytes.length), bytes.length])].sort((a, b) => a - b);
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index >= offsets.length - 1) return controller.close();
      controller.enqueue(bytes.slice(offsets[index]!, offsets[index + 1]!));
      index += 1;
    },
  });
}

async function frames(source: ReadableStream<Uint8Array> | Readable, signal = new AbortController().signal): Promise<EventStreamFrame[]> {
  const out: EventStreamFrame[] = [];
  for await (const frame of readEventStream(source, signal)) out.push(frame);
  return out;
}

async function collect(events: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The frames as the test compares them: types and payload text. */
function shown(list: EventStreamFrame[]) {
  return list.map((frame) => ({ ...frame, payload: Buffer.from(frame.payload).toString("utf8") }));
}

const expectedConverse = converse.map(([type]) => type);

/** Where each frame of converseBytes ends. */
const frameEnds: number[] = [];
for (let at = 0; at < converseBytes.length; at += converseBytes.readUInt32BE(at)) frameEnds.push(at + converseBytes.readUInt32BE(at));

describe("readEventStream", () => {
  test("ConverseStream frames in one chunk: types and payloads", async () => {
    const read = shown(await frames(body(converseBytes)));
    assert.deepEqual(
      read.map((frame) => frame.eventType),
      expectedConverse,
    );
    assert.ok(read.every((frame) => frame.messageType === "event"));
    assert.deepEqual(JSON.parse(read.at(-1)!.payload).usage, { inputTokens: 1237, outputTokens: 389, totalTokens: 1626 });
  });

  test("split at every byte boundary, and one byte per chunk: the same frames", async () => {
    const whole = shown(await frames(body(converseBytes)));
    for (let cut = 1; cut < converseBytes.length; cut++)
      assert.deepEqual(shown(await frames(body(converseBytes, [cut]))), whole, `cut at ${cut}`);
    const everyByte = Array.from({ length: converseBytes.length }, (_, index) => index);
    assert.deepEqual(shown(await frames(body(converseBytes, everyByte))), whole);
    // Random cuts, several per body (seeded, so a failure can be replayed).
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * converseBytes.length;
    for (let round = 0; round < 200; round++) {
      const cuts = Array.from({ length: 1 + (round % 12) }, () => Math.floor(random()));
      assert.deepEqual(shown(await frames(body(converseBytes, cuts))), whole, `cuts ${cuts}`);
    }
  });

  test("a Node stream (undici's own body) is read the same way", async () => {
    const chunks = [converseBytes.subarray(0, 5), converseBytes.subarray(5, 300), converseBytes.subarray(300)];
    assert.deepEqual(shown(await frames(Readable.from(chunks))), shown(await frames(body(converseBytes))));
  });

  test("a body that ends inside a frame, or inside a frame's length, is a TruncatedStreamError after the whole frames", async () => {
    const firstLength = converseBytes.readUInt32BE(0);
    for (const end of [2, firstLength + 3, firstLength + 20, converseBytes.length - 1]) {
      const read: EventStreamFrame[] = [];
      await assert.rejects(async () => {
        for await (const frame of readEventStream(body(converseBytes.subarray(0, end), [1, end - 1]), new AbortController().signal))
          read.push(frame);
      }, TruncatedStreamError);
      assert.equal(read.length, frameEnds.filter((frameEnd) => frameEnd <= end).length, `ended at ${end}`);
    }
  });

  test("a damaged frame (its CRC does not match) is an EventStreamFrameError after the frames before it", async () => {
    const firstLength = converseBytes.readUInt32BE(0);
    for (const at of [firstLength + 8, firstLength + 20, firstLength + converseBytes.readUInt32BE(firstLength) - 1]) {
      const damaged = Buffer.from(converseBytes);
      damaged[at]! ^= 0x01;
      const read: EventStreamFrame[] = [];
      await assert.rejects(
        async () => {
          for await (const frame of readEventStream(body(damaged, [firstLength + 3]), new AbortController().signal)) read.push(frame);
        },
        (error: Error) => error instanceof EventStreamFrameError && /checksum/i.test(error.message),
      );
      assert.equal(read.length, 1, `damaged at ${at}`);
    }
  });

  test("a frame longer than the bound is an SseEventTooLargeError at once, before it is received", async () => {
    const huge = Buffer.alloc(12);
    huge.writeUInt32BE(0xffffffff, 0);
    await assert.rejects(frames(body(huge)), SseEventTooLargeError);
    const small: EventStreamFrame[] = [];
    await assert.rejects(async () => {
      for await (const frame of readEventStream(body(converseBytes), new AbortController().signal, { maxFrameBytes: 200 }))
        small.push(frame);
    }, SseEventTooLargeError);
    const tiny = Buffer.alloc(8);
    tiny.writeUInt32BE(8, 0);
    await assert.rejects(frames(body(tiny)), EventStreamFrameError);
  });

  test("an abort ends the reading with its reason and destroys the body; so does leaving the loop", async () => {
    const abort = new AbortController();
    const source = new Readable({ read() {} });
    source.push(converseBytes.subarray(0, converseBytes.readUInt32BE(0) + 10));
    const reading = (async () => {
      const read: EventStreamFrame[] = [];
      for await (const frame of readEventStream(source, abort.signal)) {
        read.push(frame);
        setTimeout(() => abort.abort(new Error("client left")), 10);
      }
      return read;
    })();
    await assert.rejects(reading, /client left/);
    assert.ok(source.destroyed);

    const left = Readable.from([converseBytes]);
    for await (const _frame of readEventStream(left, new AbortController().signal)) break;
    assert.ok(left.destroyed);
    await assert.rejects(frames(body(converseBytes), AbortSignal.abort(new Error("gone already"))), /gone already/);
  });
});

describe("as SSE events", () => {
  test("InvokeWithResponseStream chunks become the Messages events they carry, named by their type", async () => {
    const events = await collect(invokeStreamEvents(readEventStream(body(invokeBytes, [17, 400, 401]), new AbortController().signal)));
    assert.deepEqual(
      events.map((event) => event.event),
      messages.map((event) => event.type),
    );
    assert.deepEqual(
      events.map((event) => JSON.parse(event.data)),
      messages,
    );
    assert.ok(!events.some(isBedrockException));
  });

  test("ConverseStream frames become {event: :event-type, data: payload}", async () => {
    const events = await collect(converseStreamEvents(readEventStream(body(converseBytes), new AbortController().signal)));
    assert.deepEqual(
      events.map((event) => event.event),
      expectedConverse,
    );
    const { p: _padding, ...delta } = JSON.parse(events[1]!.data);
    assert.deepEqual(delta, converse[1]![1]);
  });

  test("an exception frame, and an error message, come out as an event named by their type", async () => {
    const exception = exceptionFrame("throttlingException", { message: "Too many requests, please wait before trying again." });
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const error = codec.encode({
      headers: {
        ":message-type": { type: "string", value: "error" },
        ":error-code": { type: "string", value: "InternalFailure" },
        ":error-message": { type: "string", value: "Something broke" },
      },
      body: new Uint8Array(0),
    });
    const bytes = Buffer.concat([chunkFrame(messages[0], 0), exception, error]);
    const invoke = await collect(invokeStreamEvents(readEventStream(body(bytes), new AbortController().signal)));
    assert.deepEqual(invoke.slice(1), [
      { event: "throttlingException", data: JSON.stringify({ message: "Too many requests, please wait before trying again." }) },
      { event: "InternalFailure", data: JSON.stringify({ message: "Something broke" }) },
    ]);
    assert.equal(isBedrockException(invoke[1]!), true);
    const converseSide = await collect(converseStreamEvents(readEventStream(body(Buffer.from(exception)), new AbortController().signal)));
    assert.deepEqual(converseSide, [invoke[1]]);
  });

  test("a chunk without its bytes is a SyntaxError", async () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const bad = codec.encode({
      headers: { ":message-type": { type: "string", value: "event" }, ":event-type": { type: "string", value: "chunk" } },
      body: fromUtf8(JSON.stringify({ p: "abc" })),
    });
    await assert.rejects(collect(invokeStreamEvents(readEventStream(body(bad), new AbortController().signal))), SyntaxError);
  });

  test("end to end: a signed ConverseStream call to the Bedrock fake, read from undici's body", async () => {
    const fake = await startFakeBedrock();
    try {
      fake.answer = { text: "One two three", pauseMs: 5 };
      const url = `${fake.httpUrl}${bedrockModelPath(MODEL, "converse-stream")}`;
      const text = JSON.stringify({ messages: [{ role: "user", content: [{ text: "Count" }] }] });
      const headers = await signBedrockRequest({
        url,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
        credential: { kind: "sigv4", accessKeyId: defaultCredentials.accessKeyId, secretAccessKey: defaultCredentials.secretAccessKey },
        region: fake.region,
      });
      const result = await upstreamFetch(url, { method: "POST", headers, body: text }, { signal: new AbortController().signal });
      assert.ok(result.ok);
      const events = await collect(converseStreamEvents(readEventStream(upstreamBody(result.response), result.abort.signal)));
      assert.deepEqual(
        events.map((event) => event.event),
        ["messageStart", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"],
      );
      assert.equal(events.map((event) => JSON.parse(event.data).delta?.text ?? "").join(""), "One two three");
    } finally {
      await fake.close();
    }
  });
});
