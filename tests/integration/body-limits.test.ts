// Large bodies: money before work on every paid endpoint, and /v1/messages/count_tokens bounded (docs/billing.md,
// "Money before work"; docs/decisions/0018-large-bodies-off-the-event-loop.md). "Not parsed" is checked structurally: the bodies end in
// bytes that are not JSON, so a gateway that parsed them would answer 400 "not valid JSON" instead of the refusal.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import {
  createPostgresDatabase,
  createUserWithKey,
  postgresAvailable,
  REDIS_TEST_URL,
  startGateway,
  stopAllGateways,
  type Gateway,
} from "../helpers/gateway";
import { startBillingUpstream, type BillingUpstream } from "../helpers/billing-upstream";

const MB = 1024 * 1024;

/** A body of `size` bytes whose head is a request of `kind` with one long text, and whose last bytes are not JSON. */
function brokenBody(kind: "chat" | "messages" | "count" | "responses", size: number): Buffer {
  const text = "All work and no play makes a dull gateway. ".repeat(Math.ceil(size / 43)).slice(0, size);
  const head =
    kind === "responses"
      ? { model: "std-5.5", stream: true, instructions: "Answer.", input: [{ role: "user", content: text }] }
      : { model: kind === "chat" ? "std-5.5" : "msg-haiku-4-5-20251001", max_tokens: 10, messages: [{ role: "user", content: text }] };
  return Buffer.from(`${JSON.stringify(head).slice(0, -1)}, "tail": }}} not JSON`);
}

type Answer = { status: number; json: any; headers: http.IncomingHttpHeaders };

/**
 * Posts `body` over a plain connection: with its length declared, or chunked (no length, sent in 1 MB pieces). The
 * answer may come before the whole body went out; the rest is then not sent.
 */
function post(
  gateway: Gateway,
  path: string,
  key: string,
  body: Buffer,
  options: { chunked?: boolean; contentType?: string } = {},
): Promise<Answer> {
  const auth: Record<string, string> = path.startsWith("/v1/messages")
    ? { "x-api-key": key, "anthropic-version": "2023-06-01" }
    : { authorization: `Bearer ${key}` };
  return new Promise((resolve, reject) => {
    const request = http.request(`${gateway.url}${path}`, {
      method: "POST",
      headers: {
        ...auth,
        "content-type": options.contentType ?? "application/json",
        ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) }),
      },
    });
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = { text };
        }
        resolve({ status: response.statusCode!, json, headers: response.headers });
      });
    });
    // The gateway may cut the connection once it has answered and drained what it allows.
    request.on("error", (error) => (answered ? undefined : reject(error)));
    void (async () => {
      for (let offset = 0; offset < body.length && !answered; offset += MB) {
        if (!request.write(body.subarray(offset, offset + MB))) await new Promise((resolve) => request.once("drain", resolve));
      }
      request.end();
    })().catch(() => undefined);
  });
}

