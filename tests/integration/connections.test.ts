// A request answered before its body was read (a 401 on a large upload, a refused size) must not leave the
// keep-alive connection stuck: the next request on the same connection is answered normally.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

let gateway: Gateway;
let key: string;
before(async () => {
  gateway = await startGateway();
  key = (await createUserWithKey(gateway)).key;
});
after(stopAllGateways);

function post(agent: http.Agent, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${gateway.url}${path}`,
      { method: "POST", agent, headers: { ...headers, "content-length": String(body.length) } },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    request.setTimeout(10_000, () => request.destroy(new Error("timed out: the connection is stuck")));
    request.end(body);
  });
}

test("an unread 2 MB body answered with 401 leaves the keep-alive connection usable", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const big = Buffer.from(JSON.stringify({ model: "std-5.5", messages: [{ role: "user", content: "x".repeat(2_000_000) }] }));
  const refused = await post(
    agent,
    "/v1/chat/completions",
    { authorization: "Bearer sk-nottherightkeynottherightkey", "content-type": "application/json" },
    big,
  );
  assert.equal(refused.status, 401);
  const next = await post(
    agent,
    "/v1/chat/completions",
    { authorization: `Bearer ${key}`, "content-type": "application/json" },
    Buffer.from(JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })),
  );
  assert.equal(next.status, 200, next.text);
  agent.destroy();
});

test("a body refused while it streams (over the JSON limit) gets its 413, not a reset", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const huge = Buffer.alloc(40 * 1024 * 1024, 0x61);
  const refused = await post(agent, "/v1/chat/completions", { authorization: `Bearer ${key}`, "content-type": "application/json" }, huge);
  assert.equal(refused.status, 413);
  assert.match(JSON.parse(refused.text).error.message, /larger than the 32 MB limit/);
  agent.destroy();
});
