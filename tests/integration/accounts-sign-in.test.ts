// Accounts: sign-in through next-auth's real HTTP flow with and without 2FA, replay, backup codes, second-factor
// throttling, a disabled account; on SQLite and PostgreSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { Browser, callApi, signedIn } from "../helpers/user-api";
import { withDatabase } from "../helpers/database";
import { currentTotp } from "@/lib/accounts/totp";
import { LOCKED, now, assertError, enableTwoFactor, gateway, onBothDatabases } from "../helpers/accounts-setup";

onBothDatabases("sign-in and 2FA", () => {
  test("sign-in without 2FA through next-auth's real flow gives a session the user API accepts", async () => {
    const { email, password, userId } = await createUserWithKey(gateway);
    const session = await signIn(gateway.url, email.toUpperCase(), password);
    assert.ok(session.ok, "the email is matched case-insensitively");
    const browser = new Browser(gateway.url, session.cookie);
    const self = await browser.call("GET", "/api/user/self");
    assert.equal(self.status, 200);
    assert.equal(self.body.id, userId);
    assert.equal(self.body.email, email);
    assert.equal(self.body.role, "user");
    assert.equal(self.body.totpEnabled, false);
    assert.equal(self.body.balance, 10_000_000);
    assert.deepEqual(self.body.groups, ["default"]);
    assert.equal(JSON.stringify(self.body).includes("passwordHash"), false);
    assert.equal(self.headers.get("cache-control"), "no-store");

    const wrong = await signIn(gateway.url, email, "not-the-password-1");
    assert.deepEqual(wrong, { ok: false, error: "Invalid email or password", status: 401 });
    const anonymous = await callApi(gateway.url, "GET", "/api/user/self");
    assertError(anonymous, 401, "unauthenticated", /Sign in/);
    const forged = await callApi(gateway.url, "GET", "/api/user/self", { cookie: "next-auth.session-token=forged.value.here" });
    assertError(forged, 401, "unauthenticated");
  });

  test("2FA: setup, enable, second factor required, replay refused, backup codes single use, disable", async () => {
    const { email, password, key } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const otherSession = await signedIn(gateway.url, email, password);

    const setup = await browser.call("POST", "/api/user/2fa/setup", {});
    assert.equal(setup.status, 200);
    assert.match(setup.body.secret, /^[A-Z2-7]{32}$/);
    const otpauth = new URL(setup.body.otpauthUrl);
    assert.equal(otpauth.protocol, "otpauth:");
    assert.equal(otpauth.searchParams.get("secret"), setup.body.secret);
    assert.match(setup.body.qrCode, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    // Nothing is switched on by setup: sign-in still needs no code.
    assert.equal((await browser.call("GET", "/api/user/self")).body.totpEnabled, false);
    assert.ok((await signIn(gateway.url, email, password)).ok);
    // The secret is stored encrypted.
    await withDatabase(gateway.databaseUrl, async (query) => {
      const [row] = await query(`SELECT "totpSecret" FROM "User" WHERE "email" = ?`, [email]);
      assert.ok(row.totpSecret && !row.totpSecret.includes(setup.body.secret));
    });

    const secret = setup.body.secret as string;
    const wrongEnable = await browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(secret, now() + 600) });
    assertError(wrongEnable, 400, "invalid_request", /not valid/, "code");
    const enableCode = await currentTotp(secret);
    const enabled = await browser.call("POST", "/api/user/2fa/enable", { code: enableCode });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    const backupCodes = enabled.body.backupCodes as string[];
    assert.equal(backupCodes.length, 10);
    assert.equal(new Set(backupCodes).size, 10);
    for (const code of backupCodes) assert.match(code, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    await withDatabase(gateway.databaseUrl, async (query) => {
      const rows = await query(`SELECT "codeHash" FROM "BackupCode" b JOIN "User" u ON u."id" = b."userId" WHERE u."email" = ?`, [email]);
      assert.equal(rows.length, 10);
      const stored = JSON.stringify(rows);
      for (const code of backupCodes)
        assert.equal(stored.includes(code) || stored.includes(code.replace(/-/g, "")), false, "stored hashed");
    });
    // Enabling ended the other session; this one continues with the re-issued cookie.
    assert.equal((await browser.call("GET", "/api/user/self")).body.totpEnabled, true);
    assert.equal((await browser.call("GET", "/api/user/self")).body.backupCodesRemaining, 10);
    assertError(await otherSession.call("GET", "/api/user/self"), 401, "unauthenticated");

    // The second factor is required, and the answer says nothing else.
    assert.deepEqual(await signIn(gateway.url, email, password), { ok: false, error: "Second factor required", status: 401 });
    // A wrong password with a valid code still reads as a wrong password.
    assert.deepEqual(await signIn(gateway.url, email, "wrong-password-1", await currentTotp(secret, now() + 30)), {
      ok: false,
      error: "Invalid email or password",
      status: 401,
    });
    // The code that enabled 2FA was used once already: replay refused.
    assert.deepEqual(await signIn(gateway.url, email, password, enableCode), {
      ok: false,
      error: "Invalid authentication code",
      status: 401,
    });
    // The next step's code (±1 step of clock skew) signs in, once.
    const nextCode = await currentTotp(secret, now() + 30);
    const withTotp = await signIn(gateway.url, email, password, nextCode);
    assert.ok(withTotp.ok, `TOTP sign-in: ${JSON.stringify(withTotp)}`);
    assert.deepEqual(await signIn(gateway.url, email, password, nextCode), {
      ok: false,
      error: "Invalid authentication code",
      status: 401,
    });
    // Three steps ahead is outside the skew window (even if the clock moves on a step meanwhile).
    assert.deepEqual(await signIn(gateway.url, email, password, await currentTotp(secret, now() + 90)), {
      ok: false,
      error: "Invalid authentication code",
      status: 401,
    });

    // A backup code signs in once (typed in upper case with spaces, as people do).
    const typed = backupCodes[0]!.toUpperCase().replace(/-/g, " ");
    const withBackup = await signIn(gateway.url, email, password, typed);
    assert.ok(withBackup.ok, `backup sign-in: ${JSON.stringify(withBackup)}`);
    assert.deepEqual(await signIn(gateway.url, email, password, backupCodes[0]), {
      ok: false,
      error: "Invalid authentication code",
      status: 401,
    });
    const fresh = new Browser(gateway.url, withBackup.ok ? withBackup.cookie : "");
    assert.equal((await fresh.call("GET", "/api/user/self")).body.backupCodesRemaining, 9);

    // 2FA refuses API keys: setup, enable and disable, even with a current code, even alongside the cookie.
    for (const [path, body] of [
      ["/api/user/2fa/setup", {}],
      ["/api/user/2fa/enable", { code: backupCodes[1] }],
      ["/api/user/2fa/disable", { code: backupCodes[1] }],
    ] as const) {
      const withKey = await callApi(gateway.url, "POST", path, { body, headers: { authorization: `Bearer ${key}` } });
      assertError(withKey, 403, "forbidden", /signed-in session/);
      const both = await fresh.call("POST", path, body, { authorization: `Bearer ${key}` });
      assertError(both, 403, "forbidden", /API keys cannot/);
    }
    assert.equal((await fresh.call("GET", "/api/user/self")).body.totpEnabled, true, "still on");
    assert.equal(
      (await fresh.call("GET", "/api/user/self")).body.backupCodesRemaining,
      9,
      "the backup code sent with the key was not consumed",
    );

    // Setup cannot replace the secret while 2FA is on.
    assertError(await fresh.call("POST", "/api/user/2fa/setup", {}), 409, "conflict", /already on/);
    // Disable: a used backup code is refused; an unused one turns 2FA off.
    assertError(await fresh.call("POST", "/api/user/2fa/disable", { code: backupCodes[0] }), 400, "invalid_request", /not valid/, "code");
    const disabled = await fresh.call("POST", "/api/user/2fa/disable", { code: backupCodes[1] });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.deepEqual(disabled.body, { totpEnabled: false });
    const self = await fresh.call("GET", "/api/user/self");
    assert.equal(self.body.totpEnabled, false);
    assert.ok((await signIn(gateway.url, email, password)).ok, "no code needed any more");
    await withDatabase(gateway.databaseUrl, async (query) => {
      const [row] = await query(`SELECT "totpSecret", "totpEnabled" FROM "User" WHERE "email" = ?`, [email]);
      assert.equal(row.totpSecret, null);
      const codes = await query(`SELECT b."id" FROM "BackupCode" b JOIN "User" u ON u."id" = b."userId" WHERE u."email" = ?`, [email]);
      assert.equal(codes.length, 0);
    });
  });

  test("2FA disable with a current TOTP code; 2FA calls need a session", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const { secret } = await enableTwoFactor(browser);
    const disabled = await browser.call("POST", "/api/user/2fa/disable", { code: await currentTotp(secret, now() + 30) });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assertError(await browser.call("POST", "/api/user/2fa/disable", { code: "123456" }), 409, "conflict", /not on/);
    assertError(await browser.call("POST", "/api/user/2fa/enable", { code: "123456" }), 409, "conflict", /setup/);
    for (const path of ["/api/user/2fa/setup", "/api/user/2fa/enable", "/api/user/2fa/disable"]) {
      assertError(await callApi(gateway.url, "POST", path, { body: { code: "123456" } }), 401, "unauthenticated");
    }
  });

  test("wrong second-factor codes are throttled per account: the sixth attempt is locked, with when to retry", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const { secret } = await enableTwoFactor(browser);
    for (let attempt = 1; attempt <= 5; attempt++) {
      assert.deepEqual(
        await signIn(gateway.url, email, password, "000000"),
        { ok: false, error: "Invalid authentication code", status: 401 },
        `attempt ${attempt}`,
      );
    }
    const locked = await signIn(gateway.url, email, password, await currentTotp(secret, now() + 30));
    assert.equal(locked.ok, false);
    const match = LOCKED.exec(locked.ok ? "" : locked.error);
    assert.ok(match, `lockout message: ${locked.ok ? "" : locked.error}`);
    assert.deepEqual([match[1], match[2]], ["15", "minutes"], "said in words, no timestamp");
    // The same counter guards the 2FA endpoints: the session cannot turn 2FA off with a code meanwhile.
    const disable = await browser.call("POST", "/api/user/2fa/disable", { code: await currentTotp(secret, now() + 30) });
    assertError(disable, 429, "locked", LOCKED);
    assert.ok(Number(disable.headers.get("retry-after")) > 14 * 60);
  });

  test("2FA enable is throttled too", async () => {
    const { email, password } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    const setup = await browser.call("POST", "/api/user/2fa/setup", {});
    for (let attempt = 1; attempt <= 5; attempt++) {
      assertError(await browser.call("POST", "/api/user/2fa/enable", { code: "999999" }), 400, "invalid_request", /not valid/);
    }
    const locked = await browser.call("POST", "/api/user/2fa/enable", { code: await currentTotp(setup.body.secret) });
    assertError(locked, 429, "locked", LOCKED);
    assert.equal((await browser.call("GET", "/api/user/self")).body.totpEnabled, false);
  });

  test("a disabled user cannot sign in: a wrong password reads as usual, only the right one is told the account is disabled", async () => {
    const { email, password, userId } = await createUserWithKey(gateway);
    const browser = await signedIn(gateway.url, email, password);
    await gateway.admin("PATCH", `/api/admin/users/${userId}`, { status: "disabled" });
    assert.deepEqual(await signIn(gateway.url, email, `${password}-wrong`), { ok: false, error: "Invalid email or password", status: 401 });
    const right = await signIn(gateway.url, email, password);
    assert.equal(right.ok, false);
    assert.match(right.ok ? "" : right.error, /^This account is disabled/);
    assertError(await browser.call("GET", "/api/user/self"), 401, "unauthenticated");
  });
});
