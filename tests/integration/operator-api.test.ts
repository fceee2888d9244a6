// Foundation: start-up on SQLite and PostgreSQL, the operator API's auth and contract, restarts, config errors.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import Sqlite from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createPostgresDatabase,
  createUserWithKey,
  postgresAvailable,
  startGateway,
  stopAllGateways,
  type Gateway,
} from "../helpers/gateway";
import { withDatabase } from "../helpers/database";
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

describe("foundation on SQLite", () => {
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

describe("seeding and restarts", () => {
  test("a second start on the same database keeps all data and seeds nothing twice", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-restart-"));
    const first = await startGateway({ dataDir, env: { GATEWAY_ADMIN_PASSWORD: undefined, GATEWAY_ADMIN_EMAIL: undefined } });
    assert.match(first.output(), /First admin account created/);
    assert.match(first.output(), /email: +admin@localhost/);
    const before = {
      channels: (await first.admin("GET", "/api/admin/channels")).data,
      groups: (await first.admin("GET", "/api/admin/groups")).data,
      prices: (await first.admin("GET", "/api/admin/prices")).data,
    };
    assert.equal(before.channels.length, 1);
    assert.equal(before.channels[0].type, "simulator");
    assert.equal(before.groups.length, 1);
    assert.ok(before.groups[0].models.includes("msg-opus-4-6[1m]"));
    assert.equal(before.prices.length, 8);
    const user = await first.admin("POST", "/api/admin/users", { email: "keep@example.com", password: "keep-password-1", quota: 7 });
    await first.stop();

    const second = await startGateway({
      dataDir,
      databaseUrl: first.databaseUrl,
      env: { GATEWAY_ADMIN_PASSWORD: undefined, GATEWAY_ADMIN_EMAIL: undefined },
    });
    assert.doesNotMatch(second.output(), /First admin account created/);
    assert.equal((await second.admin("GET", "/api/admin/channels")).data.length, 1);
    assert.equal((await second.admin("GET", "/api/admin/groups")).data.length, 1);
    assert.equal((await second.admin("GET", "/api/admin/prices")).data.length, 8);
    const users = (await second.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[];
    assert.equal(users.find((row) => row.id === user.id)?.balance, 7);
    assert.equal(users.length, 2, "one admin and the user, no second admin");
  });
});

describe("seed steps", () => {
  test("a database seeded at version 1 gets version 2's prices on the next start, except the rows an operator edited", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-seed-step-"));
    const first = await startGateway({ dataDir });
    const file = first.databaseUrl.slice("file:".length);
    await first.admin("POST", "/api/admin/prices", { model: "msg-opus-4-6", textInput: 4 });
    await first.stop();
    // Back to what version 1 left: flat [1m] prices, no caching or tiers, and the version-1 marker.
    const database = new Sqlite(file);
    database
      .prepare(
        `UPDATE "ModelPrice" SET "textInput" = 6, "textOutput" = 22.5, "tierThreshold" = NULL, "tierTextInput" = NULL, "tierTextOutput" = NULL, "cacheReadMultiplier" = 1, "toolPrices" = '{}' WHERE "model" = 'msg-sonnet-4-6[1m]'`,
      )
      .run();
    database.prepare(`UPDATE "Setting" SET "value" = '1' WHERE "key" = 'seed.version'`).run();
    database.close();

    const second = await startGateway({ dataDir, databaseUrl: first.databaseUrl, env: { GATEWAY_LOG: "info" } });
    const prices = (await second.admin("GET", "/api/admin/prices")).data as {
      model: string;
      textInput: number;
      textOutput: number;
      tierThreshold: number | null;
      tierTextInput: number | null;
      cacheReadMultiplier: number;
      toolPrices: Record<string, number>;
      editedByOperator: boolean;
    }[];
    const sonnet1m = prices.find((price) => price.model === "msg-sonnet-4-6[1m]")!;
    assert.deepEqual(
      [
        sonnet1m.textInput,
        sonnet1m.textOutput,
        sonnet1m.tierThreshold,
        sonnet1m.tierTextInput,
        sonnet1m.cacheReadMultiplier,
        sonnet1m.toolPrices.web_search,
      ],
      [3, 15, 200_000, 6, 0.1, 10_000],
    );
    const opus = prices.find((price) => price.model === "msg-opus-4-6")!;
    assert.deepEqual(
      [opus.textInput, opus.editedByOperator],
      [4, true],
      "the edited row is left as the operator set it (the default is 5)",
    );
    assert.match(second.output(), /seeded prices left as the operator edited them.*msg-opus-4-6/);
  });
});

for (const database of ["sqlite", "postgres"] as const) {
  describe(`seed step 4 on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

    test("a database seeded at version 3 takes the image output price of $30 (was $32), unless the operator edited it", {
      skip,
      timeout: 120_000,
    }, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-seed-step-4-"));
      const created = database === "postgres" ? await createPostgresDatabase() : null;
      const databaseUrl = created?.url ?? `file:${path.join(dataDir, "gateway.db")}`;
      const imageOutput = async (gateway: Gateway) =>
        (
          (await gateway.admin("GET", "/api/admin/prices")).data as { model: string; imageOutput: number; editedByOperator: boolean }[]
        ).find((price) => price.model === "std-image-2")!;
      // Back to what version 3 left: the image output at $32 (editedByOperator as the operator left it).
      const toVersion3 = () =>
        withDatabase(databaseUrl, async (query) => {
          await query(`UPDATE "ModelPrice" SET "imageOutput" = 32 WHERE "model" = 'std-image-2'`);
          await query(`UPDATE "Setting" SET "value" = '3' WHERE "key" = 'seed.version'`);
        });
      try {
        const first = await startGateway({ database, databaseUrl, dataDir });
        assert.equal((await imageOutput(first)).imageOutput, 30, "a new database is seeded at $30");
        await first.stop();
        await toVersion3();

        const second = await startGateway({ database, databaseUrl, dataDir, env: { GATEWAY_LOG: "info" } });
        const updated = await imageOutput(second);
        assert.deepEqual([updated.imageOutput, updated.editedByOperator], [30, false], "the seeded row takes the new price");
        assert.match(second.output(), /seeded prices updated.*std-image-2/);
        await second.admin("POST", "/api/admin/prices", { model: "std-image-2", imageOutput: 31 });
        await second.stop();
        await toVersion3();

        const third = await startGateway({ database, databaseUrl, dataDir, env: { GATEWAY_LOG: "info" } });
        const edited = await imageOutput(third);
        assert.deepEqual([edited.imageOutput, edited.editedByOperator], [32, true], "the edited row is left as it was");
        assert.match(third.output(), /seeded prices left as the operator edited them.*std-image-2/);
        await third.stop();
      } finally {
        await created?.drop();
      }
    });
  });
}

describe("configuration errors stop the app with a clear message", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "eighty" }, /PORT: must be a number/],
    [{ PORT: "70000" }, /PORT: must be between 0 and 65535/],
    [{ DATABASE_URL: "mysql://localhost/db" }, /DATABASE_URL: must start with file:, postgres:\/\/ or postgresql:\/\//],
    [{ GATEWAY_SECRET: "short" }, /GATEWAY_SECRET: must be at least 32 characters/],
    [{ REDIS_URL: "http://localhost" }, /REDIS_URL: must start with redis:\/\//],
    [{ APP_URL: "not a url" }, /APP_URL/],
  ];
  for (const [variables, pattern] of cases) {
    test(`${Object.entries(variables)
      .map(([name, value]) => `${name}=${value}`)
      .join(" ")}`, () => {
      const result = spawnSync(process.execPath, ["--import", "tsx", "server.ts"], {
        env: {
          PATH: process.env.PATH,
          GATEWAY_DATA_DIR: "/tmp/gateway-config-test",
          GATEWAY_DISABLE_NEXT: "1",
          NODE_ENV: "production",
          ...variables,
        } as NodeJS.ProcessEnv,
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(result.status, 1);
      assert.match(result.stderr, pattern);
      assert.match(result.stderr, /did not start/);
    });
  }
});

describe("foundation on PostgreSQL", async () => {
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
