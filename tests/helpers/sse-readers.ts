// Both SSE readers of lib/platform/sse.ts, as one shape (events with text data), so that the parser tests
// (tests/unit/sse-*.test.ts) run each case against both: they must give the same events and the same errors.
import { readSseEvents, readSseRaw, type SseEvent } from "@/lib/platform/sse";

/** The raw reader (event data as bytes, handed on as it arrives), its pieces gathered per event and read as text. */
async function* readRawAsText(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent, void, undefined> {
  let data: Buffer[] = [];
  for await (const items of readSseRaw(body, signal))
    for (const item of items) {
      if ("data" in item) {
        data.push(item.data);
        continue;
      }
      const joined = Buffer.concat(data);
      data = [];
      if (joined.length !== item.end.length) throw new Error(`the event's length is ${item.end.length}, its data ${joined.length}`);
      yield {
        ...(item.end.event === undefined ? {} : { event: item.end.event }),
        ...(item.end.id === undefined ? {} : { id: item.end.id }),
        data: joined.toString("utf8"),
      };
    }
}

export const SSE_READERS = [
  ["readSseEvents", (body: ReadableStream<Uint8Array>, signal?: AbortSignal) => readSseEvents(body, signal)],
  ["readSseRaw", readRawAsText],
] as const;
