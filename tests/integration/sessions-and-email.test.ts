// Sessions and email (SECURITY.md). Sign-out ends that session on the server (a copy of its cookie stops working
// at once), one session can be ended from another, "sign out everywhere" ends all of them. And
// sign-up answers the same for a new and a taken address; while email verification is on, a new account cannot sign
// in before it opened the link from its mail, and only the holder of the right password learns that (or that the
// account is disabled); accounts made by the operator count as verified; without mail, sign-up stays immediate.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";
import { callApi, eventually, signedIn } from "../helpers/user-api";

after(stopAllGateways);

const randomEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@example.com`;
const PASSWORD = "a-long-password-42";

/** next-auth's own sign-out (what the portal's "Sign out" calls): CSRF token, then POST /api/auth/signout. */
async function signOut(baseUrl: string, cookie: string): Promise<number> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`, { headers: { cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const response = await fetch(`${baseUrl}/api/auth/signout`, {
    method: "POST",
    headers: { cookie: [cookie, csrfCookie].filter(Boolean).join("; "), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, json: "true" }),
    redirect: "manual",
  });
  return response.status;
}

async function works(gateway: Gateway, cookie: string): Promise<boolean> {
  const self = await callApi(gateway.url, "GET", "/api/user/self", { cookie });
  const session = await (await fetch(`${gateway.url}/api/auth/session`, { headers: { cookie } })).json();
  assert.equal(self.status === 200, Boolean(session?.user), "the account API and next-auth agree on whether the session is live");
  return self.status === 200;
}

