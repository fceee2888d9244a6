// Password reset: the request answers the same for unknown emails, the link comes
// from APP_URL, tokens are stored hashed, expire, work once and die with any password change; a reset ends every
// session and leaves 2FA on. The last part sends the mail through a real SMTP server started here.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { SMTPServer } from "smtp-server";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { callApi, eventually, median, signedIn, type ApiResult } from "../helpers/user-api";
import { withDatabase } from "../helpers/database";
import { currentTotp } from "@/lib/accounts/totp";

after(stopAllGateways);

const APP_URL = "http://portal.example.test:8443";
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const randomEmail = (label = "user") => `${label}-${randomBytes(5).toString("hex")}@example.com`;

/** The reset link in a mail body, parsed: the token and email of its query. */
function linkIn(text: string): { url: URL; token: string; email: string } {
  const found = /(https?:\/\/\S+\/reset-password\?\S+)/.exec(text);
  assert.ok(found, `a reset link in: ${text}`);
  const url = new URL(found[1]!);
  return { url, token: url.searchParams.get("token")!, email: url.searchParams.get("email")! };
}

/** Asks for a reset and waits for the mail in the outbox (several may arrive for one address: the newest). */
async function requestToken(gateway: Gateway, email: string): Promise<{ token: string; text: string }> {
  const outboxPath = `/api/admin/outbox?to=${encodeURIComponent(email)}`;
  // Only the reset mails: the account's security notices (lib/accounts/security-notices.ts) share the outbox.
  const resetMails = async () =>
    ((await gateway.admin("GET", outboxPath)).data as { subject: string; text: string }[]).filter((row) => /^Reset your/.test(row.subject));
  const before = (await resetMails()).length;
  const answer = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const rows = await eventually(
    async () => {
      const data = await resetMails();
      return data.length > before ? data : null;
    },
    10_000,
    `the reset mail to ${email}`,
  );
  const text = rows[0].text as string;
  return { token: linkIn(text).token, text };
}

function reset(gateway: Gateway, body: unknown): Promise<ApiResult> {
  return callApi(gateway.url, "POST", "/api/user/reset", { body });
}

function assertRefused(result: ApiResult, message: RegExp) {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.equal(result.body.error.code, "invalid_request");
  assert.equal(result.body.error.param, "token");
  assert.match(result.body.error.message, message);
}

