// Running the gateway: graceful shutdown lets in-flight streams finish, /openapi.json documents every API group,
// logs are JSON lines carrying the request id.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createUserWithKey, startGateway, stopAllGateways } from "../helpers/gateway";

after(stopAllGateways);

test("SIGTERM lets an in-flight stream finish, refuses new work, settles the ledger and exits 0", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-shutdown-"));
  const gateway = await startGateway({ dataDir, env: { GATEWAY_LOG: "info" } });
  const user = await createUserWithKey(gateway);
  // A slow simulator: 40 ms between events.
  const channels = (await gateway.admin("GET", "/api/admin/channels")).data;
  await gateway.admin("PATCH", `/api/admin/channels/${channels[0].id}`, { settings: { delayMs: 40 } });
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "std-5.5",
      stream: true,
      max_tokens: 60,
      messages: [{ role: "user", content: "Tell me a long story about shutdowns" }],
    }),
  });
  const requestId = response.headers.get("x-request-id")!;
  const reader = response.body!.getReader();
  await reader.read();
  const exited = gateway.stop("SIGTERM");
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /data: \[DONE\]/, "the stream ran to its end after SIGTERM");
  assert.equal(await exited, 0);
  await assert.rejects(fetch(`${gateway.url}/healthz`), "no new connections after shutdown");
  assert.match(gateway.output(), /"msg":"shutting down"/);
  // Every log line on stdout is JSON; the access log names the request id.
  const lines = gateway
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"));
  assert.ok(lines.length > 0);
  for (const line of lines) JSON.parse(line);
  assert.ok(
    lines.some((line) => line.includes(`"requestId":"${requestId}"`)),
    "the request id is logged",
  );

  // The settlement of that stream was written before exit.
  const again = await startGateway({ dataDir, databaseUrl: gateway.databaseUrl });
  const rows = (await again.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status, "success");
});

test("/openapi.json documents the gateway, account and operator APIs from their schemas", async () => {
  const gateway = await startGateway();
  const document = await (await fetch(`${gateway.url}/openapi.json`)).json();
  assert.equal(document.openapi, "3.1.0");
  const paths = Object.keys(document.paths);
  for (const expected of [
    "/v1/chat/completions",
    "/v1/messages",
    "/api/admin/users",
    "/api/admin/keys",
    "/api/admin/channels",
    "/api/admin/redeem-codes",
  ]) {
    assert.ok(paths.includes(expected), `${expected} is documented`);
  }
  assert.ok(
    paths.some((entry) => entry.startsWith("/api/user/")),
    "the account API is documented",
  );
  assert.ok(
    paths.some((entry) => entry.startsWith("/v1/images/")),
    "the image API is documented",
  );
  assert.ok(paths.includes("/v1/responses"), "the Responses API is documented");
  const createUser = document.paths["/api/admin/users"].post.requestBody.content["application/json"].schema;
  assert.deepEqual(createUser.required.sort(), ["email", "password"]);
  assert.deepEqual(createUser.properties.role.enum, ["user", "admin"]);
  const messages = document.paths["/v1/messages"].post;
  assert.deepEqual(messages.security, [{ apiKeyHeader: [] }]);
  assert.ok(messages.requestBody.content["application/json"].schema.required.includes("max_tokens"));
});
