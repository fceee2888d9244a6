// Accounts without dead ends (lib/accounts/security-notices.ts, lib/account-api/reset.ts, lib/auth/session.ts):
// without SMTP_URL the answers say that mail is off and the operator's overview counts what waits in the outbox; a
// password reset (and the operator's 2FA reset, and disabling) ends the session rows, so "Where you are signed in"
// lists no browser that was signed out; every change of how an account signs in mails its owner a notice; the reset
// page can ask whether a link still works before anyone types a password.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { withDatabase } from "../helpers/database";
import { callApi, eventually, signedIn, type Browser } from "../helpers/user-api";
import { currentTotp } from "@/lib/accounts/totp";

after(stopAllGateways);

const randomEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@example.com`;

type Mail = { subject: string; text: string; status: string };

async function mails(gateway: Gateway, email: string): Promise<Mail[]> {
  return (await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(email)}`)).data;
}

/** Asks for a reset link and reads its token from the outbox. */
async function resetToken(gateway: Gateway, email: string): Promise<string> {
  const count = (await mails(gateway, email)).filter((mail) => /^Reset your/.test(mail.subject)).length;
  const asked = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email } });
  assert.equal(asked.status, 200);
  const resets = await eventually(
    async () => {
      const found = (await mails(gateway, email)).filter((mail) => /^Reset your/.test(mail.subject));
      return found.length > count ? found : null;
    },
    10_000,
    "the reset mail",
  );
  return new URL(/(https?:\/\/\S+\/reset-password\?\S+)/.exec(resets[0]!.text)![1]!).searchParams.get("token")!;
}

async function sessionVersion(gateway: Gateway, userId: string): Promise<number> {
  const [row] = await withDatabase(gateway.databaseUrl, (query) => query(`SELECT "sessionVersion" FROM "User" WHERE "id" = ?`, [userId]));
  return Number(row.sessionVersion);
}

async function turnOnTwoFactor(browser: Browser): Promise<string> {
  const secret = (await browser.call("POST", "/api/user/2fa/setup", {})).body.secret as string;
  const enabled = await browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(secret) });
  assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
  return secret;
}

async function liveSessionRows(gateway: Gateway, userId: string): Promise<number> {
  return withDatabase(gateway.databaseUrl, async (query) => {
    const rows = await query(`SELECT "id" FROM "Session" WHERE "userId" = ? AND "revokedAt" IS NULL`, [userId]);
    return rows.length;
  });
}

