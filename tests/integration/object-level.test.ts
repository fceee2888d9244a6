// Object-level authorisation on every account and operator route (OWASP API1, API5), and
// what a database dump would give away. Two users, A and B, each signed in through next-auth's real flow: B tries
// every /api/user route on A's keys, usage, 2FA, password and balance; every /api/admin route is tried with B's
// session and B's key. The route list is read from the route tables, so a route added without a case here fails.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { routeDefinitions } from "@/lib/server/routes";
import { once } from "node:events";
import { SMTPServer } from "smtp-server";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { type Browser, callApi, eventually, signedIn } from "../helpers/user-api";
import { withDatabase } from "../helpers/database";
import { currentTotp } from "@/lib/accounts/totp";
import { sha256 } from "@/lib/platform/crypto";

type Person = Awaited<ReturnType<typeof createUserWithKey>> & { browser: Browser };

let gateway: Gateway;
let alice: Person;
let bob: Person;
let aliceTotp: string;
let aliceBackupCodes: string[];
const mail: { to: string[]; raw: string }[] = [];
const smtp = new SMTPServer({
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      mail.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw: Buffer.concat(chunks).toString("utf8") });
      callback();
    });
  },
});

/** A raw mail's text with its quoted-printable soft line breaks and "=3D" undone (enough for links). */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
/** The token of the reset link in a raw mail. */
function tokenIn(raw: string): string {
  return /token=([A-Za-z0-9]+)/.exec(decoded(raw))![1]!;
}
const resetMailTo =
  (address: string, from = 0) =>
  async () =>
    mail.slice(from).find((message) => message.to.includes(address) && message.raw.includes("Reset your Model Gateway password"));