function redisReachable(): Promise<boolean> {
  const url = new URL(REDIS_TEST_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379), timeout: 1500 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

let upstream: BillingUpstream;
after(async () => {
  await upstream?.close();
  await stopAllGateways();
});

for (const database of ["sqlite", "postgres"] as const) {
  describe(`money before work on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    before(async () => {
      if (skip) return;
      gateway = await startGateway({ database });
      upstream ??= await startBillingUpstream();
      await gateway.admin("POST", "/api/admin/channels", {
        name: "billing",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "o",
        models: ["std-5.5", "std-image-2"],
        priority: 100,
      });
      await gateway.admin("POST", "/api/admin/channels", {
        name: "billing anthropic",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "a",
        models: ["msg-haiku-4-5-20251001"],
        priority: 100,
      });
    });

    test("a zero-balance key's 30 MB chat and messages bodies are refused before a byte is parsed, declared or chunked", {
      skip,
    }, async () => {
      const empty = await createUserWithKey(gateway, { balance: 0, unlimited: true });
      for (const [path, kind] of [
        ["/v1/chat/completions", "chat"],
        ["/v1/messages", "messages"],
      ] as const) {
        for (const chunked of [false, true]) {
          const refused = await post(gateway, path, empty.key, brokenBody(kind, 30 * MB), { chunked });
          const where = `${path}${chunked ? ", chunked" : ""}`;
          assert.equal(refused.status, 403, `${where}: ${JSON.stringify(refused.json).slice(0, 300)}`);
          if (kind === "messages") assert.equal(refused.json.type, "error", `${where}: Anthropic's shape`);
          else assert.equal(refused.json.error.code, "insufficient_balance", where);
          assert.match(
            refused.json.error.message,
            /balance is \$0\.000000 and any request here reserves at least \$0\.000001; the request was not read/,
          );
        }
      }
    });

    test("a key with a little money: a 30 MB text body is read only as far as the money left pays for, and never parsed", {
      skip,
    }, async () => {
      // $0.50 at $1 per 1M input tokens (msg-haiku, the cheapest model of the default group) is 500,000 tokens: 2 MB of
      // text at four bytes a token, far less than 30 MB.
      const poor = await createUserWithKey(gateway, { balance: 500_000, unlimited: true });
      for (const [path, kind] of [
        ["/v1/chat/completions", "chat"],
        ["/v1/messages", "messages"],
        ["/v1/responses", "responses"],
      ] as const) {
        for (const chunked of [false, true]) {
          const refused = await post(gateway, path, poor.key, brokenBody(kind, 30 * MB), { chunked });
          const where = `${path}${chunked ? ", chunked" : ""}`;
          assert.equal(refused.status, 403, `${where}: ${JSON.stringify(refused.json).slice(0, 300)}`);
          assert.match(
            refused.json.error.message,
            /body holds at least \d+\.\d MB of text, which reserves at least \$0\.5\d+ .* balance is \$0\.5000; the body was not read to its end/,
            where,
          );
        }
      }
      // The key's quota is what binds when it is the smaller: quota_exhausted.
      const capped = await createUserWithKey(gateway, { balance: 100_000_000, quota: 400_000 });
      const byQuota = await post(gateway, "/v1/chat/completions", capped.key, brokenBody("chat", 30 * MB));
      assert.equal(byQuota.status, 403);
      assert.equal(byQuota.json.error.code, "quota_exhausted");
      assert.match(byQuota.json.error.message, /this API key has \$0\.4000 of quota left; the body was not read to its end/);
    });

    test("media is not text: a large inline image from a key with a little money is read, reserved for and served", { skip }, async () => {
      const poor = await createUserWithKey(gateway, { balance: 500_000, unlimited: true });
      const image = `data:image/png;base64,${Buffer.alloc(6 * MB, 7).toString("base64")}`;
      const body = Buffer.from(
        JSON.stringify({
          model: "std-5.5",
          max_tokens: 16,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "What is this?" },
                { type: "image_url", image_url: { url: image } },
              ],
            },
          ],
        }),
      );
      assert.ok(body.length > 8 * MB);
      const served = await post(gateway, "/v1/chat/completions", poor.key, body);
      assert.equal(served.status, 200, JSON.stringify(served.json).slice(0, 300));
    });

    test("the image endpoints: a zero-balance key's 30 MB edit upload is refused unread; a 30 MB generation body is over its limit", {
      skip,
    }, async () => {
      const empty = await createUserWithKey(gateway, { balance: 0, unlimited: true });
      const boundary = "body-limits-boundary";
      const upload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nEdit it.\r\n`),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
        Buffer.alloc(30 * MB, 1),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      for (const chunked of [false, true]) {
        const refused = await post(gateway, "/v1/images/edits", empty.key, upload, {
          chunked,
          contentType: `multipart/form-data; boundary=${boundary}`,
        });
        assert.equal(refused.status, 403, JSON.stringify(refused.json).slice(0, 300));
        assert.match(refused.json.error.message, /the request was not read/);
      }
      const generation = await post(gateway, "/v1/images/generations", empty.key, brokenBody("chat", 30 * MB));
      assert.equal(generation.status, 413);
    });
  });
}

describe("/v1/messages/count_tokens is bounded", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ env: { GATEWAY_COUNT_TOKENS_PER_MINUTE: "3" } });
  });

  test("beyond its size cap: a clear 413 in Anthropic's shape, the body not read; below it, counted", async () => {
    const empty = await createUserWithKey(gateway, { balance: 0, unlimited: true });
    for (const chunked of [false, true]) {
      const refused = await post(gateway, "/v1/messages/count_tokens", empty.key, brokenBody("count", 30 * MB), { chunked });
      assert.equal(refused.status, 413, JSON.stringify(refused.json).slice(0, 300));
      assert.equal(refused.json.type, "error");
      assert.equal(refused.json.error.type, "request_too_large");
      assert.match(
        refused.json.error.message,
        /larger than the 8 MB limit of \/v1\/messages\/count_tokens .* send this one to \/v1\/messages/,
      );
    }
    // 9 MB: within /v1/messages' 32 MB, beyond count_tokens' own limit.
    const over = await post(gateway, "/v1/messages/count_tokens", empty.key, brokenBody("count", 9 * MB));
    assert.equal(over.status, 413);
    // A large body within the cap is counted (on a worker): free, so a key without money may ask (another key: this
    // one has used its budget of 3 a minute).
    const other = await createUserWithKey(gateway, { balance: 0, unlimited: true });
    const text = "Count these words, please. ".repeat(200_000);
    const counted = await post(
      gateway,
      "/v1/messages/count_tokens",
      other.key,
      Buffer.from(JSON.stringify({ model: "msg-haiku-4-5-20251001", messages: [{ role: "user", content: text }] })),
    );
    assert.equal(counted.status, 200, JSON.stringify(counted.json));
    assert.ok(counted.json.input_tokens > 1_000_000, `${counted.json.input_tokens} tokens`);
  });

  test("beyond its own rate limit: 429 with retry-after, in Anthropic's shape; the key's other requests are not counted", async () => {
    const user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true, rateLimitPerMinute: 2 });
    const small = Buffer.from(JSON.stringify({ model: "msg-haiku-4-5-20251001", messages: [{ role: "user", content: "Hi" }] }));
    const answers: Answer[] = [];
    for (let index = 0; index < 4; index++) answers.push(await post(gateway, "/v1/messages/count_tokens", user.key, small));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 429],
    );
    const limited = answers[3]!;
    assert.equal(limited.json.type, "error");
    assert.equal(limited.json.error.type, "rate_limit_error");
    assert.match(limited.json.error.message, /3 counts per minute/);
    const retryAfter = Number(limited.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after: ${limited.headers["retry-after"]}`);
    // The key's own limit (2 a minute) was not drawn on by the counts.
    for (let index = 0; index < 2; index++) {
      const models = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${user.key}` } });
      assert.equal(models.status, 200, "the key's other requests draw on their own limit");
    }
  });
});

describe("count_tokens' budget across two instances (PostgreSQL and Redis)", async () => {
  const skip = !(await postgresAvailable()) ? "PostgreSQL is not reachable" : !(await redisReachable()) ? "Redis is not reachable" : false;
  test("counts made on either instance draw on one budget", { skip }, async () => {
    const database = await createPostgresDatabase();
    try {
      const shared = {
        GATEWAY_SECRET: "a-shared-secret-for-both-instances-0123456789",
        GATEWAY_MASTER_KEY: "shared-master-key-body-limits-0123",
        REDIS_URL: REDIS_TEST_URL,
        GATEWAY_COUNT_TOKENS_PER_MINUTE: "4",
      };
      const first = await startGateway({ databaseUrl: database.url, env: shared });
      const second = await startGateway({ databaseUrl: database.url, env: shared });
      const user = await createUserWithKey(first, { balance: 100_000_000, unlimited: true });
      const small = Buffer.from(JSON.stringify({ model: "msg-haiku-4-5-20251001", messages: [{ role: "user", content: "Hi" }] }));
      const statuses: number[] = [];
      for (let index = 0; index < 6; index++)
        statuses.push((await post(index % 2 ? second : first, "/v1/messages/count_tokens", user.key, small)).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      await first.stop();
      await second.stop();
    } finally {
      await database.drop();
    }
  });
});
