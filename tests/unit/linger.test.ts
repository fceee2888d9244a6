// lingeringBody: a parser that gives up on a body, or a handler that never read it, does not cut the connection or
// leave it blocked; the rest of the body is read and dropped, within a byte and time budget, and only then cancelled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lingeringBody } from "@/lib/platform/http/linger";

const KB = 1024;

function source(totalChunks: number, chunkSize = KB, pauseMs = 0) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        if (state.pulled >= totalChunks) return controller.close();
        state.pulled++;
        controller.enqueue(new Uint8Array(chunkSize));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request("http://gateway.test/upload", { method: "POST", body, duplex: "half" } as RequestInit);
  return { request, state };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the body reads through unchanged", async () => {
  const { request } = source(8);
  const body = lingeringBody(request);
  const text = await body.request.arrayBuffer();
  assert.equal(text.byteLength, 8 * KB);
  body.release();
});

test("a cancelled reader leaves the rest to be drained up to the byte budget, then cancels the source", async () => {
  const { request, state } = source(1000);
  const reader = lingeringBody(request, { maxBytes: 10 * KB, maxMs: 5_000 }).request.body!.getReader();
  await reader.read();
  await reader.cancel();
  await settle(50);
  assert.ok(state.pulled > 5 && state.pulled <= 14, `drained ${state.pulled} chunks`);
  assert.equal(state.cancelled, true);
});

test("a short rest is drained to its end, without cancelling anything", async () => {
  const { request, state } = source(5);
  const reader = lingeringBody(request, { maxBytes: 10 * KB }).request.body!.getReader();
  await reader.read();
  await reader.cancel();
  await settle(50);
  assert.equal(state.pulled, 5);
  assert.equal(state.cancelled, false);
});

test("a slow sender is cut after the time budget", async () => {
  const { request, state } = source(1000, KB, 20);
  const reader = lingeringBody(request, { maxBytes: 1024 * KB, maxMs: 150 }).request.body!.getReader();
  await reader.read();
  await reader.cancel();
  await settle(400);
  assert.equal(state.cancelled, true);
  assert.ok(state.pulled < 20, `drained ${state.pulled} chunks`);
});

test("release() drains a body the handler never read, so a keep-alive connection is not left blocked", async () => {
  const { request, state } = source(6);
  const body = lingeringBody(request, { maxBytes: 100 * KB });
  body.release();
  await settle(50);
  assert.equal(state.pulled, 6);
  assert.equal(state.cancelled, false);
  const big = source(1000);
  const refused = lingeringBody(big.request, { maxBytes: 4 * KB });
  refused.release();
  refused.release();
  await settle(50);
  assert.ok(big.state.pulled <= 8, `drained ${big.state.pulled} chunks`);
  assert.equal(big.state.cancelled, true);
});