function resetTests(database: "sqlite" | "postgres") {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ portal: true, database, env: { APP_URL } });
  });

  test("the request answers the same for an unknown email, in about the same time; only a real account gets mail", async () => {
    const known = await Promise.all([0, 1, 2, 3, 4].map(() => createUserWithKey(gateway)));
    const knownAnswers: ApiResult[] = [];
    const unknownAnswers: ApiResult[] = [];
    const unknownEmails: string[] = [];
    for (const user of known) {
      knownAnswers.push(await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: user.email } }));
      const unknown = randomEmail("nobody");
      unknownEmails.push(unknown);
      unknownAnswers.push(await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: unknown } }));
    }
    for (const answer of [...knownAnswers, ...unknownAnswers]) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, knownAnswers[0]!.body);
    }
    // No SMTP_URL here: the message says so and names who holds the link (tests/integration/account-notices.test.ts).
    assert.match(knownAnswers[0]!.body.message, /if an account uses this email/i);
    const knownMedian = median(knownAnswers.map((answer) => answer.ms));
    const unknownMedian = median(unknownAnswers.map((answer) => answer.ms));
    assert.ok(Math.abs(knownMedian - unknownMedian) < 25, `known ${knownMedian.toFixed(1)} ms vs unknown ${unknownMedian.toFixed(1)} ms`);

    for (const user of known) {
      const mail = await eventually(
        async () => (await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(user.email)}`)).data[0],
        10_000,
        "reset mail",
      );
      const link = linkIn(mail.text);
      // Built from APP_URL, not from the Host header the request came with.
      assert.equal(link.url.origin, APP_URL);
      assert.equal(link.url.pathname, "/reset-password");
      assert.equal(link.email, user.email);
      assert.match(link.token, /^[A-Za-z0-9]{40,}$/);
      assert.equal(mail.status, "logged", "no SMTP_URL: kept in the outbox and the log");
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const email of unknownEmails)
      assert.deepEqual((await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(email)}`)).data, []);
  });

  test("the token is random, stored hashed, and valid for 30 minutes", async () => {
    const user = await createUserWithKey(gateway);
    const first = await requestToken(gateway, user.email);
    const second = await requestToken(gateway, user.email);
    assert.notEqual(first.token, second.token);
    await withDatabase(gateway.databaseUrl, async (query) => {
      const rows = await query(`SELECT * FROM "PasswordResetToken" WHERE "userId" = ? ORDER BY "createdAt"`, [user.userId]);
      assert.equal(rows.length, 2);
      assert.deepEqual(
        rows.map((row) => row.tokenHash),
        [sha256(first.token), sha256(second.token)],
      );
      assert.equal(JSON.stringify(rows).includes(first.token), false);
      const lifetime = new Date(rows[0].expiresAt).getTime() - new Date(rows[0].createdAt).getTime();
      assert.equal(lifetime, 30 * 60 * 1000);
    });
  });

  test("a reset sets the password, ends every session, works once", async () => {
    const user = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, user.email, user.password);
    const { token } = await requestToken(gateway, user.email);
    const done = await reset(gateway, { email: user.email.toUpperCase(), token, password: "after-reset-pass-1" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body, { email: user.email, passwordGenerated: false });
    assert.equal((await browser.call("GET", "/api/user/self")).status, 401, "the old session ended");
    assert.deepEqual(await signIn(gateway.url, user.email, user.password), { ok: false, error: "Invalid email or password", status: 401 });
    assert.ok((await signIn(gateway.url, user.email, "after-reset-pass-1")).ok);
    // Single use.
    assertRefused(await reset(gateway, { email: user.email, token, password: "another-pass-2" }), /already been used/);
    assert.ok((await signIn(gateway.url, user.email, "after-reset-pass-1")).ok);
  });

  test("without a password a generated one is set and returned once", async () => {
    const user = await createUserWithKey(gateway);
    const { token } = await requestToken(gateway, user.email);
    const done = await reset(gateway, { email: user.email, token });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.passwordGenerated, true);
    assert.match(done.body.password, /^[A-Za-z0-9]{20}$/);
    assert.ok((await signIn(gateway.url, user.email, done.body.password)).ok);
  });

  test("an expired token is refused", async () => {
    const user = await createUserWithKey(gateway);
    const { token } = await requestToken(gateway, user.email);
    await withDatabase(gateway.databaseUrl, (query) =>
      query(`UPDATE "PasswordResetToken" SET "expiresAt" = ? WHERE "tokenHash" = ?`, [new Date(Date.now() - 1000), sha256(token)]),
    );
    assertRefused(await reset(gateway, { email: user.email, token, password: "after-reset-pass-1" }), /expired/);
    assert.ok((await signIn(gateway.url, user.email, user.password)).ok, "the password is unchanged");
  });

  test("a password change voids every token sent before it", async () => {
    const user = await createUserWithKey(gateway);
    const { token } = await requestToken(gateway, user.email);
    const browser = await signedIn(gateway.url, user.email, user.password);
    const changed = await browser.call("POST", "/api/user/password", { current: user.password, next: "changed-in-portal-1" });
    assert.equal(changed.status, 200);
    assertRefused(
      await reset(gateway, { email: user.email, token, password: "after-reset-pass-1" }),
      /password was changed after it was sent/,
    );
    assert.ok((await signIn(gateway.url, user.email, "changed-in-portal-1")).ok);

    // So does a reset with another token: two links sent, the first used, the second is dead.
    const one = await requestToken(gateway, user.email);
    const two = await requestToken(gateway, user.email);
    assert.equal((await reset(gateway, { email: user.email, token: one.token, password: "reset-one-pass-1" })).status, 200);
    assertRefused(await reset(gateway, { email: user.email, token: two.token, password: "reset-two-pass-2" }), /password was changed/);
    assert.ok((await signIn(gateway.url, user.email, "reset-one-pass-1")).ok);
  });

  test("a made-up token, or a real token with another email, is simply not valid", async () => {
    const alice = await createUserWithKey(gateway);
    const bob = await createUserWithKey(gateway);
    const { token } = await requestToken(gateway, alice.email);
    assertRefused(
      await reset(gateway, { email: alice.email, token: "x".repeat(43), password: "after-reset-pass-1" }),
      /^This reset link is not valid/,
    );
    assertRefused(await reset(gateway, { email: bob.email, token, password: "after-reset-pass-1" }), /^This reset link is not valid/);
    assertRefused(await reset(gateway, { email: randomEmail(), token, password: "after-reset-pass-1" }), /^This reset link is not valid/);
    assert.ok((await signIn(gateway.url, bob.email, bob.password)).ok);
    // The token is still good for its own account.
    assert.equal((await reset(gateway, { email: alice.email, token, password: "after-reset-pass-1" })).status, 200);
  });

  test("a reset keeps 2FA on", async () => {
    const user = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, user.email, user.password);
    const setup = await browser.call("POST", "/api/user/2fa/setup", {});
    const enabled = await browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(setup.body.secret) });
    assert.equal(enabled.status, 200);
    const { token } = await requestToken(gateway, user.email);
    assert.equal((await reset(gateway, { email: user.email, token, password: "after-reset-pass-1" })).status, 200);
    assert.deepEqual(await signIn(gateway.url, user.email, "after-reset-pass-1"), {
      ok: false,
      error: "Second factor required",
      status: 401,
    });
    const withCode = await signIn(
      gateway.url,
      user.email,
      "after-reset-pass-1",
      await currentTotp(setup.body.secret, Math.floor(Date.now() / 1000) + 30),
    );
    assert.ok(withCode.ok, JSON.stringify(withCode));
  });

  test("a reset lifts a sign-in lockout: it proves control of the mailbox", async () => {
    const user = await createUserWithKey(gateway);
    for (let attempt = 0; attempt < 5; attempt++) await signIn(gateway.url, user.email, "wrong-password-x");
    const locked = await signIn(gateway.url, user.email, user.password);
    assert.match(locked.ok ? "" : locked.error, /^Too many attempts/);
    const { token } = await requestToken(gateway, user.email);
    assert.equal((await reset(gateway, { email: user.email, token, password: "after-reset-pass-1" })).status, 200);
    assert.ok((await signIn(gateway.url, user.email, "after-reset-pass-1")).ok);
  });
}

