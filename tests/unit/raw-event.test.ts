// lib/wire/raw-event.ts: large Responses events go out while they arrive, and what goes out is the event, edited.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { EventRewriter, RawEventError, type EventPart } from "@/lib/wire/raw-event";
import { SentString } from "@/lib/wire/raw-json";
// Seeded, so that a failure can be replayed.
import { mulberry32 } from "@/lib/platform/random";

const KEYS = ["partial_image_b64", "result"] as const;

/** The edit the native Responses relay makes (lib/providers/openai/responses.ts). */
function edit(event: Record<string, unknown>) {
  delete event.sequence_number;
  const inner = event.response as { model?: unknown; tools?: { type?: unknown; model?: unknown }[] } | undefined;
  if (!inner || typeof inner !== "object") return;
  inner.model = "std-5.5";
  for (const entry of Array.isArray(inner.tools) ? inner.tools : [])
    if (entry?.type === "image_generation" && "model" in entry) entry.model = "std-image-2";
}

type Outcome =
  | { streamed: false; held: Buffer; parts: 0 }
  | { streamed: true; text: string; event: Record<string, unknown>; parts: number; firstAt: number };

/** Feeds `data` in pieces of the given sizes (cycled), then ends the event; gathers what went out. */
function feed(data: Buffer, sizes: number[], options: Partial<ConstructorParameters<typeof EventRewriter>[0]> = {}): Outcome {
  const rewriter = new EventRewriter({ keys: KEYS, minBytes: 4096, streamAfter: 64 * 1024, edit, mayStream: () => true, ...options });
  const out: EventPart[] = [];
  let firstAt = -1;
  let offset = 0;
  for (let index = 0; offset < data.length; index++) {
    const size = sizes[index % sizes.length]!;
    const produced = rewriter.write(data.subarray(offset, offset + size));
    offset += size;
    if (produced.length && firstAt < 0) firstAt = Math.min(offset, data.length);
    out.push(...produced);
  }
  const end = rewriter.end();
  if ("held" in end) {
    assert.equal(out.length, 0, "nothing goes out of an event that is held");
    return { streamed: false, held: Buffer.concat(end.held), parts: 0 };
  }
  assert.equal(out[0]!.part, "start");
  return { streamed: true, text: textOf([...out, end]), event: end.event, parts: out.length + 1, firstAt };
}

/** What went out, as the client reads it (UTF-8). */
function textOf(parts: EventPart[]): string {
  return Buffer.concat(parts.flatMap((part) => (part.part === "bytes" ? part.bytes : [Buffer.from(part.text)]))).toString("utf8");
}

function base64(next: () => number, length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let text = "";
  for (let index = 0; index < length; index++) text += alphabet[Math.floor(next() * 64)];
  return text;
}

/** Events as an upstream sends them, each with one or more images, in the shapes of the vendor's stream. */
function events(next: () => number): Record<string, unknown>[] {
  const image = () => base64(next, 70_000 + Math.floor(next() * 150_000));
  const prompt = 'A "storm" at sea — ünïcödé ✓, a backslash \\ and a line\nbreak';
  return [
    {
      type: "response.image_generation_call.partial_image",
      output_index: 0,
      item_id: "ig_1",
      partial_image_index: 0,
      partial_image_b64: image(),
      size: "1024x1024",
      quality: "high",
      sequence_number: 7,
    },
    {
      sequence_number: 8,
      type: "response.output_item.done",
      output_index: 0,
      item: { id: "ig_1", type: "image_generation_call", status: "completed", result: image(), revised_prompt: prompt, size: "1024x1024" },
    },
    {
      type: "response.completed",
      response: {
        id: "resp_1",
        model: "gpt-upstream",
        output: [
          { id: "ig_1", type: "image_generation_call", result: image(), revised_prompt: prompt },
          { id: "ig_2", type: "image_generation_call", result: image(), revised_prompt: "second" },
        ],
        tools: [{ type: "image_generation", model: "gpt-image-upstream", size: "1024x1024" }],
        usage: { input_tokens: 10, output_tokens: 20 },
      },
      sequence_number: 30,
    },
  ];
}

