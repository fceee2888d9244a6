// Slow and hostile clients cannot hold the gateway's sockets (lib/platform/http/connection-guard.ts, server.ts): header time,
// body rate after a grace period, idle keep-alive, connections per address and in total, and answers the client
// does not read are all bounded, each by its own setting (small values here; the defaults are in the README).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { sockets } from "../helpers/process-stats";

const LIMITS = {
  GATEWAY_HEADERS_TIMEOUT_MS: "1000",
  GATEWAY_KEEPALIVE_TIMEOUT_MS: "1000",
  GATEWAY_BODY_GRACE_MS: "1000",
  GATEWAY_BODY_MIN_BYTES_PER_SECOND: "1000",
  GATEWAY_SEND_STALL_MS: "1000",
  GATEWAY_MAX_CONNECTIONS: "40",
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: "10",
};

let gateway: Gateway;
let key: string;
before(async () => {
  gateway = await startGateway({ env: LIMITS });
  key = (await createUserWithKey(gateway)).key;
});
after(stopAllGateways);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Raw = { socket: net.Socket; data: () => string; bytes: () => number; closed: Promise<number> };

/** A raw TCP connection to the gateway; `closed` resolves with the milliseconds it stayed open. */
function connect(port: number, localAddress = "127.0.0.1"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ host: "127.0.0.1", port, localAddress });
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (chunks.length < 64) chunks.push(chunk);
    });
    socket.on("error", () => undefined);
    const closed = new Promise<number>((done) => socket.once("close", () => done(Date.now() - started)));
    socket.once("connect", () => resolve({ socket, data: () => Buffer.concat(chunks).toString("latin1"), bytes: () => size, closed }));
    socket.once("error", reject);
  });
}

/** Resolves with the time it took, or "still open" after `ms`. */
function closedWithin(raw: Raw, ms: number): Promise<number | "still open"> {
  return Promise.race([raw.closed, sleep(ms).then(() => "still open" as const)]);
}