describe("password reset on SQLite", () => resetTests("sqlite"));

describe("password reset on PostgreSQL", async () => {
  if (!(await postgresAvailable())) {
    test("PostgreSQL is not reachable on 127.0.0.1:5432", { skip: true }, () => undefined);
    return;
  }
  resetTests("postgres");
});

/** Decodes a quoted-printable body (nodemailer uses it for long lines such as the link). */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe("password reset mail through a real SMTP server", () => {
  const received: { to: string[]; raw: string }[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  let gateway: Gateway;

  before(async () => {
    smtp.listen(0, "127.0.0.1");
    await once(smtp.server, "listening");
    const port = (smtp.server.address() as { port: number }).port;
    gateway = await startGateway({
      portal: true,
      env: { APP_URL, SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: "Gateway Test <gateway@example.test>" },
    });
  });

  after(async () => {
    await gateway?.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test("the mailed link's token sets a new password, which then signs in", async () => {
    const user = await createUserWithKey(gateway);
    const answer = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: user.email } });
    assert.equal(answer.status, 200);
    const message = await eventually(async () => received.find((mail) => mail.to.includes(user.email)), 15_000, "the SMTP delivery");
    const split = message.raw.indexOf("\r\n\r\n");
    const headers = message.raw.slice(0, split);
    assert.match(headers, /^From: Gateway Test <gateway@example\.test>/m);
    assert.match(headers, new RegExp(`^To: ${user.email.replace(/[.+]/g, "\\$&")}`, "m"));
    assert.match(headers, /^Subject: Reset your Model Gateway password/m);
    const body = /Content-Transfer-Encoding: quoted-printable/i.test(headers)
      ? decodeQuotedPrintable(message.raw.slice(split + 4))
      : message.raw.slice(split + 4);
    const link = linkIn(body);
    assert.equal(link.url.origin, APP_URL);
    assert.equal(link.email, user.email);

    const done = await reset(gateway, { email: link.email, token: link.token, password: "mailed-reset-pass-1" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const session = await signIn(gateway.url, user.email, "mailed-reset-pass-1");
    assert.ok(session.ok, JSON.stringify(session));
    assert.deepEqual(await signIn(gateway.url, user.email, user.password), { ok: false, error: "Invalid email or password", status: 401 });

    // Delivered, so the outbox copy keeps no usable token.
    const outbox = await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(user.email)}`);
    // The reset mail, and the notice that the password was reset (lib/accounts/security-notices.ts).
    assert.deepEqual(
      outbox.data.map((row: { subject: string }) => row.subject),
      ["Your Model Gateway password was reset", "Reset your Model Gateway password"],
    );
    const resetMail = outbox.data[1];
    assert.equal(resetMail.status, "sent");
    assert.equal(resetMail.text.includes(link.token), false);
    assert.match(resetMail.text, /token=\[redacted\]/);
  });
});