before(async () => {
  smtp.listen(0, "127.0.0.1");
  await once(smtp.server, "listening");
  const port = (smtp.server.address() as { port: number }).port;
  gateway = await startGateway({ portal: true, env: { SMTP_URL: `smtp://127.0.0.1:${port}`, APP_URL: "http://gateway.test" } });
  const person = async (): Promise<Person> => {
    const created = await createUserWithKey(gateway, { balance: 5_000_000 });
    return { ...created, browser: await signedIn(gateway.url, created.email, created.password) };
  };
  alice = await person();
  bob = await person();
  // Alice has 2FA on, usage rows and a second key.
  const setup = await alice.browser.call("POST", "/api/user/2fa/setup", {});
  aliceTotp = setup.body.secret;
  const enabled = await alice.browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(aliceTotp) });
  assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
  aliceBackupCodes = enabled.body.backupCodes;
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${alice.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "alice's private prompt" }] }),
  });
  assert.equal(response.status, 200);
  // And a playground key, through her session.
  const played = await alice.browser.call("POST", "/api/user/playground/v1/chat/completions", {
    model: "std-5.5",
    max_tokens: 4,
    messages: [{ role: "user", content: "alice plays" }],
  });
  assert.equal(played.status, 200);
});
after(async () => {
  await stopAllGateways();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** What A has, to compare before and after B's attempts. */
async function aliceState() {
  const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as {
    id: string;
    balance: number;
    totpEnabled: boolean;
    status: string;
    role: string;
  }[];
  const user = users.find((row) => row.id === alice.userId)!;
  const keys = (await gateway.admin("GET", `/api/admin/keys?userId=${alice.userId}`)).data as {
    id: string;
    status: string;
    quotaRemaining: number;
    name: string;
  }[];
  const secret = await withDatabase(
    gateway.databaseUrl,
    async (query) => (await query(`SELECT "totpSecret", "passwordHash", "sessionVersion" FROM "User" WHERE "id" = ?`, [alice.userId]))[0],
  );
  const backup = await withDatabase(
    gateway.databaseUrl,
    async (query) => (await query(`SELECT COUNT(*) AS n FROM "BackupCode" WHERE "userId" = ? AND "usedAt" IS NULL`, [alice.userId]))[0].n,
  );
  const sessions = await withDatabase(gateway.databaseUrl, async (query) =>
    (await query(`SELECT "id" FROM "Session" WHERE "userId" = ? AND "revokedAt" IS NULL ORDER BY "id"`, [alice.userId])).map(
      (row: { id: string }) => row.id,
    ),
  );
  const verified = await withDatabase(
    gateway.databaseUrl,
    async (query) => (await query(`SELECT "emailVerifiedAt" FROM "User" WHERE "id" = ?`, [alice.userId]))[0].emailVerifiedAt,
  );
  return { user, keys, secret, backup: Number(backup), sessions, verified: String(verified) };
}

// ---------------------------------------------------------------------------------------------- every user route

/** Each /api/user route: what B tries against A, and how A must look afterwards (compared whole). */
const USER_ROUTES: Record<string, () => Promise<void>> = {
  "POST /api/user/signup": async () => {
    // Signing up with A's email: the same answer as for a new email, and A's account is untouched.
    const answer = await callApi(gateway.url, "POST", "/api/user/signup", {
      body: { email: alice.email, password: "bob-wants-alices-account-1" },
    });
    assert.equal(answer.status, 202);
    assert.equal((await signIn(gateway.url, alice.email, "bob-wants-alices-account-1")).ok, false);
  },
  "GET /api/user/self": async () => {
    const self = await bob.browser.call("GET", "/api/user/self", undefined);
    assert.equal(self.body.id, bob.userId);
    const withQuery = await bob.browser.call("GET", `/api/user/self?id=${alice.userId}&userId=${alice.userId}`);
    assert.equal(withQuery.body.id, bob.userId, "query parameters do not pick the user");
    assert.equal(JSON.stringify(withQuery.body).includes(alice.email), false);
  },
  "POST /api/user/password": async () => {
    const answer = await bob.browser.call("POST", "/api/user/password", {
      current: bob.password,
      next: "bobs-new-password-1",
      userId: alice.userId,
      email: alice.email,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    bob.password = "bobs-new-password-1";
    assert.equal((await signIn(gateway.url, alice.email, "bobs-new-password-1")).ok, false, "A's password did not change");
  },
  "POST /api/user/topup": async () => {
    const [code] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 1234, count: 1 })).codes;
    const answer = await bob.browser.call("POST", "/api/user/topup", { key: code, userId: alice.userId, email: alice.email });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
    assert.equal(users.find((row) => row.id === bob.userId)!.balance, answer.body.balance, "the credit went to B, who redeemed it");
  },
  "GET /api/user/keys": async () => {
    const list = await bob.browser.call("GET", `/api/user/keys?userId=${alice.userId}`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((key: { userId: string }) => key.userId),
      [bob.userId],
    );
    assert.equal(JSON.stringify(list.body).includes(alice.keyId), false);
  },
  "POST /api/user/keys": async () => {
    const created = await bob.browser.call("POST", "/api/user/keys", { quota: 5, userId: alice.userId, name: "for alice?" });
    assert.equal(created.status, 201);
    assert.equal(created.body.userId, bob.userId, "a key is always created for the caller");
    await bob.browser.call("DELETE", `/api/user/keys/${created.body.id}`);
  },
  "DELETE /api/user/keys": async () => {
    const byQuery = await bob.browser.call("DELETE", `/api/user/keys?id=${alice.keyId}`);
    assert.deepEqual([byQuery.status, byQuery.body.error.code], [404, "not_found"]);
    const byBody = await bob.browser.call("DELETE", "/api/user/keys", { id: alice.keyId });
    assert.deepEqual([byBody.status, byBody.body.error.code], [404, "not_found"]);
  },
  "DELETE /api/user/keys/{id}": async () => {
    const answer = await bob.browser.call("DELETE", `/api/user/keys/${alice.keyId}`);
    assert.deepEqual(
      [answer.status, answer.body.error.message],
      [404, "No key with this id"],
      "the same answer as for a key that does not exist",
    );
    const missing = await bob.browser.call("DELETE", "/api/user/keys/no-such-key-id");
    assert.deepEqual(missing.body, answer.body);
  },
  "PATCH /api/user/keys/{id}": async () => {
    const answer = await bob.browser.call("PATCH", `/api/user/keys/${alice.keyId}`, { status: "disabled", quota: 0 });
    const missing = await bob.browser.call("PATCH", "/api/user/keys/no-such-key-id", { status: "disabled" });
    assert.equal(answer.status, 404);
    assert.deepEqual(answer.body, missing.body, "the same answer as for a key that does not exist");
  },
  "GET /api/user/usage": async () => {
    const mine = await bob.browser.call("GET", `/api/user/usage?userId=${alice.userId}&from=2000-01-01`);
    assert.equal(mine.status, 200);
    for (const row of mine.body.data) assert.notEqual(row.keyId, alice.keyId);
    assert.equal(JSON.stringify(mine.body).includes(alice.keyId), false);
    const byKey = await bob.browser.call("GET", `/api/user/usage?keyId=${alice.keyId}`);
    assert.deepEqual([byKey.status, byKey.body.error.code], [404, "not_found"]);
  },
  "POST /api/user/2fa/setup": async () => {
    const answer = await bob.browser.call("POST", "/api/user/2fa/setup", { userId: alice.userId });
    assert.equal(answer.status, 200);
    assert.notEqual(answer.body.secret, aliceTotp);
    assert.match(decodeURIComponent(answer.body.otpauthUrl), new RegExp(bob.email.replace(/[.+]/g, "\\$&")));
  },
  "POST /api/user/2fa/enable": async () => {
    const answer = await bob.browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(aliceTotp), userId: alice.userId });
    assert.deepEqual([answer.status, answer.body.error.code], [400, "invalid_request"], "A's code does not fit B's secret");
  },
  "POST /api/user/2fa/disable": async () => {
    // B holds A's current code and a backup code: the call only ever concerns B, whose 2FA is off.
    const answer = await bob.browser.call("POST", "/api/user/2fa/disable", { code: await currentTotp(aliceTotp), userId: alice.userId });
    assert.deepEqual([answer.status, answer.body.error.code], [409, "conflict"]);
    const backup = await bob.browser.call("POST", "/api/user/2fa/disable", { code: aliceBackupCodes[0], email: alice.email });
    assert.equal(backup.status, 409);
    // A's own API key cannot switch A's 2FA off either, even with a valid code: 2FA changes need a session.
    const withKey = await callApi(gateway.url, "POST", "/api/user/2fa/disable", {
      body: { code: aliceBackupCodes[0] },
      headers: { authorization: `Bearer ${alice.key}` },
    });
    assert.deepEqual([withKey.status, withKey.body.error.code], [403, "forbidden"]);
  },
  "POST /api/user/reset/request": async () => {
    const answer = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: alice.email } });
    assert.equal(answer.status, 200);
    const sent = await eventually(resetMailTo(alice.email), 10_000, "the reset mail");
    assert.deepEqual(sent.to, [alice.email], "the link goes to A's address only");
    assert.match(decoded(sent.raw), /http:\/\/gateway\.test\/reset-password\?token=/, "built from APP_URL");
  },
  "POST /api/user/reset": async () => {
    // B's own, real token used with A's email is simply not valid.
    await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: bob.email } });
    const sent = await eventually(resetMailTo(bob.email), 10_000, "B's reset mail");
    const token = tokenIn(sent.raw);
    const answer = await callApi(gateway.url, "POST", "/api/user/reset", {
      body: { email: alice.email, token, password: "taken-over-password-1" },
    });
    assert.equal(answer.status, 400);
    assert.equal((await signIn(gateway.url, alice.email, "taken-over-password-1")).ok, false);
  },
  "POST /api/user/reset/check": async () => {
    // B's own, real token checked with A's email is as unknown as a made-up one, and checking changes nothing.
    await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: bob.email } });
    const sent = await eventually(resetMailTo(bob.email), 10_000, "B's reset mail");
    const answer = await callApi(gateway.url, "POST", "/api/user/reset/check", { body: { email: alice.email, token: tokenIn(sent.raw) } });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, /not valid/);
  },
  "GET /api/user/announcements": async () => {
    // Notices are the operator's, the same for everyone: nothing of A's, whatever B asks for.
    const listed = await bob.browser.call("GET", `/api/user/announcements?userId=${alice.userId}`);
    assert.equal(listed.status, 200);
    assert.equal(JSON.stringify(listed.body).includes(alice.userId), false);
    assert.equal(JSON.stringify(listed.body).includes(alice.email), false);
  },
  "GET /api/user/sessions": async () => {
    const listed = await bob.browser.call("GET", `/api/user/sessions?userId=${alice.userId}`);
    assert.equal(listed.status, 200);
    const aliceSessions = (await aliceState()).sessions;
    for (const row of listed.body.data) assert.ok(!aliceSessions.includes(row.id), "B sees only B's sessions");
  },
  "DELETE /api/user/sessions/{id}": async () => {
    const [aliceSession] = (await aliceState()).sessions;
    const answer = await bob.browser.call("DELETE", `/api/user/sessions/${aliceSession}`);
    const missing = await bob.browser.call("DELETE", "/api/user/sessions/no-such-session");
    assert.equal(answer.status, 404);
    assert.deepEqual(answer.body, missing.body, "the same answer as for a session that does not exist");
  },
  "POST /api/user/sessions/revoke-all": async () => {
    const answer = await bob.browser.call("POST", "/api/user/sessions/revoke-all", { userId: alice.userId });
    assert.equal(answer.status, 200);
    bob = { ...bob, browser: await signedIn(gateway.url, bob.email, bob.password) };
  },
  "POST /api/user/verify-email": async () => {
    const answer = await callApi(gateway.url, "POST", "/api/user/verify-email", { body: { email: alice.email, token: "a-guessed-token" } });
    assert.equal(answer.status, 400);
  },
  "POST /api/user/verify-email/resend": async () => {
    const before = mail.length;
    const answer = await callApi(gateway.url, "POST", "/api/user/verify-email/resend", { body: { email: alice.email } });
    const unknown = await callApi(gateway.url, "POST", "/api/user/verify-email/resend", { body: { email: "nobody-at-all@example.com" } });
    assert.deepEqual([answer.status, answer.body.message], [unknown.status, unknown.body.message]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(mail.slice(before).filter((message) => message.to.includes(alice.email)).length, 0, "A is confirmed already: no mail");
  },
  "GET /api/user/models": async () => {
    // The models open to B's own groups; nothing about A.
    const answer = await bob.browser.call("GET", `/api/user/models?userId=${alice.userId}`);
    assert.equal(answer.status, 200);
    assert.equal(JSON.stringify(answer.body).includes(alice.userId), false);
  },
  "GET /api/user/playground": async () => {
    const aliceKeys = (await aliceState()).keys.map((key) => key.id);
    const answer = await bob.browser.call("GET", `/api/user/playground?userId=${alice.userId}`);
    assert.equal(answer.status, 200);
    assert.ok(!answer.body.key || !aliceKeys.includes(answer.body.key.id), "B sees only B's playground key");
  },
  "POST /api/user/playground/renew": async () => {
    const answer = await bob.browser.call("POST", "/api/user/playground/renew", { userId: alice.userId });
    assert.equal(answer.status, 200);
    assert.ok(!(await aliceState()).keys.some((key) => key.id === answer.body.key.id));
  },
  ...Object.fromEntries(
    [
      ["chat/completions", { model: "std-5.5", max_tokens: 4, messages: [{ role: "user", content: "bob plays" }] }],
      ["messages", { model: "msg-haiku-4-5-20251001", max_tokens: 4, messages: [{ role: "user", content: "bob plays" }] }],
      [
        "responses",
        {
          model: "std-5.5",
          instructions: "x",
          input: [{ role: "user", content: "bob plays" }],
          stream: true,
          tools: [{ type: "image_generation", size: "1024x1024", quality: "low" }],
        },
      ],
      ["images/generations", { prompt: "bob plays", size: "1024x1024", quality: "low" }],
      // Sent as JSON here: refused with 415 (an edit is multipart with the portal's header), which also leaves A alone.
      ["images/edits", { prompt: "bob plays" }],
      ["audio/speech", { model: "std-tts-1", input: "bob plays", voice: "alloy" }],
      // Likewise multipart only (the audio file): refused as JSON.
      ["audio/transcriptions", { model: "std-transcribe-1" }],
    ].map(([path, body]) => [
      `POST /api/user/playground/v1/${path}`,
      async () => {
        // Billed to B through B's session, whatever ids B puts in the body or the query.
        const answer = await bob.browser.call("POST", `/api/user/playground/v1/${path}?userId=${alice.userId}&keyId=${alice.keyId}`, {
          ...(body as object),
          user: alice.userId,
        });
        assert.ok([200, 400, 415].includes(answer.status), `${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      },
    ]),
  ),
};

/** Each /api/admin route, with path ids that exist and a body that would be valid for an admin. */
const ADMIN_ROUTES: Record<string, () => { path: string; body?: unknown }> = {
  "POST /api/admin/users": () => ({
    path: "/api/admin/users",
    body: { email: "made-by-bob@example.com", password: "a-long-password-1", role: "admin" },
  }),
  "GET /api/admin/users": () => ({ path: "/api/admin/users" }),
  "PATCH /api/admin/users/{id}": () => ({ path: `/api/admin/users/${bob.userId}`, body: { role: "admin", balanceDelta: 1_000_000 } }),
  "POST /api/admin/keys": () => ({ path: "/api/admin/keys", body: { userId: bob.userId, quota: 1_000_000, unlimited: true } }),
  "GET /api/admin/keys": () => ({ path: `/api/admin/keys?userId=${alice.userId}` }),
  "PATCH /api/admin/keys/{id}": () => ({ path: `/api/admin/keys/${alice.keyId}`, body: { status: "disabled" } }),
  "DELETE /api/admin/keys/{id}": () => ({ path: `/api/admin/keys/${alice.keyId}` }),
  "POST /api/admin/groups": () => ({ path: "/api/admin/groups", body: { name: "default", models: [] } }),
  "GET /api/admin/groups": () => ({ path: "/api/admin/groups" }),
  "POST /api/admin/channels": () => ({
    path: "/api/admin/channels",
    body: { name: "bob's upstream", type: "openai", baseUrl: "http://127.0.0.1:9/v1", models: ["std-5.5"], priority: 1000 },
  }),
  "GET /api/admin/channels": () => ({ path: "/api/admin/channels" }),
  "PATCH /api/admin/channels/{id}": () => ({ path: `/api/admin/channels/${channelId}`, body: { baseUrl: "http://127.0.0.1:9/v1" } }),
  "DELETE /api/admin/channels/{id}": () => ({ path: `/api/admin/channels/${channelId}` }),
  "POST /api/admin/channels/{id}/test": () => ({ path: `/api/admin/channels/${channelId}/test`, body: {} }),
  "POST /api/admin/prices": () => ({ path: "/api/admin/prices", body: { model: "std-5.5", textInput: 0, textOutput: 0 } }),
  "GET /api/admin/prices": () => ({ path: "/api/admin/prices" }),
  "GET /api/admin/catalog": () => ({ path: "/api/admin/catalog" }),
  "PUT /api/admin/catalog/{model}": () => ({ path: "/api/admin/catalog/std-5.5", body: { override: { defaultOutputTokens: 1 } } }),
  "POST /api/admin/redeem-codes": () => ({ path: "/api/admin/redeem-codes", body: { quota: 1_000_000, count: 1 } }),
  "GET /api/admin/redeem-codes": () => ({ path: "/api/admin/redeem-codes" }),
  "GET /api/admin/usage": () => ({ path: `/api/admin/usage?userId=${alice.userId}` }),
  "GET /api/admin/outbox": () => ({ path: `/api/admin/outbox?to=${encodeURIComponent(alice.email)}` }),
  "GET /api/admin/settings": () => ({ path: "/api/admin/settings" }),
  "POST /api/admin/settings": () => ({ path: "/api/admin/settings", body: { userGroups: ["default", "vip"] } }),
  "GET /api/admin/moderation": () => ({ path: "/api/admin/moderation" }),
  "POST /api/admin/moderation": () => ({ path: "/api/admin/moderation", body: { reset: true } }),
  "POST /api/admin/users/{id}/reset-2fa": () => ({ path: `/api/admin/users/${alice.userId}/reset-2fa`, body: {} }),
  "POST /api/admin/users/{id}/send-reset": () => ({ path: `/api/admin/users/${alice.userId}/send-reset`, body: {} }),
  "POST /api/admin/redeem-codes/void": () => ({ path: "/api/admin/redeem-codes/void", body: { batch: "any" } }),
  "POST /api/admin/channels/{id}/fetch-models": () => ({ path: `/api/admin/channels/${channelId}/fetch-models`, body: {} }),
  "GET /api/admin/overview": () => ({ path: "/api/admin/overview" }),
  "GET /api/admin/audit": () => ({ path: "/api/admin/audit" }),
  "GET /api/admin/usage/{id}": () => ({ path: "/api/admin/usage/any-row" }),
  "GET /api/admin/models": () => ({ path: "/api/admin/models" }),
  "POST /api/admin/announcements": () => ({ path: "/api/admin/announcements", body: { title: "by bob", body: "hello", level: "info" } }),
  "GET /api/admin/announcements": () => ({ path: "/api/admin/announcements" }),
  "PATCH /api/admin/announcements/{id}": () => ({ path: "/api/admin/announcements/any-notice", body: { title: "by bob" } }),
  "DELETE /api/admin/announcements/{id}": () => ({ path: "/api/admin/announcements/any-notice" }),
};
let channelId = "";

/** The routes as the route definitions declare them (lib/server/routes.ts). */
function declaredRoutes(prefix: "/api/user" | "/api/admin"): string[] {
  const found = new Set<string>();
  for (const route of routeDefinitions) if (route.path.startsWith(prefix)) found.add(`${route.method} ${route.path}`);
  return [...found].sort();
}

describe("object-level checks", () => {
  test("the tables below cover every /api/user and /api/admin route", () => {
    assert.deepEqual(Object.keys(USER_ROUTES).sort(), declaredRoutes("/api/user"));
    assert.deepEqual(Object.keys(ADMIN_ROUTES).sort(), declaredRoutes("/api/admin"));
  });

  for (const [route, attempt] of Object.entries(USER_ROUTES)) {
    test(`${route}: user B cannot read or change user A's objects`, async () => {
      const before = await aliceState();
      await attempt();
      const after = await aliceState();
      assert.deepEqual(after, before, "A's balance, keys, 2FA secret, backup codes, password and sessions are as they were");
      // A's key and A's session still work.
      assert.equal((await alice.browser.call("GET", "/api/user/self")).body.id, alice.userId);
      assert.equal(
        (
          await fetch(`${gateway.url}/v1/messages`, {
            method: "POST",
            headers: { "x-api-key": alice.key, "content-type": "application/json" },
            body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 4, messages: [{ role: "user", content: "still mine" }] }),
          })
        ).status,
        200,
      );
    });
  }

  test("every /api/admin route: 403 for a user's session and a user's key, 401 with nothing; nothing changes", async () => {
    channelId = (
      await gateway.admin("POST", "/api/admin/channels", {
        name: "operator's channel",
        type: "simulator",
        models: ["std-5.5"],
        priority: -5,
      })
    ).id;
    const snapshot = async () =>
      JSON.stringify([
        await aliceState(),
        (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.map((user: { id: string; role: string; balance: number }) => [
          user.id,
          user.role,
          user.balance,
        ]),
        (await gateway.admin("GET", "/api/admin/keys")).data.map((key: { id: string; status: string; quotaRemaining: number }) => [
          key.id,
          key.status,
          key.quotaRemaining,
        ]),
        (await gateway.admin("GET", "/api/admin/channels")).data.map((channel: { id: string; baseUrl: string; status: string }) => [
          channel.id,
          channel.baseUrl,
          channel.status,
        ]),
        (await gateway.admin("GET", "/api/admin/groups")).data,
        (await gateway.admin("GET", "/api/admin/prices")).data.map((price: { model: string; version: number }) => [
          price.model,
          price.version,
        ]),
        (await gateway.admin("GET", "/api/admin/redeem-codes")).data.length,
        await gateway.admin("GET", "/api/admin/settings"),
        (await gateway.admin("GET", "/api/admin/moderation")).updatedAt,
        (await gateway.admin("GET", "/api/admin/catalog")).data,
      ]);
    const before = await snapshot();
    const userKey = bob.key;
    for (const [route, target] of Object.entries(ADMIN_ROUTES)) {
      const method = route.split(" ")[0]!;
      const { path, body } = target();
      const asSession = await bob.browser.call(method, path, body);
      assert.deepEqual(
        [asSession.status, asSession.body?.error?.code],
        [403, "forbidden"],
        `${route} with B's session: ${JSON.stringify(asSession.body)}`,
      );
      const asKey = await callApi(gateway.url, method, path, { body, headers: { authorization: `Bearer ${userKey}` } });
      assert.deepEqual([asKey.status, asKey.body?.error?.code], [403, "forbidden"], `${route} with B's key`);
      const asKeyHeader = await callApi(gateway.url, method, path, { body, headers: { "x-api-key": userKey } });
      assert.equal(asKeyHeader.status, 401, `${route} with x-api-key`);
      const anonymous = await callApi(gateway.url, method, path, { body });
      assert.deepEqual([anonymous.status, anonymous.body?.error?.code], [401, "unauthenticated"], `${route} with nothing`);
    }
    assert.equal(await snapshot(), before, "no operator call changed anything");
  });
});