describe("slow clients", () => {
  test("headers sent a line at a time past GATEWAY_HEADERS_TIMEOUT_MS: 408 and the connection is closed", async () => {
    const raw = await connect(gateway.port);
    raw.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n");
    const drip = setInterval(() => raw.socket.writable && raw.socket.write("X-Slow: 1\r\n"), 200);
    try {
      const open = await closedWithin(raw, 5000);
      assert.notEqual(open, "still open", "a client dripping its headers keeps the socket");
      assert.match(raw.data(), /^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
      raw.socket.destroy();
    }
  });

  test("a body dripping below GATEWAY_BODY_MIN_BYTES_PER_SECOND after the grace period: 408 with the reason, connection closed", async () => {
    const raw = await connect(gateway.port);
    raw.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{`,
    );
    const drip = setInterval(() => raw.socket.writable && raw.socket.write(" "), 250);
    try {
      const open = await closedWithin(raw, 6000);
      assert.notEqual(open, "still open", "a body dripping a byte at a time keeps the socket");
      assert.match(raw.data(), /^HTTP\/1\.1 408/);
      assert.match(raw.data(), /slower than 1000 bytes per second/);
    } finally {
      clearInterval(drip);
      raw.socket.destroy();
    }
  });

  test("a body answered before it was read (401) must still arrive at the minimum rate: the rest dripping is cut", async () => {
    const raw = await connect(gateway.port);
    raw.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer sk-notavalidkeynotavalidkeynotavalid\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    );
    const drip = setInterval(() => raw.socket.writable && raw.socket.write(" "), 250);
    try {
      const open = await closedWithin(raw, 6000);
      assert.match(raw.data(), /^HTTP\/1\.1 401/);
      assert.notEqual(open, "still open", "the discarded rest of a body keeps the socket");
    } finally {
      clearInterval(drip);
      raw.socket.destroy();
    }
  });

  test("a body sent slowly but above the minimum rate, for longer than the grace period, is served", async () => {
    const content = "y".repeat(60_000);
    const body = Buffer.from(JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content }] }));
    const raw = await connect(gateway.port);
    raw.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // About 20 KB/s for 3 s: three grace periods, each well above 1000 bytes per second.
    for (let offset = 0; offset < body.length; offset += 3000) {
      raw.socket.write(body.subarray(offset, offset + 3000));
      await sleep(150);
    }
    await raw.closed;
    assert.match(raw.data(), /^HTTP\/1\.1 200/, raw.data().slice(0, 300));
  });

  test("an idle keep-alive connection is closed after GATEWAY_KEEPALIVE_TIMEOUT_MS", async () => {
    const raw = await connect(gateway.port);
    raw.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    const open = await closedWithin(raw, 4000);
    assert.match(raw.data(), /^HTTP\/1\.1 200/);
    assert.notEqual(open, "still open");
    assert.ok((open as number) >= 800, `closed after ${open} ms, before the keep-alive timeout`);
  });

  test("an answer the client does not read is cut after GATEWAY_SEND_STALL_MS without progress", async () => {
    // 20 MB of answer: more than the socket buffers on both sides hold.
    const content = "z".repeat(20 * 1024 * 1024);
    const upstream: FakeUpstream = await startFakeUpstream((_request, response) => {
      const body = JSON.stringify({
        id: "chatcmpl-big",
        object: "chat.completion",
        created: 1,
        model: "std-5.5",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
      });
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "big answers",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-key-123456",
      models: ["std-5.5"],
      priority: 500,
    });
    try {
      const body = JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] });
      const raw = await connect(gateway.port);
      raw.socket.pause();
      raw.socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // Not reading for well past the stall limit, then reading whatever is left.
      await sleep(4000);
      raw.socket.resume();
      const open = await closedWithin(raw, 10_000);
      assert.notEqual(open, "still open");
      assert.ok(raw.bytes() < content.length, `the client received ${raw.bytes()} bytes: the whole answer waited for it`);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
      await upstream.close();
    }
  });

  test("connections per address: past GATEWAY_MAX_CONNECTIONS_PER_ADDRESS a new one gets 503 with the reason; other addresses are not affected", async () => {
    const held = await Promise.all(Array.from({ length: 10 }, () => connect(gateway.port, "127.0.0.5")));
    try {
      await sleep(100);
      const refused = await connect(gateway.port, "127.0.0.5");
      refused.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      await closedWithin(refused, 3000);
      assert.match(refused.data(), /^HTTP\/1\.1 503/);
      assert.match(refused.data(), /Too many connections from your address \(at most 10\)/);
      const other = await fetch(`${gateway.url}/healthz`);
      assert.equal(other.status, 200);
    } finally {
      for (const raw of held) raw.socket.destroy();
    }
  });

  test("trusted proxies are exempt from the per-address cap", async () => {
    const proxied = await startGateway({ env: { ...LIMITS, GATEWAY_HEADERS_TIMEOUT_MS: "10000", GATEWAY_TRUSTED_PROXIES: "127.0.0.0/8" } });
    const held = await Promise.all(Array.from({ length: 15 }, () => connect(proxied.port, "127.0.0.6")));
    try {
      const raw = held.at(-1)!;
      raw.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
      await closedWithin(raw, 3000);
      assert.match(raw.data(), /^HTTP\/1\.1 200/);
    } finally {
      for (const raw of held) raw.socket.destroy();
      await proxied.stop();
    }
  });

  test("300 stuck sockets from many addresses with GATEWAY_MAX_CONNECTIONS=40: /healthz keeps answering and the gateway holds no more than its cap", async () => {
    const pid = gateway.process.pid!;
    const stuck: Raw[] = [];
    try {
      for (let index = 0; index < 300; index++) {
        // 60 addresses, 5 sockets each: under the per-address cap, like many machines.
        const raw = await connect(gateway.port, `127.0.1.${10 + (index % 60)}`);
        raw.socket.write("GET /healthz HTTP/1.1\r\nHost: loc");
        stuck.push(raw);
      }
      const held = sockets(pid);
      assert.ok(held <= 40 + 15, `the gateway holds ${held} sockets with a cap of 40 connections`);
      for (let round = 0; round < 5; round++) {
        const health = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(3000) });
        assert.equal(health.status, 200);
      }
      // Nothing was refused for being busy: the stuck sockets gave way, the oldest first.
      const first = await closedWithin(stuck[0]!, 100);
      assert.notEqual(first, "still open");
    } finally {
      for (const raw of stuck) raw.socket.destroy();
    }
  });
});
