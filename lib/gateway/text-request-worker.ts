// A body worker (lib/platform/worker-pool.ts): parses, validates and counts large /v1 text bodies off the event loop
// (lib/gateway/text-request.ts). It loads the tokenizer's table once, then says it is ready. Each job names its body
// kind by the module that declares it (defineBodyKind); the worker imports that module on its first job of the kind.
//
// Once it has had nothing to do for a second it collects its garbage: a job leaves the parsed body of up to 32 MB
// (a few hundred MB of heap) behind, and V8 collects only when more is allocated, which an idle worker never does; the
// process kept that memory until the next large body (docs/decisions/0018-large-bodies-off-the-event-loop.md).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort } from "node:worker_threads";
import { loadTokenizer } from "@/lib/money/bpe";
import type { WorkerReply } from "@/lib/platform/worker-pool";
import { loadBodyKind, prepareBytes, type BodyKindAddress } from "./text-request";

const IDLE_COLLECT_MS = 1_000;

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
let idle: NodeJS.Timeout | undefined;

loadTokenizer();
const port = parentPort!;
port.on("message", async (job: { id: number; kind: BodyKindAddress; bytes: Uint8Array }) => {
  clearTimeout(idle);
  let reply: WorkerReply;
  try {
    reply = { id: job.id, result: prepareBytes(await loadBodyKind(job.kind), job.bytes) };
  } catch (error) {
    reply = { id: job.id, failure: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  idle = setTimeout(collect, IDLE_COLLECT_MS);
  idle.unref();
});
port.postMessage({ id: -1 } satisfies WorkerReply);