// ------------------------------------------------------------------------------------------------ a database dump

describe("what a database dump holds", () => {
  test("no usable secret: keys, redeem codes, reset tokens and backup codes are hashed; TOTP and upstream keys encrypted; passwords slow-hashed", async () => {
    const [code] = (await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 10, count: 1 })).codes as string[];
    const userKey = (await bob.browser.call("POST", "/api/user/keys", { quota: 10, name: "dump me" })).body.key as string;
    await gateway.admin("POST", "/api/admin/channels", {
      name: "with a key",
      type: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "sk-upstream-VERY-secret-0123456789",
      models: ["std-5.5"],
      status: "disabled",
    });
    const resetFor = mail.length;
    await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: alice.email } });
    const sent = await eventually(resetMailTo(alice.email, resetFor), 10_000, "the reset mail");
    const resetToken = tokenIn(sent.raw);
    assert.ok(resetToken.length >= 40);

    const secrets: Record<string, string> = {
      "A's API key": alice.key,
      "B's new API key": userKey,
      "a redeem code": code!,
      "the redeem code without dashes": code!.replace(/-/g, ""),
      "a reset token": resetToken,
      "A's TOTP secret": aliceTotp,
      "A's backup code": aliceBackupCodes[1]!,
      "the backup code without dashes": aliceBackupCodes[1]!.replace(/-/g, ""),
      "an upstream key": "sk-upstream-VERY-secret-0123456789",
      "A's password": alice.password,
      "the master key": gateway.masterKey,
    };
    const dump = await withDatabase(gateway.databaseUrl, async (query) => {
      const tables = (await query(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((row: { name: string }) => row.name);
      assert.ok(tables.includes("ApiKey") && tables.includes("BackupCode") && tables.includes("PasswordResetToken"));
      const all: Record<string, unknown[]> = {};
      for (const table of tables) all[table] = await query(`SELECT * FROM "${table}"`);
      return all;
    });
    const text = JSON.stringify(dump);
    for (const [what, secret] of Object.entries(secrets))
      assert.equal(text.toLowerCase().includes(secret.toLowerCase()), false, `${what} is in the dump`);
    // What is there instead: hashes, ciphertext, a slow hash.
    const keyRow = (dump.ApiKey as { id: string; keyHash: string; prefix: string }[]).find((row) => row.id === alice.keyId)!;
    assert.equal(keyRow.keyHash, sha256(alice.key));
    assert.equal(keyRow.prefix, alice.key.slice(0, 10));
    assert.ok((dump.PasswordResetToken as { tokenHash: string }[]).some((row) => row.tokenHash === sha256(resetToken)));
    const aliceRow = (dump.User as { id: string; passwordHash: string; totpSecret: string }[]).find((row) => row.id === alice.userId)!;
    assert.match(aliceRow.passwordHash, /^scrypt/i);
    assert.ok(aliceRow.totpSecret.length > aliceTotp.length, "the TOTP secret is ciphertext");
    assert.equal((dump.BackupCode as { userId: string }[]).filter((row) => row.userId === alice.userId).length, 10);
    // The outbox copy of the delivered reset mail keeps no usable token.
    assert.match(JSON.stringify(dump.EmailOutbox), /\[redacted\]/);
    // A hash from the dump is not a key.
    const withHash = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keyRow.keyHash}`, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(withHash.status, 401);
  });
});
