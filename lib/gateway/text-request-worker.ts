// A body worker (lib/platform/worker-pool.ts): parses, validates and counts large /v1 text bodies off the event loop
// (lib/gateway/text-request.ts). It loads the tokenizer's table once, then says it is ready.
import { parentPort } from "node:worker_threads";
import { loadTokenizer } from "@/lib/money/bpe";
import type { WorkerReply } from "@/lib/platform/worker-pool";
import { prepareBytes, type TextKind } from "./text-request";

loadTokenizer();
const port = parentPort!;
port.on("message", (job: { id: number; kind: TextKind; bytes: Uint8Array }) => {
  let reply: WorkerReply;
  try {
    reply = { id: job.id, result: prepareBytes(job.kind, job.bytes) };
  } catch (error) {
    reply = { id: job.id, failure: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ id: -1 } satisfies WorkerReply);
