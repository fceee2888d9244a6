// Operator tools and the audit trail every operator write leaves (lib/admin-api/audit.ts): reset a user's 2FA, mail
// a reset link, void codes, fetch a channel's models from its upstream, the per-channel overview. Real HTTP against the gateway and a fake vendor.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { sendJson, startFakeUpstream, chatCompletion, type FakeUpstream } from "../helpers/fake-upstream";
import { signIn } from "../helpers/session";
import { eventually, signedIn } from "../helpers/user-api";
import { currentTotp } from "@/lib/accounts/totp";

let gateway: Gateway;
let vendor: FakeUpstream;

before(async () => {
  gateway = await startGateway({ portal: true });
  vendor = await startFakeUpstream((request, response) => {
    if (request.headers["x-api-key"] === "bad" || request.headers.authorization === "Bearer bad")
      return sendJson(response, 401, { error: { message: "bad key" } });
    if (request.method === "GET" && request.path.startsWith("/v1/models"))
      return sendJson(response, 200, { object: "list", data: [{ id: "gpt-4o-mini" }, { id: "gpt-4o" }, { id: "gpt-4o" }] });
    if (request.path === "/v1/chat/completions")
      return sendJson(response, request.body?.messages?.[0]?.content === "fail" ? 500 : 200, chatCompletion("hi", request.body.model));
    sendJson(response, 404, {});
  });
});
after(async () => {
  await vendor?.close();
  await stopAllGateways();
});

async function auditRows(
  targetId?: string,
): Promise<{ actor: string; action: string; targetId: string | null; status: number; detail: Record<string, unknown> }[]> {
  return (await gateway.admin("GET", `/api/admin/audit${targetId ? `?targetId=${targetId}` : ""}`)).data;
}

