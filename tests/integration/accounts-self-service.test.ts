// Accounts: sign-up, the user's keys, groups, usage, password change, cross-site refusal and bad input; on SQLite
// and PostgreSQL. Password reset: accounts-reset.test.ts. Redeem codes: accounts-topup.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createUserWithKey } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { callApi, eventually, signedIn } from "../helpers/user-api";
import { withDatabase } from "../helpers/database";
import { randomEmail, assertError, gateway, onBothDatabases } from "../helpers/accounts-setup";

onBothDatabases("self-service", () => {
  test("sign-up: creates an account that can sign in; a taken email gets the same answer and its owner a mail", async () => {
    const email = randomEmail("signup");
    const created = await callApi(gateway.url, "POST", "/api/user/signup", {
      body: { email: email.toUpperCase(), password: "a-fine-password-1" },
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.equal(created.body.email, email);
    const browser = await signedIn(gateway.url, email, "a-fine-password-1");
    const self = await browser.call("GET", "/api/user/self");
    assert.equal(self.body.role, "user");
    assert.equal(self.body.balance, 0);

    const again = await callApi(gateway.url, "POST", "/api/user/signup", { body: { email, password: "another-password-2" } });
    assert.equal(again.status, created.status);
    assert.deepEqual(again.body, created.body);
    // The existing password still works; the new one does not.
    assert.ok((await signIn(gateway.url, email, "a-fine-password-1")).ok);
    const notice = await eventually(
      async () => (await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(email)}`)).data[0],
      10_000,
      "the sign-up notice",
    );
    assert.match(notice.subject, /sign up/i);
    assert.equal(notice.to, email);

    assertError(
      await callApi(gateway.url, "POST", "/api/user/signup", { body: { email: randomEmail(), password: "short" } }),
      400,
      "invalid_request",
      /at least 8/,
      "password",
    );
    assertError(
      await callApi(gateway.url, "POST", "/api/user/signup", { body: { email: "not-an-email", password: "a-fine-password-1" } }),
      400,
      "invalid_request",
      /email/,
      "email",
    );
    assertError(await callApi(gateway.url, "POST", "/api/user/signup", { body: "{nope" }), 400, "invalid_json");
  });

  test("sign-up can be turned off with the setting signup.enabled", async () => {
    await withDatabase(gateway.databaseUrl, (query) =>
      query(`INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ('signup.enabled', 'false', ?)`, [new Date()]),
    );
    try {
      const refused = await callApi(gateway.url, "POST", "/api/user/signup", {
        body: { email: randomEmail(), password: "a-fine-password-1" },
      });
      assertError(refused, 403, "forbidden", /Sign-up is turned off/);
    } finally {
      await withDatabase(gateway.databaseUrl, (query) => query(`DELETE FROM "Setting" WHERE "key" = 'signup.enabled'`));
    }
    const open = await callApi(gateway.url, "POST", "/api/user/signup", { body: { email: randomEmail(), password: "a-fine-password-1" } });
    assert.equal(open.status, 202);
  });

  test("keys: create (shown once), list, delete; another user's key id is 404; API keys are refused", async () => {
    const alice = await createUserWithKey(gateway);
    const bob = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, alice.email, alice.password);

    const created = await browser.call("POST", "/api/user/keys", { name: "laptop", quota: 5000, expiresAt: "2099-01-01T00:00:00Z" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.key, /^sk-[A-Za-z0-9]{48}$/);
    assert.equal(created.body.prefix, created.body.key.slice(0, 10));
    assert.equal(created.body.name, "laptop");
    assert.equal(created.body.group, "default");
    assert.equal(created.body.quotaRemaining, 5000);
    assert.equal(created.body.unlimited, false);
    assert.equal(created.body.expiresAt, "2099-01-01T00:00:00.000Z");
    assert.equal(created.body.userId, alice.userId);
    const unlimited = await browser.call("POST", "/api/user/keys", { unlimited: true });
    assert.equal(unlimited.status, 201);
    assert.equal(unlimited.body.unlimited, true);

    const list = await browser.call("GET", "/api/user/keys");
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((key: { id: string }) => key.id).sort(), [alice.keyId, created.body.id, unlimited.body.id].sort());
    assert.equal(JSON.stringify(list.body).includes(created.body.key), false, "the full key is shown once");
    assert.equal(
      list.body.data.some((key: { id: string }) => key.id === bob.keyId),
      false,
    );
    await withDatabase(gateway.databaseUrl, async (query) => {
      const rows = await query(`SELECT * FROM "ApiKey" WHERE "id" = ?`, [created.body.id]);
      assert.equal(JSON.stringify(rows).includes(created.body.key), false, "stored hashed");
    });

    // Another user's key: 404 for delete, exactly like a key that does not exist; it survives.
    assertError(await browser.call("DELETE", `/api/user/keys/${bob.keyId}`), 404, "not_found", /No key/);
    assertError(await browser.call("DELETE", `/api/user/keys?id=${bob.keyId}`), 404, "not_found");
    assertError(await browser.call("DELETE", "/api/user/keys", { id: bob.keyId }), 404, "not_found");
    assertError(await browser.call("DELETE", `/api/user/keys/does-not-exist`), 404, "not_found", /No key/);
    assertError(await browser.call("GET", `/api/user/usage?keyId=${bob.keyId}`), 404, "not_found");
    const bobKeys = await gateway.admin("GET", `/api/admin/keys?userId=${bob.userId}`);
    assert.equal(bobKeys.data.length, 1);

    const deleted = await browser.call("DELETE", `/api/user/keys/${created.body.id}`);
    assert.deepEqual(deleted.body, { id: created.body.id, deleted: true });
    assertError(await browser.call("DELETE", `/api/user/keys/${created.body.id}`), 404, "not_found");
    const byBody = await browser.call("DELETE", "/api/user/keys", { id: unlimited.body.id });
    assert.equal(byBody.status, 200);
    assertError(await browser.call("DELETE", "/api/user/keys"), 400, "invalid_request", /id/, "id");
    const remaining = await browser.call("GET", "/api/user/keys");
    assert.deepEqual(
      remaining.body.data.map((key: { id: string }) => key.id),
      [alice.keyId],
    );

    // Bad input.
    assertError(await browser.call("POST", "/api/user/keys", { name: "x" }), 400, "invalid_request", /quota/, "quota");
    assertError(await browser.call("POST", "/api/user/keys", { quota: -1 }), 400, "invalid_request", undefined, "quota");
    assertError(await browser.call("POST", "/api/user/keys", { quota: "lots" }), 400, "invalid_request", undefined, "quota");
    assertError(
      await browser.call("POST", "/api/user/keys", { quota: 1, expiresAt: "2001-01-01T00:00:00Z" }),
      400,
      "invalid_request",
      /future/,
      "expiresAt",
    );
    assertError(
      await browser.call("POST", "/api/user/keys", { quota: 1, name: "x".repeat(101) }),
      400,
      "invalid_request",
      undefined,
      "name",
    );
    await gateway.admin("POST", "/api/admin/groups", { name: "staff-only", models: ["std-5.5"] });
    assertError(
      await browser.call("POST", "/api/user/keys", { quota: 1, group: "staff-only" }),
      400,
      "invalid_request",
      /not open to you/,
      "group",
    );
    assertError(await browser.call("POST", "/api/user/keys", "[1,2"), 400, "invalid_json");

    // Keys (and everything but topup) refuse API keys, and need a session.
    for (const [method, path] of [
      ["GET", "/api/user/keys"],
      ["POST", "/api/user/keys"],
      ["DELETE", `/api/user/keys/${alice.keyId}`],
      ["GET", "/api/user/self"],
      ["GET", "/api/user/usage"],
      ["POST", "/api/user/password"],
    ] as const) {
      const withKey = await callApi(gateway.url, method, path, {
        body: method === "POST" ? { quota: 1 } : undefined,
        headers: { authorization: `Bearer ${alice.key}` },
      });
      assertError(withKey, 403, "forbidden", /signed-in session/);
      assertError(await callApi(gateway.url, method, path, { body: method === "POST" ? { quota: 1 } : undefined }), 401, "unauthenticated");
    }
    assert.equal(
      (await gateway.admin("GET", `/api/admin/keys?userId=${alice.userId}`)).data.length,
      1,
      "nothing was created or deleted with the key",
    );
  });

  test("an admin's groups and the setting user.groups decide which groups a user may choose", async () => {
    const user = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, user.email, user.password);
    await gateway.admin("POST", "/api/admin/groups", { name: "partners", models: ["std-5.5"] });
    await withDatabase(gateway.databaseUrl, (query) =>
      query(`INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ('user.groups', '["default","partners"]', ?)`, [new Date()]),
    );
    try {
      assert.deepEqual((await browser.call("GET", "/api/user/self")).body.groups, ["default", "partners"]);
      const created = await browser.call("POST", "/api/user/keys", { quota: 10, group: "partners" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.group, "partners");
    } finally {
      await withDatabase(gateway.databaseUrl, (query) => query(`DELETE FROM "Setting" WHERE "key" = 'user.groups'`));
    }
  });

  test("usage: the user's own ledger rows, paginated and filtered, with daily totals", async () => {
    const alice = await createUserWithKey(gateway);
    const bob = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, alice.email, alice.password);
    const day = (offset: number, hour = 12) => new Date(Date.UTC(2030, 0, 10 + offset, hour));
    const rows: [string, string, string, number, Date, number][] = [
      // userId, model, status, cost, createdAt, text output tokens
      [alice.userId, "std-5.5", "success", 100, day(0, 1), 10],
      [alice.userId, "std-5.5", "success", 200, day(0, 23), 20],
      [alice.userId, "std-image-2", "error", 0, day(1), 0],
      [alice.userId, "std-image-2", "success", 5000, day(2), 30],
      [bob.userId, "std-5.5", "success", 999, day(0), 40],
    ];
    await withDatabase(gateway.databaseUrl, async (query) => {
      for (const [index, [userId, model, status, cost, createdAt, tokens]] of rows.entries()) {
        await query(
          `INSERT INTO "UsageLog" ("id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "cost", "status", "httpStatus", "textOutputTokens", "createdAt")
           VALUES (?, 'request', ?, ?, ?, ?, '/v1/responses', ?, ?, ?, ?, ?, ?)`,
          [
            `usage-${randomBytes(6).toString("hex")}`,
            `req_test_${index}`,
            userId,
            userId === alice.userId ? alice.keyId : bob.keyId,
            "sk-abcdefg",
            model,
            cost,
            status,
            status === "success" ? 200 : 502,
            tokens,
            createdAt,
          ],
        );
      }
    });

    const all = await browser.call("GET", "/api/user/usage?from=2030-01-01&to=2030-01-31");
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.total, 4);
    assert.deepEqual(
      all.body.data.map((row: { cost: number }) => row.cost),
      [5000, 0, 200, 100],
      "newest first, only alice's rows",
    );
    assert.equal(all.body.data[0].requestId, "req_test_3");
    assert.equal("channelId" in all.body.data[0], false, "operator details stay with the operator");
    assert.deepEqual(all.body.daily, [
      {
        date: "2030-01-10",
        requests: 2,
        spent: 300,
        credited: 0,
        textInputTokens: 0,
        textOutputTokens: 30,
        imageInputTokens: 0,
        imageOutputTokens: 0,
      },
      {
        date: "2030-01-11",
        requests: 1,
        spent: 0,
        credited: 0,
        textInputTokens: 0,
        textOutputTokens: 0,
        imageInputTokens: 0,
        imageOutputTokens: 0,
      },
      {
        date: "2030-01-12",
        requests: 1,
        spent: 5000,
        credited: 0,
        textInputTokens: 0,
        textOutputTokens: 30,
        imageInputTokens: 0,
        imageOutputTokens: 0,
      },
    ]);

    const page = await browser.call("GET", "/api/user/usage?from=2030-01-01&to=2030-01-31&limit=2&offset=2");
    assert.deepEqual(
      page.body.data.map((row: { cost: number }) => row.cost),
      [200, 100],
    );
    assert.equal(page.body.total, 4);
    const byModel = await browser.call("GET", "/api/user/usage?from=2030-01-01&to=2030-01-31&model=std-5.5");
    assert.deepEqual(
      byModel.body.data.map((row: { cost: number }) => row.cost),
      [200, 100],
    );
    assert.deepEqual(
      byModel.body.daily.map((row: { date: string }) => row.date),
      ["2030-01-10"],
    );
    const errors = await browser.call("GET", "/api/user/usage?from=2030-01-01&status=error");
    assert.deepEqual(
      errors.body.data.map((row: { model: string }) => row.model),
      ["std-image-2"],
    );
    const window = await browser.call("GET", `/api/user/usage?from=2030-01-10T12:00:00Z&to=2030-01-11`);
    assert.deepEqual(
      window.body.data.map((row: { cost: number }) => row.cost),
      [0, 200],
      "from inclusive, a plain 'to' date through its end",
    );
    const byKey = await browser.call("GET", `/api/user/usage?from=2030-01-01&keyId=${alice.keyId}`);
    assert.equal(byKey.body.total, 4);

    for (const query of [
      "status=fine",
      "limit=0",
      "limit=1000",
      "offset=-1",
      "from=yesterday",
      "to=2030-13-45",
      "from=2030-01-05&to=2030-01-01",
      "kind=bonus",
    ]) {
      const bad = await browser.call("GET", `/api/user/usage?${query}`);
      assert.equal(bad.status, 400, `${query}: ${JSON.stringify(bad.body)}`);
      assert.equal(bad.body.error.code, "invalid_request");
    }
  });

  test("password change: checks the current one, ends other sessions, keeps this one", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const other = await signedIn(gateway.url, email, password);
    assertError(
      await browser.call("POST", "/api/user/password", { current: "not-it-at-all", next: "brand-new-password-1" }),
      400,
      "invalid_request",
      /current password is wrong/,
      "current",
    );
    assertError(
      await browser.call("POST", "/api/user/password", { current: password, next: "short" }),
      400,
      "invalid_request",
      /at least 8/,
      "next",
    );
    assertError(await browser.call("POST", "/api/user/password", { current: password }), 400, "invalid_request", undefined, "next");
    const changed = await browser.call("POST", "/api/user/password", { current: password, next: "brand-new-password-1" });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body, { changed: true });
    assert.equal((await browser.call("GET", "/api/user/self")).status, 200, "this session continues");
    assertError(await other.call("GET", "/api/user/self"), 401, "unauthenticated");
    // next-auth's own view agrees (what the portal's pages read).
    const continuing = await browser.call("GET", "/api/auth/session");
    assert.equal(continuing.body?.user?.email, email);
    const ended = await other.call("GET", "/api/auth/session");
    assert.equal(ended.status, 200);
    assert.deepEqual(ended.body, {});
    assert.deepEqual(await signIn(gateway.url, email, password), { ok: false, error: "Invalid email or password", status: 401 });
    assert.ok((await signIn(gateway.url, email, "brand-new-password-1")).ok);
  });

  test("a cross-site request with the session cookie is refused", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    assertError(
      await browser.call("POST", "/api/user/keys", { quota: 1 }, { origin: "https://evil.example" }),
      403,
      "forbidden",
      /Cross-site/,
    );
    assertError(await browser.call("POST", "/api/user/2fa/setup", {}, { "sec-fetch-site": "cross-site" }), 403, "forbidden", /Cross-site/);
    const sameOrigin = await browser.call("POST", "/api/user/keys", { quota: 1 }, { origin: gateway.url, "sec-fetch-site": "same-origin" });
    assert.equal(sameOrigin.status, 201);
    // A proxy's Basic auth in front of the portal is not an API key: the session still works.
    const behindProxy = await browser.call("GET", "/api/user/self", undefined, { authorization: "Basic dXNlcjpwYXNz" });
    assert.equal(behindProxy.status, 200);
  });

  test("bad input to every endpoint is a 400 in the plain dialect, never a 500", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const cases: [string, string, unknown][] = [
      ["POST", "/api/user/signup", { email: 42, password: "a-fine-password-1" }],
      ["POST", "/api/user/signup", { email: "a@example.com", password: ["x"] }],
      ["POST", "/api/user/signup", "null"],
      ["POST", "/api/user/topup", {}],
      ["POST", "/api/user/topup", { key: 12 }],
      ["POST", "/api/user/topup", { key: "x".repeat(10_000) }],
      ["POST", "/api/user/2fa/enable", {}],
      ["POST", "/api/user/2fa/enable", { code: 123456 }],
      ["POST", "/api/user/2fa/disable", "not json"],
      ["POST", "/api/user/reset/request", { email: "nope" }],
      ["POST", "/api/user/reset/request", {}],
      ["POST", "/api/user/reset", { email: "a@example.com" }],
      ["POST", "/api/user/reset", { email: "a@example.com", token: 5 }],
      ["POST", "/api/user/reset", { email: "a@example.com", token: "t", password: "short" }],
      ["POST", "/api/user/password", { current: 1, next: 2 }],
      ["POST", "/api/user/keys", { quota: 1, unlimited: "yes" }],
      ["POST", "/api/user/keys", { quota: 1.5 }],
      ["POST", "/api/user/keys", { quota: 1, expiresAt: "next week" }],
      ["DELETE", "/api/user/keys", "{"],
    ];
    for (const [method, path, body] of cases) {
      const result = await browser.call(method, path, body);
      assert.equal(result.status, 400, `${method} ${path} ${JSON.stringify(body)} -> ${result.status} ${JSON.stringify(result.body)}`);
      assert.ok(["invalid_request", "invalid_json"].includes(result.body.error.code), JSON.stringify(result.body));
      assert.equal(typeof result.body.error.message, "string");
      assert.deepEqual(Object.keys(result.body), ["error"]);
    }
    assertError(await browser.call("PUT", "/api/user/keys", {}), 405, "method_not_allowed");
  });
});