/** The event the client must get: the upstream's, edited; long strings as their hash, so a difference reads short. */
function expected(event: Record<string, unknown>): unknown {
  const copy = structuredClone(event);
  edit(copy);
  return short(copy);
}

function short(value: unknown): unknown {
  if (typeof value === "string")
    return value.length > 256 ? `${value.length} characters, ${createHash("sha256").update(value).digest("hex")}` : value;
  if (Array.isArray(value)) return value.map(short);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, short(inner)]));
  return value;
}

/** The images of an event by where they are, and their lengths. */
function imageLengths(value: unknown, path = ""): Record<string, number> {
  if (typeof value === "string") return value.length > 4096 ? { [path]: value.length } : {};
  if (value instanceof SentString) return { [path]: value.length };
  if (value && typeof value === "object")
    return Object.assign({}, ...Object.entries(value).map(([key, inner]) => imageLengths(inner, `${path}/${key}`)));
  return {};
}

describe("EventRewriter", () => {
  test("large events go out in parts that make up the edited event, whatever the pieces they arrive in", () => {
    const next = mulberry32(0x5eed);
    let streamed = 0;
    for (let round = 0; round < 12; round++) {
      for (const event of events(next)) {
        // Compact as vendors send it, or spread over lines (the SSE data lines joined with "\n").
        const data = Buffer.from(round % 3 === 2 ? JSON.stringify(event, null, 1) : JSON.stringify(event));
        const sizes = Array.from({ length: 7 }, () => (next() < 0.2 ? 1 + Math.floor(next() * 8) : 1 + Math.floor(next() * 70_000)));
        const outcome = feed(data, sizes);
        if (!outcome.streamed) {
          assert.deepEqual(outcome.held, data, "a held event is its data, unchanged");
          continue;
        }
        streamed++;
        assert.ok(!/[\r\n]/.test(outcome.text), "what goes out is one SSE data line");
        assert.deepEqual(short(JSON.parse(outcome.text)), expected(event), `round ${round}, ${event.type}`);
        assert.deepEqual(imageLengths(outcome.event), imageLengths(event), "the images' lengths are known after the event");
        assert.equal(outcome.event.type, event.type);
        assert.ok(outcome.firstAt < data.length, "the first part went out before the event's end arrived");
      }
    }
    assert.ok(streamed >= 30, `most events went out while they arrived (${streamed} of 36)`);
  });

  test("an event with several images passes each on; the bytes of each go out as they come", () => {
    const event = events(mulberry32(3))[2]!;
    const data = Buffer.from(JSON.stringify(event));
    const outcome = feed(data, [16 * 1024]);
    assert.ok(outcome.streamed);
    assert.deepEqual(short(JSON.parse(outcome.text)), expected(event));
    // start, the first image's pieces, the fields between, the second image's pieces, the end.
    assert.ok(outcome.parts > 20, `${outcome.parts} parts`);
    assert.ok(outcome.firstAt <= 80 * 1024, `the first part went out after ${outcome.firstAt} bytes`);
  });

  test("small events, a type after the image, an image with escapes, and a refusal are held whole", () => {
    const next = mulberry32(9);
    const image = base64(next, 100_000);
    const cases: [string, Record<string, unknown>, Partial<ConstructorParameters<typeof EventRewriter>[0]>][] = [
      ["small", { type: "response.image_generation_call.partial_image", partial_image_b64: base64(next, 20_000) }, {}],
      ["type after the image", { partial_image_b64: image, type: "response.image_generation_call.partial_image" }, {}],
      ["escapes in the image", { type: "x", partial_image_b64: image.replaceAll("/", "\\/") }, {}],
      ["an image under another name", { type: "x", picture: image }, {}],
      ["refused", { type: "response.output_item.done", item: { id: "ig_9", result: image } }, { mayStream: () => false }],
    ];
    for (const [name, event, options] of cases) {
      const data = Buffer.from(JSON.stringify(event).replaceAll("\\\\/", "\\/"));
      const outcome = feed(data, [4096], options);
      assert.equal(outcome.streamed, false, name);
      assert.deepEqual(outcome.held, data, name);
    }
  });

  test("escapes before the image, split anywhere: the image is still found and passed on", () => {
    const image = base64(mulberry32(21), 90_000);
    const event = {
      type: "response.image_generation_call.partial_image",
      // An odd number of escaped quotes: a reader that lost one would be outside the strings from there on.
      note: 'a 5" screen, a \\ backslash, a \u00e9 and a tab\t '.repeat(41),
      'key with "quotes"': { result: "short" },
      partial_image_b64: image,
      after: "end",
    };
    const data = Buffer.from(JSON.stringify(event));
    for (const size of [1, 2, 3, 5]) {
      const outcome = feed(data, [size]);
      assert.ok(outcome.streamed, `pieces of ${size} bytes`);
      assert.deepEqual(short(JSON.parse(outcome.text)), expected(event));
    }
  });

  test("an image field's value with escapes after its start: passed on, escapes and all, up to its real end", () => {
    const value = `${base64(mulberry32(22), 80_000)}\\"x\\\\${base64(mulberry32(23), 30_000)}\\/`;
    const data = Buffer.from(`{"type":"x","result":"${value}","after":"a \\" quote"}`);
    for (const size of [1000, 4099, 65_536]) {
      const outcome = feed(data, [size]);
      assert.ok(outcome.streamed, `pieces of ${size} bytes`);
      assert.deepEqual(short(JSON.parse(outcome.text)), short(JSON.parse(data.toString())));
    }
  });

  test("one rewriter reads event after event", () => {
    const rewriter = new EventRewriter({ keys: KEYS, minBytes: 4096, streamAfter: 64 * 1024, edit, mayStream: () => true });
    const [first, second] = events(mulberry32(11));
    for (const event of [first!, { type: "keepalive" }, second!, first!]) {
      const data = Buffer.from(JSON.stringify(event));
      const parts: EventPart[] = [];
      for (let offset = 0; offset < data.length; offset += 50_000) parts.push(...rewriter.write(data.subarray(offset, offset + 50_000)));
      const end = rewriter.end();
      if ("held" in end) {
        assert.equal(event.type, "keepalive");
        continue;
      }
      assert.deepEqual(short(JSON.parse(textOf([...parts, end]))), expected(event));
    }
  });

  test("an event that breaks the rules after it started going out fails instead of sending something else", () => {
    const next = mulberry32(5);
    const image = base64(next, 100_000);
    const data = Buffer.from(JSON.stringify({ type: "x", before: "a", partial_image_b64: image, after: "b" }));
    // An edit that would change a field already sent, from one that comes after the image.
    const late = (event: Record<string, unknown>) => {
      if (event.after === "b") event.before = "changed";
    };
    assert.throws(() => feed(data, [70_000], { edit: late }), RawEventError);
    // A line break inside the image (it came over two data lines): the image is not one JSON string.
    const rewriter = new EventRewriter({ keys: KEYS, minBytes: 4096, streamAfter: 64 * 1024, edit, mayStream: () => true });
    assert.equal(rewriter.write(data.subarray(0, 70_000))[0]?.part, "start");
    assert.throws(() => rewriter.write(Buffer.from("\n")), RawEventError);
    // Not JSON after the image.
    const broken = Buffer.concat([data.subarray(0, data.length - 1), Buffer.from(",}")]);
    assert.throws(() => feed(broken, [70_000]), RawEventError);
    // The event ends inside the image.
    assert.throws(() => feed(data.subarray(0, 90_000), [70_000]), RawEventError);
  });
});