describe("without SMTP_URL", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ portal: true, env: { APP_URL: "http://portal.example.test" } });
  });

  test("a reset request says mail is off and to ask the operator; the link waits in the outbox", async () => {
    const user = await createUserWithKey(gateway);
    const answer = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: user.email } });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.mailOff, true);
    assert.match(answer.body.message, /does not send email/);
    assert.match(answer.body.message, /Ask the operator/);
    // The same answer for an address without an account: mail being off is the gateway's, not the account's.
    const nobody = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: randomEmail("nobody") } });
    assert.deepEqual(nobody.body, answer.body);
    const waiting = await eventually(async () => (await mails(gateway, user.email))[0], 10_000, "the reset mail");
    assert.equal(waiting.status, "logged");
  });

  test("sign-up with verification on says mail is off; without verification nothing is said about mail", async () => {
    await gateway.admin("POST", "/api/admin/settings", { verifyEmail: true });
    try {
      const answer = await callApi(gateway.url, "POST", "/api/user/signup", {
        body: { email: randomEmail("new"), password: "a-long-password-42" },
      });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      assert.equal(answer.body.mailOff, true);
      assert.match(answer.body.message, /does not send email/);
      assert.match(answer.body.message, /Ask the operator of this gateway to confirm your account/);
      const resend = await callApi(gateway.url, "POST", "/api/user/verify-email/resend", { body: { email: answer.body.email } });
      assert.equal(resend.body.mailOff, true);
      assert.match(resend.body.message, /Ask the operator/);
    } finally {
      await gateway.admin("POST", "/api/admin/settings", { verifyEmail: null });
    }
    const immediate = await callApi(gateway.url, "POST", "/api/user/signup", {
      body: { email: randomEmail("new"), password: "a-long-password-42" },
    });
    assert.equal(immediate.body.mailOff, false);
    assert.match(immediate.body.message, /your account is ready/);
  });

  test("the overview says mail is off and counts the messages waiting in the outbox", async () => {
    const user = await createUserWithKey(gateway);
    await resetToken(gateway, user.email);
    // Read twice around the database's own count, so a mail of an earlier test landing meanwhile cannot confuse it.
    const agreed = await eventually(
      async () => {
        const overview = await gateway.admin("GET", "/api/admin/overview");
        const rows = await withDatabase(gateway.databaseUrl, (query) => query(`SELECT "id" FROM "EmailOutbox" WHERE "status" = 'logged'`));
        return overview.mail.waiting === rows.length ? overview.mail : null;
      },
      10_000,
      "the overview's count",
    );
    assert.ok(agreed.waiting >= 1);
    assert.deepEqual(agreed, { configured: false, waiting: agreed.waiting, failed: 0 });
    const sent = await gateway.admin("POST", `/api/admin/users/${user.userId}/send-reset`, {});
    assert.deepEqual(sent, { id: user.userId, sent: true, mailOff: true });
  });

  test("after a password reset the old browsers are not listed: their session rows are ended, not only their cookies", async () => {
    const user = await createUserWithKey(gateway);
    const old = await signedIn(gateway.url, user.email, user.password);
    await signedIn(gateway.url, user.email, user.password);
    assert.equal(await liveSessionRows(gateway, user.userId), 2);
    const token = await resetToken(gateway, user.email);
    const done = await callApi(gateway.url, "POST", "/api/user/reset", {
      body: { email: user.email, token, password: "after-reset-pass-1" },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await old.call("GET", "/api/user/self")).status, 401);
    assert.equal(await liveSessionRows(gateway, user.userId), 0, "no session row of the user is left live");
    const fresh = await signedIn(gateway.url, user.email, "after-reset-pass-1");
    const listed = await fresh.call("GET", "/api/user/sessions");
    assert.deepEqual(
      listed.body.data.map((row: { current: boolean }) => row.current),
      [true],
      "only the browser that signed in after the reset",
    );
  });

  test("a sign-in whose password check overlapped a reset starts no live session row", async () => {
    // The race: a sign-in checks the old password, a reset finishes (the version moves on, the rows end), then the
    // sign-in writes its row. startSession is given the version the sign-in saw, as lib/auth/options.ts gives it.
    process.env.DATABASE_URL = gateway.databaseUrl;
    process.env.GATEWAY_DATA_DIR = gateway.dataDir;
    const { startSession } = await import("@/lib/auth/session");
    const user = await createUserWithKey(gateway);
    const seen = await sessionVersion(gateway, user.userId);
    const token = await resetToken(gateway, user.email);
    const done = await callApi(gateway.url, "POST", "/api/user/reset", {
      body: { email: user.email, token, password: "after-reset-pass-2" },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(await sessionVersion(gateway, user.userId), seen + 1);
    assert.equal(await startSession(user.userId, seen, { userAgent: "late sign-in", address: "127.0.0.1" }), null);
    assert.equal(await liveSessionRows(gateway, user.userId), 0, "the late sign-in's row is ended at once");
    const fresh = await signedIn(gateway.url, user.email, "after-reset-pass-2");
    const listed = await fresh.call("GET", "/api/user/sessions");
    assert.deepEqual(
      listed.body.data.map((row: { current: boolean }) => row.current),
      [true],
      "only the browser that signed in with the new password is listed",
    );
    assert.equal(typeof (await startSession(user.userId, seen + 1, { userAgent: "in time", address: "127.0.0.1" })), "string");
    assert.equal(await liveSessionRows(gateway, user.userId), 2, "a sign-in at the current version starts its row as before");
  });

  test("the operator's 2FA reset and disabling an account end the session rows too", async () => {
    const user = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, user.email, user.password);
    await turnOnTwoFactor(browser);
    assert.equal(await liveSessionRows(gateway, user.userId), 1);
    const reset = await gateway.admin("POST", `/api/admin/users/${user.userId}/reset-2fa`, {});
    assert.deepEqual(reset, { id: user.userId, totpEnabled: false, mailOff: true });
    assert.equal(await liveSessionRows(gateway, user.userId), 0);

    await signedIn(gateway.url, user.email, user.password);
    assert.equal(await liveSessionRows(gateway, user.userId), 1);
    await gateway.admin("PATCH", `/api/admin/users/${user.userId}`, { status: "disabled" });
    assert.equal(await liveSessionRows(gateway, user.userId), 0);
  });

  test("each change of how an account signs in mails its owner a notice, into the outbox while mail is off", async () => {
    const user = await createUserWithKey(gateway);
    const subjects = async () => (await mails(gateway, user.email)).map((mail) => mail.subject).reverse();
    let browser = await signedIn(gateway.url, user.email, user.password);

    const changed = await browser.call("POST", "/api/user/password", { current: user.password, next: "changed-pass-1" });
    assert.equal(changed.status, 200);
    const secret = await turnOnTwoFactor(browser);
    const code = await currentTotp(secret, Math.floor(Date.now() / 1000) + 30);
    const off = await browser.call("POST", "/api/user/2fa/disable", { code });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    await turnOnTwoFactor(browser);
    await gateway.admin("POST", `/api/admin/users/${user.userId}/reset-2fa`, {});
    const token = await resetToken(gateway, user.email);
    const done = await callApi(gateway.url, "POST", "/api/user/reset", {
      body: { email: user.email, token, password: "after-reset-pass-2" },
    });
    assert.equal(done.status, 200);
    browser = await signedIn(gateway.url, user.email, "after-reset-pass-2");

    assert.deepEqual(await subjects(), [
      "Your Model Gateway password was changed",
      "Two-factor authentication is on for your Model Gateway account",
      "Two-factor authentication is off for your Model Gateway account",
      "Two-factor authentication is on for your Model Gateway account",
      "The operator reset your Model Gateway two-factor authentication",
      "Reset your Model Gateway password",
      "Your Model Gateway password was reset",
    ]);
    const all = await mails(gateway, user.email);
    for (const mail of all) assert.equal(mail.status, "logged");
    const operatorReset = all.find((mail) => mail.subject.startsWith("The operator reset"))!;
    assert.match(operatorReset.text, /set two-factor authentication up again/);
    assert.match(operatorReset.text, /http:\/\/portal\.example\.test\/sign-in/);
    // A notice carries no secret: no token, no link but the sign-in page.
    for (const mail of all.filter((row) => !row.subject.startsWith("Reset your"))) assert.doesNotMatch(mail.text, /token=/);
  });

  test("the reset page's check: a usable link is valid; used, expired and made-up ones are refused at once", async () => {
    const user = await createUserWithKey(gateway);
    const check = (body: unknown) => callApi(gateway.url, "POST", "/api/user/reset/check", { body });
    const token = await resetToken(gateway, user.email);
    const valid = await check({ email: user.email, token });
    assert.equal(valid.status, 200, JSON.stringify(valid.body));
    assert.deepEqual(valid.body, { valid: true });
    // Checking uses nothing up: the reset still works, and then the check says the link was used.
    const done = await callApi(gateway.url, "POST", "/api/user/reset", {
      body: { email: user.email, token, password: "after-reset-pass-1" },
    });
    assert.equal(done.status, 200);
    const used = await check({ email: user.email, token });
    assert.equal(used.status, 400);
    assert.deepEqual([used.body.error.code, used.body.error.param], ["invalid_request", "token"]);
    assert.match(used.body.error.message, /already been used/);

    const made = await check({ email: user.email, token: "x".repeat(43) });
    assert.match(made.body.error.message, /not valid/);
    const other = await check({ email: randomEmail("other"), token });
    assert.match(other.body.error.message, /not valid/, "a real token with another email is as unknown as a made-up one");

    const expiring = await resetToken(gateway, user.email);
    await withDatabase(gateway.databaseUrl, (query) =>
      query(`UPDATE "PasswordResetToken" SET "expiresAt" = ? WHERE "usedAt" IS NULL AND "userId" = ?`, [
        new Date(Date.now() - 1000),
        user.userId,
      ]),
    );
    assert.match((await check({ email: user.email, token: expiring })).body.error.message, /expired/);

    const bad = await check({ email: "not an email", token: "" });
    assert.equal(bad.status, 400);
  });
});

describe("with SMTP_URL set", () => {
  test("the answers and the overview do not say that mail is off", async () => {
    // Nothing listens there: delivery fails and is recorded as such, which the overview counts.
    const gateway = await startGateway({ env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    const user = await createUserWithKey(gateway);
    const answer = await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email: user.email } });
    assert.equal(answer.body.mailOff, false);
    assert.match(answer.body.message, /is on its way/);
    await eventually(async () => (await mails(gateway, user.email))[0]?.status === "failed", 20_000, "the failed delivery");
    const overview = await gateway.admin("GET", "/api/admin/overview");
    assert.deepEqual(overview.mail, { configured: true, waiting: 0, failed: 1 });
    await gateway.stop();
  });
});
