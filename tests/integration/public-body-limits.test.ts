// Account and sign-in routes take a few KB, refused while reading and before parsing: the account API through its
// own reader (lib/platform/http/json.ts, 413 in the plain error shape), next-auth's /api/auth/* in server.ts before Next.js
// buffers anything. Per-address rate limits are looked at before a body is read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";

let gateway: Gateway;
before(async () => {
  gateway = await startGateway({ portal: true, timeoutMs: 120_000 });
});
after(stopAllGateways);

type Answer = { status: number; body: any };

/** POSTs `body` with a Content-Length, or chunked (no length) in 4 KB pieces. */
function post(path: string, body: Buffer, options: { chunked?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
    if (!options.chunked) headers["content-length"] = String(body.length);
    const request = http.request(`${gateway.url}${path}`, { method: "POST", headers }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
    });
    request.on("error", reject);
    request.setTimeout(15_000, () => request.destroy(new Error("no answer within 15 s")));
    if (options.chunked) {
      for (let offset = 0; offset < body.length; offset += 4096) request.write(body.subarray(offset, offset + 4096));
      request.end();
    } else request.end(body);
  });
}

const padded = (fields: Record<string, unknown>, size: number) => Buffer.from(JSON.stringify({ ...fields, padding: "p".repeat(size) }));

function assertTooLarge(answer: Answer, what: string): void {
  assert.equal(answer.status, 413, `${what}: ${JSON.stringify(answer.body).slice(0, 200)}`);
  assert.equal(answer.body.error.code, "body_too_large", what);
  assert.match(answer.body.error.message, /larger than the 16 KB limit/, what);
}

describe("public routes refuse big bodies before parsing them", () => {
  test("every account route refuses a body over 16 KB with 413 in the plain shape, with or without a declared length", async () => {
    const user = await createUserWithKey(gateway);
    const routes: [string, Record<string, unknown>, Record<string, string>][] = [
      ["/api/user/signup", { email: "big@example.com", password: "a-long-enough-password" }, {}],
      ["/api/user/reset/request", { email: "big@example.com" }, {}],
      ["/api/user/reset", { email: "big@example.com", token: "t".repeat(40), password: "a-long-enough-password" }, {}],
      ["/api/user/topup", { key: "GW-NOT-A-REAL-CODE" }, { authorization: `Bearer ${user.key}` }],
    ];
    for (const [path, fields, headers] of routes) {
      assertTooLarge(await post(path, padded(fields, 100_000), { headers }), `${path} with a length`);
      assertTooLarge(await post(path, padded(fields, 100_000), { headers, chunked: true }), `${path} chunked`);
    }
    // A body just under the limit is parsed as usual (here: refused for its content, not its size).
    const small = await post("/api/user/reset/request", padded({ email: "not-an-email" }, 15_000));
    assert.equal(small.status, 400);
  });

  test("sign-up's per-address limit is looked at before the body is read: the 11th sign-up is a 429 whatever its body", async () => {
    const fresh = await startGateway();
    try {
      for (let index = 0; index < 10; index++) {
        const response = await fetch(`${fresh.url}/api/user/signup`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: `limit-${index}@example.com`, password: "a-long-enough-password" }),
        });
        assert.equal(response.status, 202, await response.text());
      }
      for (const body of [Buffer.from("{not json"), padded({ email: "x@example.com" }, 50_000)]) {
        const response = await fetch(`${fresh.url}/api/user/signup`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        assert.equal(response.status, 429, await response.text());
      }
    } finally {
      await fresh.stop();
    }
  });

  test("next-auth's /api/auth/*: a declared 150 MB form is refused at once (413), a body without a length with 411; sign-in still works", async () => {
    // Only the headers and a few bytes are sent: the answer must not wait for the rest of the body.
    const socket = net.connect({ host: "127.0.0.1", port: gateway.port });
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST /api/auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:${gateway.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${150 * 1024 * 1024}\r\n\r\nemail=a`,
    );
    const closed = await Promise.race([
      new Promise((resolve) => socket.once("close", () => resolve("closed"))),
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 5000)),
    ]);
    socket.destroy();
    assert.equal(closed, "closed", `the gateway waited for the body; answered so far: ${text.slice(0, 200)}`);
    assert.match(text, /^HTTP\/1\.1 413/);
    const rawBody = text.slice(text.indexOf("\r\n\r\n") + 4);
    const body = JSON.parse(rawBody.slice(rawBody.indexOf("{"), rawBody.lastIndexOf("}") + 1)) as {
      error: { code: string; message: string };
    };
    assert.equal(body.error.code, "body_too_large");
    assert.match(body.error.message, /16 KB limit for sign-in requests/);

    const chunked = await post("/api/auth/callback/credentials", Buffer.from("email=a&password=b"), {
      chunked: true,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(chunked.status, 411);
    assert.match(chunked.body.error.message, /Content-Length/);

    const user = await createUserWithKey(gateway);
    const signedIn = await signIn(gateway.url, user.email, user.password);
    assert.equal(signedIn.ok, true);
  });
});