/** The newest outbox mail to `email` whose subject matches, once it is there. */
async function mailTo(gateway: Gateway, email: string, subject: RegExp, count = 1): Promise<{ subject: string; text: string }[]> {
  return eventually(
    async () => {
      const rows = (await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(email)}`)).data as {
        subject: string;
        text: string;
      }[];
      const matching = rows.filter((row) => subject.test(row.subject));
      return matching.length >= count ? matching : null;
    },
    10_000,
    `mail "${subject}" to ${email}`,
  );
}

function verifyLinkIn(text: string): { token: string; email: string; url: URL } {
  const found = /(https?:\/\/\S+\/verify-email\?\S+)/.exec(text);
  assert.ok(found, `a confirmation link in: ${text}`);
  const url = new URL(found[1]!);
  return { url, token: url.searchParams.get("token")!, email: url.searchParams.get("email")! };
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`on ${database}`, () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway({ portal: true, database, env: { APP_URL: "http://portal.example.test" } });
    });

    test("sign-out ends that session, a copied cookie stops working, other sessions go on", async () => {
      const email = randomEmail("sessions");
      await gateway.admin("POST", "/api/admin/users", { email, password: PASSWORD });
      const first = await signIn(gateway.url, email, PASSWORD);
      const second = await signIn(gateway.url, email, PASSWORD);
      assert.ok(first.ok && second.ok);
      const copied = first.cookie; // what an attacker copied before the user signed out

      const listed = await callApi(gateway.url, "GET", "/api/user/sessions", { cookie: first.cookie });
      assert.equal(listed.status, 200);
      assert.equal(listed.body.data.length, 2);
      assert.equal(listed.body.data.filter((row: { current: boolean }) => row.current).length, 1);

      assert.ok([200, 302].includes(await signOut(gateway.url, first.cookie)));
      assert.equal(await works(gateway, copied), false, "the cookie copied before sign-out is dead");
      assert.equal(await works(gateway, second.cookie), true, "the other browser stays signed in");
      const remaining = await callApi(gateway.url, "GET", "/api/user/sessions", { cookie: second.cookie });
      assert.equal(remaining.body.data.length, 1);
    });

    test("one session is ended from another; 'sign out everywhere' ends all, this one too", async () => {
      const email = randomEmail("everywhere");
      await gateway.admin("POST", "/api/admin/users", { email, password: PASSWORD });
      const browsers = await Promise.all([1, 2, 3].map(() => signedIn(gateway.url, email, PASSWORD)));
      const [one, two, three] = browsers as [(typeof browsers)[0], (typeof browsers)[0], (typeof browsers)[0]];
      const rows = (await one.call("GET", "/api/user/sessions")).body.data as { id: string; current: boolean }[];
      const own = rows.find((row) => row.current)!;
      const twoId = (await two.call("GET", "/api/user/sessions")).body.data.find((row: { current: boolean }) => row.current).id;
      assert.notEqual(own.id, twoId);

      const ended = await one.call("DELETE", `/api/user/sessions/${twoId}`);
      assert.equal(ended.status, 200);
      assert.equal(await works(gateway, two.cookie), false);
      assert.equal(await works(gateway, one.cookie), true);
      assert.equal((await one.call("DELETE", `/api/user/sessions/${twoId}`)).status, 404, "an ended session is not ended twice");

      const stranger = await signedIn(gateway.url, "admin@example.com", "admin-password-123");
      assert.equal((await stranger.call("DELETE", `/api/user/sessions/${own.id}`)).status, 404, "another account's session is not found");
      assert.equal(await works(gateway, one.cookie), true);

      const threeCookie = three.cookie;
      const all = await three.call("POST", "/api/user/sessions/revoke-all");
      assert.equal(all.status, 200);
      assert.equal(all.body.revoked, 2);
      assert.match(all.headers.get("set-cookie") ?? "", /next-auth\.session-token=;/, "the browser that asked gets its cookie cleared");
      assert.equal(await works(gateway, one.cookie), false);
      assert.equal(await works(gateway, threeCookie), false, "a copy of the asking browser's cookie is dead too");
      assert.equal(await works(gateway, stranger.cookie), true, "other accounts are not touched");
    });

    test("without mail, sign-up is immediate and answers the same for a new and a taken address", async () => {
      const settings = await gateway.admin("GET", "/api/admin/settings");
      assert.equal(settings.verifyEmail, false);
      assert.equal(settings.verifyEmailSource, "mail");
      const email = randomEmail("immediate");
      const fresh = await callApi(gateway.url, "POST", "/api/user/signup", { body: { email, password: PASSWORD } });
      const taken = await callApi(gateway.url, "POST", "/api/user/signup", { body: { email, password: "another-password-77" } });
      assert.equal(fresh.status, 202);
      assert.deepEqual([taken.status, taken.body], [fresh.status, fresh.body], "the same answer");
      assert.ok((await signIn(gateway.url, email, PASSWORD)).ok, "the new account signs in at once");
      assert.equal((await signIn(gateway.url, email, "another-password-77")).ok, false, "the taken address kept its password");
    });

    test("with verification on, a new account confirms its email before it signs in; only the right password learns why", async () => {
      const on = await gateway.admin("POST", "/api/admin/settings", { verifyEmail: true });
      assert.deepEqual([on.verifyEmail, on.verifyEmailSource], [true, "setting"]);
      try {
        const email = randomEmail("verify");
        const existing = randomEmail("existing");
        await gateway.admin("POST", "/api/admin/users", { email: existing, password: PASSWORD });

        const fresh = await callApi(gateway.url, "POST", "/api/user/signup", { body: { email, password: PASSWORD } });
        const taken = await callApi(gateway.url, "POST", "/api/user/signup", {
          body: { email: existing, password: "another-password-77" },
        });
        assert.equal(fresh.status, 202);
        assert.deepEqual(
          [taken.status, taken.body.message],
          [fresh.status, fresh.body.message],
          "the same answer for a new and a taken address",
        );
        assert.match(fresh.body.message, /link/);

        const wrong = await signIn(gateway.url, email, "not-the-password-1");
        assert.deepEqual([wrong.ok, !wrong.ok && wrong.error], [false, "Invalid email or password"], "a wrong password learns nothing");
        const unconfirmed = await signIn(gateway.url, email, PASSWORD);
        assert.equal(unconfirmed.ok, false);
        assert.match(!unconfirmed.ok ? unconfirmed.error : "", /^Confirm your email first/);

        const [mail] = await mailTo(gateway, email, /Confirm your email/);
        const link = verifyLinkIn(mail!.text);
        assert.equal(link.url.origin, "http://portal.example.test", "the link is built from APP_URL");
        assert.equal(link.email, email);
        const notice = await mailTo(gateway, existing, /Someone tried to sign up/);
        assert.equal(notice.length, 1, "the owner of the taken address is told, and gets no confirmation link");

        const bad = await callApi(gateway.url, "POST", "/api/user/verify-email", { body: { email, token: "made-up-token" } });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error.param, "token");
        const elsewhere = await callApi(gateway.url, "POST", "/api/user/verify-email", { body: { email: existing, token: link.token } });
        assert.equal(elsewhere.status, 400, "a token confirms only its own address");
        const confirmed = await callApi(gateway.url, "POST", "/api/user/verify-email", { body: { email, token: link.token } });
        assert.deepEqual([confirmed.status, confirmed.body.verified], [200, true]);
        assert.ok((await signIn(gateway.url, email, PASSWORD)).ok, "a confirmed account signs in");
        assert.ok((await signIn(gateway.url, existing, PASSWORD)).ok, "an account made by the operator counts as confirmed");
        assert.ok((await signIn(gateway.url, "admin@example.com", "admin-password-123")).ok, "so does the seeded operator");
      } finally {
        await gateway.admin("POST", "/api/admin/settings", { verifyEmail: null });
      }
    });

    test("a new link on request (same answer for anyone), and a disabled account is told so only after the right password", async () => {
      await gateway.admin("POST", "/api/admin/settings", { verifyEmail: true });
      try {
        const email = randomEmail("resend");
        await callApi(gateway.url, "POST", "/api/user/signup", { body: { email, password: PASSWORD } });
        await mailTo(gateway, email, /Confirm your email/);
        const pending = await callApi(gateway.url, "POST", "/api/user/verify-email/resend", { body: { email } });
        const unknown = await callApi(gateway.url, "POST", "/api/user/verify-email/resend", { body: { email: randomEmail("nobody") } });
        assert.equal(pending.status, 202);
        assert.deepEqual([unknown.status, unknown.body.message], [pending.status, pending.body.message]);
        const mails = await mailTo(gateway, email, /Confirm your email/, 2);
        const newest = verifyLinkIn(mails[0]!.text);
        assert.equal((await callApi(gateway.url, "POST", "/api/user/verify-email", { body: { email, token: newest.token } })).status, 200);

        const disabled = randomEmail("disabled");
        const made = await gateway.admin("POST", "/api/admin/users", { email: disabled, password: PASSWORD });
        await gateway.admin("PATCH", `/api/admin/users/${made.id}`, { status: "disabled" });
        const wrong = await signIn(gateway.url, disabled, "not-the-password-1");
        assert.equal(!wrong.ok && wrong.error, "Invalid email or password");
        const right = await signIn(gateway.url, disabled, PASSWORD);
        assert.match(!right.ok ? right.error : "", /disabled/);
      } finally {
        await gateway.admin("POST", "/api/admin/settings", { verifyEmail: null });
      }
    });
  });
}

describe("with SMTP_URL set, verification is on unless the operator turns it off", () => {
  test("the default follows the mail setting, and the operator's choice wins", async () => {
    const gateway = await startGateway({ env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    const settings = await gateway.admin("GET", "/api/admin/settings");
    assert.deepEqual([settings.verifyEmail, settings.verifyEmailSource, settings.mailConfigured], [true, "mail", true]);
    const off = await gateway.admin("POST", "/api/admin/settings", { verifyEmail: false });
    assert.deepEqual([off.verifyEmail, off.verifyEmailSource], [false, "setting"]);
    const bad = await fetch(`${gateway.url}/api/admin/settings`, {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: JSON.stringify({ verifyEmail: "yes" }),
    });
    assert.equal(bad.status, 400);
  });
});