async function post(path: string, body: unknown = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe("operator tools", () => {
  test("resetting a user's 2FA lets them in with the password alone, ends their sessions, and is audited", async () => {
    const user = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, user.email, user.password);
    const secret = (await browser.call("POST", "/api/user/2fa/setup", {})).body.secret;
    assert.equal((await browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(secret) })).status, 200);
    const locked = await signIn(gateway.url, user.email, user.password);
    assert.equal(!locked.ok && locked.error, "Second factor required");

    const reset = await post(`/api/admin/users/${user.userId}/reset-2fa`);
    assert.deepEqual([reset.status, reset.body.totpEnabled], [200, false]);
    assert.equal((await browser.call("GET", "/api/user/self")).status, 401, "the user's sessions ended");
    assert.ok((await signIn(gateway.url, user.email, user.password)).ok, "the password alone works again");
    assert.equal((await post(`/api/admin/users/${user.userId}/reset-2fa`)).status, 409, "nothing to reset twice");
    assert.equal((await post("/api/admin/users/no-such-user/reset-2fa")).status, 404);

    const [row, ...rest] = await auditRows(user.userId);
    assert.equal(rest.length, 0, "one row: refused calls leave none");
    assert.deepEqual(
      [row!.actor, row!.action, row!.status, row!.detail.email],
      ["master key", "POST /api/admin/users/{id}/reset-2fa", 200, user.email],
    );
  });

  test("a reset link is mailed to the user (the operator never sees a password); an admin's session is named in the audit", async () => {
    const user = await createUserWithKey(gateway);
    const admin = await signedIn(gateway.url, "admin@example.com", "admin-password-123");
    const sent = await admin.call("POST", `/api/admin/users/${user.userId}/send-reset`, {});
    assert.deepEqual([sent.status, sent.body.sent], [200, true]);
    assert.equal(JSON.stringify(sent.body).includes("token"), false);
    const mail = await eventually(
      async () => (await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(user.email)}`)).data[0],
      10_000,
      "the reset mail",
    );
    assert.match(mail.text, /reset-password\?token=/);
    const [row] = await auditRows(user.userId);
    assert.deepEqual([row!.actor, row!.action], ["admin@example.com", "POST /api/admin/users/{id}/send-reset"]);
  });

  test("voiding a batch disables its unused codes; a used code stays used; a voided code is refused", async () => {
    const user = await createUserWithKey(gateway, { balance: 0 });
    const browser = await signedIn(gateway.url, user.email, user.password);
    const { codes, batch } = await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 100, count: 3, batch: `void-${user.userId}` });
    assert.equal((await browser.call("POST", "/api/user/topup", { key: codes[0] })).status, 200);
    const voided = await post("/api/admin/redeem-codes/void", { batch });
    assert.deepEqual(voided, { status: 200, body: { voided: 2 } });
    const refused = await browser.call("POST", "/api/user/topup", { key: codes[1] });
    assert.deepEqual([refused.status, refused.body.error.message], [400, "This redeem code has been disabled by the operator"]);
    const statuses = (await gateway.admin("GET", `/api/admin/redeem-codes?batch=${batch}`)).data
      .map((row: { status: string }) => row.status)
      .sort();
    assert.deepEqual(statuses, ["disabled", "disabled", "used"]);
    assert.equal((await post("/api/admin/redeem-codes/void", {})).status, 400, "a batch or ids is required");
    const [row] = (await auditRows()).filter((entry) => entry.action === "POST /api/admin/redeem-codes/void");
    assert.equal(row!.detail.voided, 2);
  });

  test("a channel's model list comes from its upstream (both vendors' shapes); a refused key is a clear 502", async () => {
    const openai = await gateway.admin("POST", "/api/admin/channels", {
      name: "vendor openai",
      type: "openai",
      baseUrl: `${vendor.url}/v1`,
      apiKey: "good",
      models: ["std-5.5"],
      priority: -10,
    });
    const anthropic = await gateway.admin("POST", "/api/admin/channels", {
      name: "vendor anthropic",
      type: "anthropic",
      baseUrl: vendor.url,
      apiKey: "good",
      models: ["msg-sonnet-4-6"],
      priority: -10,
    });
    const bad = await gateway.admin("POST", "/api/admin/channels", {
      name: "bad key",
      type: "openai",
      baseUrl: `${vendor.url}/v1`,
      apiKey: "bad",
      models: ["std-5.5"],
      priority: -10,
      status: "disabled",
    });
    assert.deepEqual((await post(`/api/admin/channels/${openai.id}/fetch-models`)).body, { models: ["gpt-4o", "gpt-4o-mini"] });
    assert.deepEqual((await post(`/api/admin/channels/${anthropic.id}/fetch-models`)).body, { models: ["gpt-4o", "gpt-4o-mini"] });
    const sent = vendor.received.filter((request) => request.path.startsWith("/v1/models"));
    assert.equal(sent.at(-1)!.headers["x-api-key"], "good", "the anthropic form of the key");
    assert.equal(sent.at(-2)!.headers.authorization, "Bearer good");
    const refused = await post(`/api/admin/channels/${bad.id}/fetch-models`);
    assert.equal(refused.status, 502);
    assert.match(refused.body.error.message, /answered 401/);
    // A test of one named model of the channel (the portal's "test every model" asks one by one).
    const tested = await post(`/api/admin/channels/${openai.id}/test`, { model: "std-5.5" });
    assert.deepEqual([tested.status, tested.body.model, tested.body.kind], [200, "std-5.5", "chat"]);
    const notServed = await post(`/api/admin/channels/${openai.id}/test`, { model: "msg-sonnet-4-6" });
    assert.deepEqual([notServed.status, notServed.body.error.param], [400, "model"]);
    for (const channel of [openai, anthropic, bad]) await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
  });

  test("the overview counts requests, errors, revenue and latency per channel", async () => {
    const { key } = await createUserWithKey(gateway);
    await gateway.admin("POST", "/api/admin/prices", { model: "overview-model", textInput: 1, textOutput: 1 });
    const groups = (await gateway.admin("GET", "/api/admin/groups")).data as { name: string; models: string[] }[];
    const current = groups.find((group) => group.name === "default")!;
    await gateway.admin("POST", "/api/admin/groups", { name: "default", models: [...current.models, "overview-model"] });
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "overview vendor",
      type: "openai",
      baseUrl: `${vendor.url}/v1`,
      apiKey: "good",
      models: ["overview-model"],
      priority: 50,
    });
    const call = (content: string) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "overview-model", max_tokens: 5, messages: [{ role: "user", content }] }),
      }).then((response) => response.status);
    assert.deepEqual([await call("one"), await call("two"), await call("fail")], [200, 200, 502]);
    const seen = await gateway.admin("GET", "/api/admin/overview?hours=1");
    const stats = seen.channels.find((entry: { channel: string }) => entry.channel === "overview vendor");
    assert.equal(stats.requests, 3);
    assert.equal(stats.errors, 1);
    assert.ok(Math.abs(stats.errorRate - 1 / 3) < 1e-9);
    assert.ok(stats.revenue > 0);
    assert.equal(typeof stats.latencyP50, "number");
    assert.ok(seen.series.length >= 1);
    await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
  });

  test("every operator write is audited, reads are not", async () => {
    const before = (await auditRows()).length;
    await gateway.admin("GET", "/api/admin/users");
    await gateway.admin("POST", "/api/admin/settings", { signupEnabled: true });
    const rows = await auditRows();
    assert.equal(rows.length, before + 1);
    assert.deepEqual([rows[0]!.action, rows[0]!.status], ["POST /api/admin/settings", 200]);
  });
});
