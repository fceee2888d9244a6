// The production server's Request headers (lib/platform/http/node-adapter.ts): looked up from node:http's raw
// headers without filling a Headers first, they must read exactly as a Headers built by the Fetch standard would.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { toWebRequest } from "@/lib/platform/http/node-adapter";

/** Sends raw header lines to a real node:http server and returns the Request the gateway would have built. */
async function requestWith(lines: string[]): Promise<Request> {
  let resolve!: (request: Request) => void;
  const made = new Promise<Request>((done) => (resolve = done));
  const server = http.createServer((incoming, outgoing) => {
    resolve(toWebRequest(incoming, outgoing, "req-test-1"));
    outgoing.end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.write(`GET /v1/models HTTP/1.1\r\nHost: localhost\r\n${lines.map((line) => `${line}\r\n`).join("")}Connection: close\r\n\r\n`);
  socket.resume();
  const request = await made;
  socket.destroy();
  server.close();
  return request;
}

const LINES = [
  "Authorization: Bearer sk-one",
  "authorization: Bearer sk-two",
  "X-Custom:   padded value  ",
  "Accept: application/json",
  "accept: text/plain",
  "Cookie: a=1",
  "X-Request-Id: caller-chosen",
];

function standard(): Headers {
  const headers = new Headers();
  headers.append("host", "localhost");
  for (const line of LINES) {
    const at = line.indexOf(":");
    headers.append(line.slice(0, at), line.slice(at + 1));
  }
  headers.append("connection", "close");
  headers.set("x-request-id", "req-test-1");
  headers.set("x-gateway-client-address", "127.0.0.1");
  return headers;
}

test("get and has read as a standard Headers: any case, duplicates joined, values trimmed, the gateway's own values set", async () => {
  const { headers } = await requestWith(LINES);
  const expected = standard();
  for (const name of ["Authorization", "accept", "X-CUSTOM", "cookie", "x-request-id", "x-gateway-client-address", "host", "absent"]) {
    assert.equal(headers.get(name), expected.get(name), name);
    assert.equal(headers.has(name), expected.has(name), name);
  }
  assert.equal(headers.get("authorization"), "Bearer sk-one, Bearer sk-two");
  assert.equal(headers.get("x-request-id"), "req-test-1", "a caller's request id is replaced");
  assert.ok(headers instanceof Headers);
});

test("iteration and changes behave as on a standard Headers", async () => {
  const { headers } = await requestWith(LINES);
  assert.deepEqual([...headers], [...standard()]);
  headers.set("accept", "image/png");
  headers.delete("cookie");
  headers.append("x-custom", "more");
  const expected = standard();
  expected.set("accept", "image/png");
  expected.delete("cookie");
  expected.append("x-custom", "more");
  assert.deepEqual([...headers.entries()], [...expected.entries()]);
  assert.equal(headers.get("x-custom"), "padded value, more");
  assert.equal(headers.has("cookie"), false);
  assert.throws(() => headers.set("bad name", "x"), TypeError, "a change is still checked");
});

test("the production server's request has the Request members the gateway reads, and a real Request can be made from it", async () => {
  let resolve!: (value: { request: Request; outgoing: http.ServerResponse }) => void;
  const made = new Promise<{ request: Request; outgoing: http.ServerResponse }>((done) => (resolve = done));
  const server = http.createServer((incoming, outgoing) => resolve({ request: toWebRequest(incoming, outgoing, "req-test-2"), outgoing }));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const body = JSON.stringify({ model: "std-5.5", note: "é" });
  const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.write(
    `POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.resume();
  const { request, outgoing } = await made;
  try {
    assert.equal(request.url, "http://gateway.test/v1/chat/completions?x=1");
    assert.equal(request.method, "POST");
    assert.equal(Object.prototype.toString.call(request), "[object Request]");
    assert.equal(request.headers.get("content-type"), "application/json");
    assert.equal(request.signal.aborted, false);
    assert.equal(request.bodyUsed, false);
    // What lib/platform/http/linger.ts does with it.
    const copy = new Request(request.url, { method: request.method, headers: request.headers, signal: request.signal });
    assert.equal(copy.headers.get("x-request-id"), "req-test-2");
    assert.deepEqual(await request.json(), { model: "std-5.5", note: "é" });
    assert.equal(request.bodyUsed, true);
    await assert.rejects(request.text(), TypeError, "a body is read once");
    socket.destroy();
    await new Promise((done) => outgoing.once("close", done));
    assert.equal(request.signal.aborted, true, "the client leaving aborts the signal");
  } finally {
    socket.destroy();
    server.close();
  }
});
