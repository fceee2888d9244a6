// The SSE readers of lib/platform/sse.ts on a long stream from a Node stream (an upstream answer's own body): a chunk
// that has been read and handed on is garbage, however long the stream still runs. A Responses stream passes tens of
// megabytes of images; holding its chunks until its end held them all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import v8 from "node:v8";
import vm from "node:vm";
import { readSseEvents, readSseRaw } from "@/lib/platform/sse";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const CHUNKS = 200;
const WATCHED = 50;

/** A Node stream of CHUNKS events of ~64 KB, one per chunk; the first WATCHED chunks are watched through WeakRefs. */
function longStream(watched: WeakRef<Buffer>[]): { stream: Readable; produced: () => number } {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced === CHUNKS) return void this.push(null);
      const chunk = Buffer.from(`event: part\ndata: ${String(produced).padEnd(65_000, "x")}\n\n`);
      if (produced < WATCHED) watched.push(new WeakRef(chunk));
      produced++;
      this.push(chunk);
    },
  });
  return { stream, produced: () => produced };
}

/** How many of the watched chunks are still alive after a full collection. */
async function alive(watched: WeakRef<Buffer>[]): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return watched.filter((ref) => ref.deref() !== undefined).length;
}

for (const [name, read] of [
  ["readSseEvents", (stream: Readable) => readSseEvents(stream)],
  ["readSseRaw", (stream: Readable) => readSseRaw(stream)],
] as const) {
  test(`${name}: chunks already read from a Node stream are not kept while the stream goes on`, async () => {
    const watched: WeakRef<Buffer>[] = [];
    const { stream, produced } = longStream(watched);
    let checked = -1;
    let events = 0;
    for await (const batch of read(stream)) {
      events += Array.isArray(batch) ? batch.filter((item) => "end" in item).length : 1;
      if (checked < 0 && produced() >= 150) checked = await alive(watched);
    }
    assert.equal(events, CHUNKS, "every event was read");
    assert.equal(watched.length, WATCHED);
    assert.ok(checked >= 0 && checked <= 2, `${checked} of the first ${WATCHED} chunks were still in memory 100 chunks later`);
  });
}
