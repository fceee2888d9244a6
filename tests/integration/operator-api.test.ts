// The operator API (/api/admin/*) on SQLite and PostgreSQL: every call with the master key, 401 without it, 403 to a
// user's key or session, its settings, and bad input as a 400 naming the field; the landing page and health. Start-up
// itself (seeding, restarts, configuration errors) is tests/integration/startup.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";

after(stopAllGateways);

const OPERATOR_CALLS: [string, string, unknown][] = [
  ["POST", "/api/admin/users", { email: "someone@example.com", password: "a-long-password" }],
  ["POST", "/api/admin/keys", { userId: "x" }],
  ["DELETE", "/api/admin/keys/some-id", undefined],
  ["POST", "/api/admin/groups", { name: "g", models: [] }],
  ["POST", "/api/admin/channels", { name: "c", type: "simulator", models: ["std-5.5"] }],
  ["PATCH", "/api/admin/channels/some-id", { weight: 2 }],
  ["DELETE", "/api/admin/channels/some-id", undefined],
  ["POST", "/api/admin/prices", { model: "std-5.5", textInput: 1 }],
  ["POST", "/api/admin/redeem-codes", { quota: 1, count: 1 }],
  ["GET", "/api/admin/usage?limit=5", undefined],
  ["GET", "/api/admin/outbox", undefined],
];

async function call(gateway: Gateway, method: string, pathname: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${gateway.url}${pathname}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => null), requestId: response.headers.get("x-request-id") };
}

async function exerciseOperatorApi(gateway: Gateway) {
  const user = await gateway.admin("POST", "/api/admin/users", { email: "Op.User@Example.com", password: "user-password-1", quota: 2500 });
  assert.equal(user.email, "op.user@example.com");
  assert.equal(user.role, "user");
  assert.equal(user.quota, 2500);
  assert.match(user.id, /\S+/);

  const group = await gateway.admin("POST", "/api/admin/groups", { name: "text-only", models: ["std-5.5", "msg-sonnet-4-6"] });
  assert.deepEqual(group.models, ["std-5.5", "msg-sonnet-4-6"]);

  const key = await gateway.admin("POST", "/api/admin/keys", {
    userId: user.id,
    name: "ci",
    group: "text-only",
    quota: 1000,
    expiresAt: "2030-01-01T00:00:00Z",
  });
  assert.match(key.key, /^sk-[A-Za-z0-9]{48}$/);
  assert.equal(key.key.slice(0, 10), key.prefix);
  const listed = await gateway.admin("GET", `/api/admin/keys?userId=${user.id}`);
  assert.equal(listed.data.length, 1);
  assert.equal(JSON.stringify(listed).includes(key.key), false, "the full key appears only in the create answer");

  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "upstream",
    type: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "upstream-secret",
    models: ["std-5.5"],
    modelMapping: { "std-5.5": "real-model" },
    priority: 5,
    weight: 3,
  });
  assert.match(channel.id, /\S+/);
  const patched = await gateway.admin("PATCH", `/api/admin/channels/${channel.id}`, { weight: 7, status: "disabled" });
  assert.equal(patched.weight, 7);
  assert.equal(patched.status, "disabled");
  assert.equal(patched.hasApiKey, true);
  assert.equal(JSON.stringify(patched).includes("upstream-secret"), false, "the upstream key is never returned");
  await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
  const channels = await gateway.admin("GET", "/api/admin/channels");
  assert.equal(
    channels.data.some((row: { id: string }) => row.id === channel.id),
    false,
  );

  const price = await gateway.admin("POST", "/api/admin/prices", { model: "std-5.5", textInput: 2, textOutput: 8 });
  assert.equal(price.textInput, 2);
  assert.ok(price.version >= 2, "changing a price bumps its version");

  const codes = await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 500, count: 3 });
  assert.equal(codes.codes.length, 3);
  assert.equal(new Set(codes.codes).size, 3);

  const usage = await gateway.admin("GET", `/api/admin/usage?userId=${user.id}&limit=10`);
  assert.deepEqual(usage.data, []);
  const outbox = await gateway.admin("GET", "/api/admin/outbox?to=nobody@example.com");
  assert.deepEqual(outbox.data, []);

  await gateway.admin("DELETE", `/api/admin/keys/${key.id}`);
  const afterDelete = await gateway.admin("GET", `/api/admin/keys?userId=${user.id}`);
  assert.equal(afterDelete.data.length, 0);
  return { user, key };
}

