// Property-based tests of the SSE parser: any events, encoded by encodeSse and delivered
// in any chunking (cuts inside lines, inside CRLF pairs, inside multibyte characters), come back exactly; and a body
// cut anywhere short of an event boundary yields exactly the complete events before the cut, then TruncatedStreamError.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeSse, TruncatedStreamError, type SseEvent } from "@/lib/platform/sse";
import { SSE_READERS } from "../helpers/sse-readers";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Text without lone surrogates (what UTF-8 can carry), including line breaks of every kind in data. */
const text = fc.string({ unit: "binary", maxLength: 60 });
const lineFree = fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).filter((value) => !/[\r\n]/.test(value));
const idText = fc.string({ unit: "binary", maxLength: 10 }).filter((value) => !/[\r\n\0]/.test(value));

const eventArbitrary: fc.Arbitrary<SseEvent> = fc.record(
  {
    event: lineFree,
    data: fc.oneof(
      text,
      fc.tuple(fc.array(text, { maxLength: 4 }), fc.constantFrom("\n", "\r\n", "\r")).map(([lines, lineBreak]) => lines.join(lineBreak)),
    ),
    id: idText,
  },
  { requiredKeys: ["data"] },
);

/** What the parser gives back for an event: line breaks in data come back as "\n". */
function normalised(event: SseEvent): SseEvent {
  const out: SseEvent = { data: event.data.replace(/\r\n|\r/g, "\n") };
  if (event.event !== undefined) out.event = event.event;
  if (event.id !== undefined) out.id = event.id;
  return out;
}

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

for (const [reader, readSseEvents] of SSE_READERS) {
  describe(reader, () => {
    async function collect(body: ReadableStream<Uint8Array>): Promise<{ events: SseEvent[]; error: unknown }> {
      const events: SseEvent[] = [];
      try {
        for await (const event of readSseEvents(body)) events.push(event);
        return { events, error: null };
      } catch (error) {
        return { events, error };
      }
    }

    const encoder = new TextEncoder();

    test("property: random events in random chunkings re-assemble exactly", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(eventArbitrary, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), async (events, rawCuts) => {
          const bytes = encoder.encode(events.map(encodeSse).join(""));
          const cuts = rawCuts.map((cut) => (bytes.length ? cut % bytes.length : 0));
          const result = await collect(bodyFrom(bytes, cuts));
          assert.equal(result.error, null);
          assert.deepEqual(result.events, events.map(normalised));
        }),
        { numRuns: RUNS },
      );
    });

    test("property: a body cut short of an event boundary yields the complete events, then TruncatedStreamError", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(eventArbitrary, { minLength: 1, maxLength: 6 }),
          fc.nat(),
          fc.array(fc.nat(), { maxLength: 6 }),
          async (events, rawCut, rawChunks) => {
            const encoded = events.map(encodeSse);
            const all = encoder.encode(encoded.join(""));
            const cut = 1 + (rawCut % (all.length - 1)); // 1 .. length-1: never the whole body
            const boundaries = new Set<number>();
            // Where an event ends, and where the event/id lines of the next one end (a cut there loses no data line: the
            // parser has nothing to report, and the gateway has delivered everything it received).
            let offset = 0;
            const harmless = new Set<number>();
            for (const [index, text] of encoded.entries()) {
              const event = events[index]!;
              let head = offset;
              if (event.event !== undefined) harmless.add((head += encoder.encode(`event: ${event.event}\n`).length));
              if (event.id !== undefined) harmless.add((head += encoder.encode(`id: ${event.id}\n`).length));
              offset += encoder.encode(text).length;
              boundaries.add(offset);
            }
            const complete = encoded.filter((_, index) => [...boundaries].sort((a, b) => a - b)[index]! <= cut).length;
            const result = await collect(
              bodyFrom(
                all.slice(0, cut),
                rawChunks.map((chunk) => chunk % cut),
              ),
            );
            assert.deepEqual(result.events, events.slice(0, complete).map(normalised), "exactly the events completed before the cut");
            if (boundaries.has(cut) || harmless.has(cut)) assert.equal(result.error, null);
            else assert.ok(result.error instanceof TruncatedStreamError, `cut at ${cut} of ${all.length}: ${String(result.error)}`);
          },
        ),
        { numRuns: RUNS },
      );
    });
  });
}
