// The production server's lingering close (lib/platform/http/node-adapter.ts, drainBounded): an upload refused
// half-way is answered, then what is still arriving is drained within bounds, so a client still sending reads the
// 413 instead of a connection reset; one that never reads is cut after the time bound.
//
// The client here is deterministic about what made the refusal flaky under load: it does not look at its socket while
// its writes go through, and reads only once they stall (as a client busy in a write loop does, or one that sends its
// whole body before reading the answer). A server that cut the connection at the byte bound left such a client with
// ECONNRESET and no answer.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { errorResponse } from "@/lib/platform/errors";
import { lingeringBody } from "@/lib/platform/http/linger";
import { parseMultipart } from "@/lib/platform/http/multipart";
import { sendWebResponse, toWebRequest } from "@/lib/platform/http/node-adapter";

const MB = 1024 * 1024;
const FILE_LIMIT = 1 * MB;
const BODY = 200 * MB;
const BOUNDARY = "----lingering-close-test";

let server: http.Server;
let port = 0;

before(async () => {
  // An upload endpoint that refuses a file over 1 MB the way POST /v1/images/edits does (lib/gateway/images/handler.ts).
  server = http.createServer(async (incoming, outgoing) => {
    const body = lingeringBody(toWebRequest(incoming, outgoing, "req-linger"));
    let response: Response;
    try {
      await parseMultipart(body.request, { maxFileBytes: FILE_LIMIT, tmpDir: tmpdir() });
      response = new Response("accepted");
    } catch (error) {
      response = errorResponse(error, "openai");
    } finally {
      body.release();
    }
    await sendWebResponse(response, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

type Outcome = { answer: string; sentMb: number; error: string | null; closedAfterMs: number };

/**
 * Sends a 200 MB upload over a raw socket without reading anything while its writes go through. With `readWhenStalled`
 * it starts reading once no write has completed for `stallMs`, and closes when the answer is complete; without it, it
 * never reads and waits for the server to close the connection.
 */
function upload(readWhenStalled: boolean, stallMs = 500): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = new net.Socket();
    // Paused before it connects, the socket takes nothing off the wire until it is resumed.
    socket.pause();
    let answer = "";
    let sent = 0;
    let lastProgress = performance.now();
    let reading = false;
    let done = false;
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      clearInterval(watch);
      socket.destroy();
      resolve({ answer, sentMb: sent / MB, error, closedAfterMs: performance.now() - started });
    };
    const watch = setInterval(() => {
      if (!readWhenStalled || reading || performance.now() - lastProgress < stallMs) return;
      reading = true;
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
        const [head, body = ""] = answer.split("\r\n\r\n", 2);
        const length = /\r\ncontent-length: (\d+)/i.exec(head ?? "");
        if (length && Buffer.byteLength(body, "latin1") >= Number(length[1])) finish(null);
      });
      socket.resume();
    }, 20);
    socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on("close", () => finish("closed"));
    socket.connect(port, "127.0.0.1", () => {
      const head =
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nlarge\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image[]"; filename="large.png"\r\nContent-Type: image/png\r\n\r\n`;
      const tail = `\r\n--${BOUNDARY}--\r\n`;
      socket.write(
        `POST /v1/images/edits HTTP/1.1\r\nHost: localhost\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${head.length + BODY + tail.length}\r\n\r\n${head}`,
      );
      const chunk = Buffer.alloc(256 * 1024, 0x5a);
      const pump = () => {
        lastProgress = performance.now();
        while (!done && !reading && sent < BODY) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
        if (!done && !reading) socket.write(tail);
      };
      pump();
    });
  });
}

test("a client still sending a refused upload reads the 413, not a reset, and is not drained to the end", async (context) => {
  const outcome = await upload(true);
  context.diagnostic(`sent ${outcome.sentMb.toFixed(1)} MB before reading; ${outcome.error ?? "answer read"}`);
  assert.equal(outcome.error, null, `the client lost the answer (${outcome.error})`);
  assert.match(outcome.answer, /^HTTP\/1\.1 413 /);
  const body = JSON.parse(outcome.answer.split("\r\n\r\n", 2)[1]!);
  assert.equal(body.error.code, "file_too_large");
  assert.equal(body.error.param, "image[]");
  // The 1 MB limit, the 32 MB drained after it, and what the kernel's socket buffers hold: far from 200 MB.
  assert.ok(outcome.sentMb < 64, `the server took ${outcome.sentMb.toFixed(1)} MB of a refused upload`);
});

test("a client that never reads its answer is cut after the time bound, having sent a bounded amount", async (context) => {
  const outcome = await upload(false);
  context.diagnostic(`closed after ${Math.round(outcome.closedAfterMs)} ms (${outcome.error}), ${outcome.sentMb.toFixed(1)} MB sent`);
  assert.notEqual(outcome.error, null);
  assert.ok(outcome.closedAfterMs < 8_000, `the connection was held ${Math.round(outcome.closedAfterMs)} ms`);
  assert.ok(outcome.sentMb < 64, `the server took ${outcome.sentMb.toFixed(1)} MB of a refused upload`);
});
