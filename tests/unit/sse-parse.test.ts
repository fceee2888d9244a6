import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { encodeSse, TruncatedStreamError, type SseEvent } from "@/lib/platform/sse";
import { SSE_READERS } from "../helpers/sse-readers";

/** A body that delivers `bytes` cut at exactly the given offsets. */
function bodyFrom(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
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

function textBody(text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  return bodyFrom(new TextEncoder().encode(text), cuts);
}

for (const [reader, readSseEvents] of SSE_READERS) {
  describe(reader, () => {
    async function collect(body: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<SseEvent[]> {
      const events: SseEvent[] = [];
      for await (const event of readSseEvents(body, signal)) events.push(event);
      return events;
    }

    test("parses named events, ids, comments and multi-line data", async () => {
      const text = ': keep-alive comment\n\nevent: message_start\nid: 7\ndata: {"a":1}\n\ndata: first\ndata: second\n\nretry: 1000\n\n';
      assert.deepEqual(await collect(textBody(text)), [{ event: "message_start", id: "7", data: '{"a":1}' }, { data: "first\nsecond" }]);
    });

    test("every byte split gives the same events (CRLF, CR and LF line endings)", async () => {
      const text = "event: a\r\ndata: héllo 😀\r\n\r\nevent: b\rdata: x\r\rdata: y\n\n";
      const bytes = new TextEncoder().encode(text);
      const expected = [{ event: "a", data: "héllo 😀" }, { event: "b", data: "x" }, { data: "y" }];
      for (let cut = 1; cut < bytes.length; cut++) {
        assert.deepEqual(await collect(bodyFrom(bytes, [cut])), expected, `cut at byte ${cut}`);
      }
      // And one byte at a time.
      assert.deepEqual(
        await collect(
          bodyFrom(
            bytes,
            Array.from({ length: bytes.length }, (_, i) => i),
          ),
        ),
        expected,
      );
    });

    test("a 10 MB data line arrives whole through odd-sized chunks split inside UTF-8 characters and CRLF", async () => {
      // 10 MB of mixed 1-, 2-, 3- and 4-byte characters.
      const unit = "partial-image:é€😀/";
      const unitBytes = new TextEncoder().encode(unit).length; // 14 + 2 + 3 + 4 + 1 = 24 bytes
      const payload = unit.repeat(Math.ceil((10 * 1024 * 1024) / unitBytes));
      const text = `event: response.image_generation_call.partial_image\r\ndata: ${payload}\r\n\r\nevent: done\r\ndata: [DONE]\r\n\r\n`;
      const bytes = new TextEncoder().encode(text);
      assert.ok(bytes.length > 10 * 1024 * 1024);

      const payloadStart = text.indexOf("data: ") + "data: ".length; // ASCII before it, so chars = bytes
      const emojiInUnit = new TextEncoder().encode("partial-image:é€").length;
      const cuts: number[] = [];
      // Odd-sized chunks (primes between 1 byte and 64 KB), plus cuts inside a 2-, 3- and 4-byte character and
      // between the "\r" and "\n" that end the huge line.
      const sizes = [1, 7, 13, 4093, 65_521, 3, 32_749, 127];
      for (let offset = 0, turn = 0; offset < bytes.length; turn++) {
        offset += sizes[turn % sizes.length]!;
        cuts.push(offset);
      }
      cuts.push(
        payloadStart + 15,
        payloadStart + emojiInUnit - 1,
        payloadStart + emojiInUnit + 2,
        payloadStart + unitBytes * 1000 + emojiInUnit + 1,
      );
      const crlfAfterPayload = bytes.indexOf(13, payloadStart);
      assert.equal(bytes[crlfAfterPayload + 1], 10);
      cuts.push(crlfAfterPayload + 1);

      const events = await collect(bodyFrom(bytes, cuts));
      assert.equal(events.length, 2);
      assert.equal(events[0]!.event, "response.image_generation_call.partial_image");
      assert.equal(events[0]!.data.length, payload.length);
      assert.ok(events[0]!.data === payload, "the payload is byte-identical");
      assert.deepEqual(events[1], { event: "done", data: "[DONE]" });
    });

    test("a body cut inside an event throws TruncatedStreamError after yielding the complete events", async () => {
      for (const tail of ['data: {"partial', 'data: {"complete":true}\n', 'data: {"complete":true}\r', "event: x\ndata", "data: é\n"]) {
        const events: SseEvent[] = [];
        await assert.rejects(
          async () => {
            for await (const event of readSseEvents(textBody(`data: one\n\n${tail}`))) events.push(event);
          },
          (error: unknown) =>
            error instanceof TruncatedStreamError &&
            tail.startsWith(`${error.partialEvent.event ? `event: ${error.partialEvent.event}\n` : ""}data`),
          JSON.stringify(tail),
        );
        assert.deepEqual(events, [{ data: "one" }], JSON.stringify(tail));
      }
      // A multibyte character cut by the end of the body is a truncation too.
      const bytes = new TextEncoder().encode("data: one\n\ndata: 😀\n\n");
      await assert.rejects(collect(bodyFrom(bytes.slice(0, bytes.length - 5), [])), TruncatedStreamError);
    });

    test("ends cleanly on an event boundary, a trailing comment, or a final bare CR blank line", async () => {
      assert.deepEqual(await collect(textBody("data: a\n\n")), [{ data: "a" }]);
      assert.deepEqual(await collect(textBody("data: a\n\n: ping\n")), [{ data: "a" }]);
      assert.deepEqual(await collect(textBody("data: a\r\r")), [{ data: "a" }]);
      assert.deepEqual(await collect(textBody("data: a\r\n\r\n")), [{ data: "a" }]);
      assert.deepEqual(await collect(textBody("")), []);
    });

    test("an abort signal cancels the body and throws the abort reason", async () => {
      let cancelled: unknown = "not cancelled";
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: first\n\n"));
          // Never closes: like an upstream that stalls.
        },
        cancel(reason) {
          cancelled = reason;
        },
      });
      const controller = new AbortController();
      const events: SseEvent[] = [];
      await assert.rejects(async () => {
        for await (const event of readSseEvents(body, controller.signal)) {
          events.push(event);
          setTimeout(() => controller.abort(new Error("client went away")), 5);
        }
      }, /client went away/);
      assert.deepEqual(events, [{ data: "first" }]);
      assert.ok(cancelled instanceof Error && cancelled.message === "client went away");
    });

    test("breaking out of the loop cancels the body", async () => {
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: 1\n\ndata: 2\n\n"));
        },
        cancel() {
          cancelled = true;
        },
      });
      for await (const event of readSseEvents(body)) {
        assert.equal(event.data, "1");
        break;
      }
      assert.equal(cancelled, true);
    });

    test("an already-aborted signal throws before reading", async () => {
      const controller = new AbortController();
      controller.abort(new Error("too late"));
      await assert.rejects(collect(textBody("data: x\n\n"), controller.signal), /too late/);
    });

    test("encodeSse writes one data line per line and round-trips through the parser", async () => {
      assert.equal(encodeSse({ event: "ping", data: '{"type":"ping"}' }), 'event: ping\ndata: {"type":"ping"}\n\n');
      assert.equal(encodeSse({ data: "a\nb\r\nc" }), "data: a\ndata: b\ndata: c\n\n");
      assert.equal(encodeSse({ data: "" }), "data: \n\n");
      const events = [
        { event: "x", data: " leading space and trailing \n" },
        { data: '{"text":"line\\nbreak"}' },
        { event: "y", data: "", id: "42" },
      ];
      assert.deepEqual(await collect(textBody(events.map(encodeSse).join(""))), events);
      assert.throws(() => encodeSse({ event: "a\nb", data: "" }));
    });
  });
}