describe("the operator API on SQLite", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ portal: true });
  });

  test("serves the landing page and health", async () => {
    const page = await fetch(`${gateway.url}/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Model Gateway/);
    assert.match(html, /href="\/sign-in"/);
    assert.deepEqual(await (await fetch(`${gateway.url}/healthz`)).json(), { status: "ok" });
    const ready = await fetch(`${gateway.url}/readyz`);
    assert.equal(ready.status, 200);
  });

  test("every operator call works with the master key", async () => {
    await exerciseOperatorApi(gateway);
  });

  test("every operator call answers 401 without credentials and with a wrong master key", async () => {
    for (const [method, pathname, body] of OPERATOR_CALLS) {
      const missing = await call(gateway, method, pathname, body, {});
      assert.equal(missing.status, 401, `${method} ${pathname} without credentials`);
      assert.equal(missing.body.error.code, "unauthenticated");
      assert.ok(missing.requestId?.startsWith("req_"), "errors carry x-request-id too");
      const wrong = await call(gateway, method, pathname, body, { authorization: "Bearer not-the-master-key" });
      assert.equal(wrong.status, 401, `${method} ${pathname} with a wrong master key`);
    }
  });

  test("every operator call answers 403 to a non-admin user (their key or their session)", async () => {
    const { key, email, password } = await createUserWithKey(gateway);
    const session = await signIn(gateway.url, email, password);
    assert.ok(session.ok, "a user can sign in");
    for (const [method, pathname, body] of OPERATOR_CALLS) {
      const withKey = await call(gateway, method, pathname, body, { authorization: `Bearer ${key}` });
      assert.equal(withKey.status, 403, `${method} ${pathname} with a user's key`);
      const withSession = await call(gateway, method, pathname, body, { cookie: session.cookie });
      assert.equal(withSession.status, 403, `${method} ${pathname} with a user's session`);
      assert.equal(withSession.body.error.code, "forbidden");
    }
    const adminSession = await signIn(gateway.url, "admin@example.com", "admin-password-123");
    assert.ok(adminSession.ok, "the seeded admin can sign in");
    const asAdmin = await call(gateway, "GET", "/api/admin/users", undefined, { cookie: adminSession.cookie });
    assert.equal(asAdmin.status, 200);
  });

  test("operator settings close and reopen self-service sign-up", async () => {
    const signup = (email: string) =>
      fetch(`${gateway.url}/api/user/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "a-long-password-9" }),
      });
    const closed = await gateway.admin("POST", "/api/admin/settings", { signupEnabled: false });
    assert.equal(closed.signupEnabled, false);
    const refused = await signup("closed@example.com");
    assert.equal(refused.status, 403);
    await gateway.admin("POST", "/api/admin/settings", { signupEnabled: true, userGroups: ["default"] });
    assert.equal((await signup("open@example.com")).status, 202);
    const settings = await gateway.admin("GET", "/api/admin/settings");
    assert.deepEqual(settings.userGroups, ["default"]);
  });

  test("bad operator input is a 400 naming the field, never a 500", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ["POST", "/api/admin/users", { email: "not-an-email", password: "long-enough-1" }, /email/],
      ["POST", "/api/admin/users", { email: "a@example.com", password: "short" }, /password|characters/i],
      ["POST", "/api/admin/channels", { name: "x", type: "mystery", models: ["a"] }, /type/],
      ["POST", "/api/admin/channels", { name: "x", type: "openai", models: ["a"] }, /baseUrl/],
      ["POST", "/api/admin/redeem-codes", { quota: -1, count: 1 }, /quota/],
      ["POST", "/api/admin/prices", { model: "m", textInput: "cheap" }, /textInput/],
    ];
    for (const [method, pathname, body, pattern] of cases) {
      const result = await call(gateway, method, pathname, body, { authorization: `Bearer ${gateway.masterKey}` });
      assert.equal(result.status, 400, `${pathname} ${JSON.stringify(body)}`);
      assert.match(result.body.error.message, pattern);
    }
    const broken = await fetch(`${gateway.url}/api/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(broken.status, 400);
    assert.equal((await broken.json()).error.code, "invalid_json");
  });
});

describe("the operator API on PostgreSQL", async () => {
  const available = await postgresAvailable();
  test("starts, migrates, seeds, serves the operator API and restarts without reseeding", {
    skip: available ? false : "PostgreSQL is not reachable at 127.0.0.1:5432",
  }, async () => {
    const gateway = await startGateway({ database: "postgres", portal: true });
    assert.equal((await fetch(`${gateway.url}/`)).status, 200);
    assert.equal((await fetch(`${gateway.url}/readyz`)).status, 200);
    await exerciseOperatorApi(gateway);
    const { key } = await createUserWithKey(gateway);
    const forbidden = await call(gateway, "GET", "/api/admin/usage", undefined, { authorization: `Bearer ${key}` });
    assert.equal(forbidden.status, 403);
    const users = (await gateway.admin("GET", "/api/admin/users")).data.length;
    // Restart on the same database: a second process must find everything and seed nothing.
    const again = await startGateway({ databaseUrl: gateway.databaseUrl });
    assert.equal((await again.admin("GET", "/api/admin/users")).data.length, users);
    assert.equal((await again.admin("GET", "/api/admin/channels")).data.length, 1);
    await again.stop();
  });
});
