// Both SSE readers of lib/platform/sse.ts, as one shape (events with text data), so that the parser tests
// (tests/unit/sse-*.test.ts) run each case against both: they must give the same events and the same errors.
import { readSseEvents, readSseEventsRaw, type SseEvent } from "@/lib/platform/sse";

/** The raw reader (event data as bytes), read back as text. */
async function* readRawAsText(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent, void, undefined> {
  for await (const event of readSseEventsRaw(body, signal))
    yield {
      ...(event.event === undefined ? {} : { event: event.event }),
      ...(event.id === undefined ? {} : { id: event.id }),
      data: Buffer.concat(event.data).toString("utf8"),
    };
}

export const SSE_READERS = [
  ["readSseEvents", (body: ReadableStream<Uint8Array>, signal?: AbortSignal) => readSseEvents(body, signal)],
  ["readSseEventsRaw", readRawAsText],
] as const;
