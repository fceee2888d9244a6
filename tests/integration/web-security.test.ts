// The portal's web security over HTTP (SECURITY.md): writes with a session cookie only from the portal's own origin
// (scheme, host and port) and as JSON; a cookie or path parameter that does not decode is not a 500; a body nested
// thousands of levels deep is a 400 in the endpoint's dialect; the page after sign-in stays on this site (the check
// itself: tests/unit/callback.test.ts); the portal's pages and next-auth's own refuse framing. Backup codes from
// before they were keyed with the secret: tests/integration/backup-code-migration.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";

let gateway: Gateway;
let adminCookie: string;
let key: string;

/** A second gateway whose APP_URL is https, started once for the tests that need it. */
let secure: Promise<Gateway> | undefined;
const secureGateway = () => (secure ??= startGateway({ portal: true, env: { APP_URL: "https://gateway.example" } }));

before(async () => {
  gateway = await startGateway({ portal: true });
  const signedIn = await signIn(gateway.url, "admin@example.com", "admin-password-123");
  assert.ok(signedIn.ok);
  adminCookie = signedIn.cookie;
  ({ key } = await createUserWithKey(gateway));
});
after(() => stopAllGateways());

async function codes(): Promise<number> {
  return (await gateway.admin("GET", "/api/admin/redeem-codes")).data.length;
}

describe("cross-site writes", () => {
  const body = JSON.stringify({ quota: 1_000_000_000, count: 5 });
  const own = () => new URL(gateway.url).host;

  test("a text/plain no-cors POST from another origin with the admin's cookie creates nothing", async () => {
    const before = await codes();
    for (const origin of ["http://evil.example", `http://127.0.0.1:${Number(new URL(gateway.url).port) + 1}`, "null"]) {
      const response = await fetch(`${gateway.url}/api/admin/redeem-codes`, {
        method: "POST",
        headers: { cookie: adminCookie, origin, "content-type": "text/plain", "sec-fetch-site": "same-site" },
        body,
      });
      assert.equal(response.status, 403, origin);
      assert.match((await response.json()).error.message, /Cross-site request refused/);
    }
    const siteOnly = await fetch(`${gateway.url}/api/admin/users`, {
      method: "POST",
      headers: { cookie: adminCookie, "sec-fetch-site": "same-site", "content-type": "application/json" },
      body: JSON.stringify({ email: "evil@example.com", password: "a-long-password-1" }),
    });
    assert.equal(siteOnly.status, 403, "Sec-Fetch-Site: same-site without an Origin is refused too");
    const userWrite = await fetch(`${gateway.url}/api/user/keys`, {
      method: "POST",
      headers: { cookie: adminCookie, origin: "http://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    assert.equal(userWrite.status, 403, "the account API refuses the same way");
    assert.equal(await codes(), before, "nothing was created");
  });

  test("from the portal's own origin a cookie write must be JSON (415 otherwise); as JSON it works; the master key is not a cookie", async () => {
    const before = await codes();
    const plain = await fetch(`${gateway.url}/api/admin/redeem-codes`, {
      method: "POST",
      headers: { cookie: adminCookie, origin: `http://${own()}`, "content-type": "text/plain" },
      body,
    });
    assert.equal(plain.status, 415);
    assert.match((await plain.json()).error.message, /Content-Type: application\/json/);
    const form = await fetch(`${gateway.url}/api/admin/redeem-codes`, {
      method: "POST",
      headers: { cookie: adminCookie, "content-type": "application/x-www-form-urlencoded" },
      body: "quota=1&count=1",
    });
    assert.equal(form.status, 415);
    const json = await fetch(`${gateway.url}/api/admin/redeem-codes`, {
      method: "POST",
      headers: { cookie: adminCookie, origin: `http://${own()}`, "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body: JSON.stringify({ quota: 1_000, count: 1 }),
    });
    assert.equal(json.status, 201);
    assert.equal(await codes(), before + 1);
    const reads = await fetch(`${gateway.url}/api/admin/users`, { headers: { cookie: adminCookie, origin: "http://evil.example" } });
    assert.equal(reads.status, 200, "reads are not writes");
  });

  test("with APP_URL https://gateway.example, an Origin of another scheme or port is another site: refused; the exact origin passes", async () => {
    const site = await secureGateway();
    const signedIn = await signIn(site.url, "admin@example.com", "admin-password-123");
    assert.ok(signedIn.ok);
    const write = (origin: string) =>
      fetch(`${site.url}/api/admin/redeem-codes`, {
        method: "POST",
        headers: { cookie: signedIn.cookie, origin, "content-type": "application/json" },
        body: JSON.stringify({ quota: 1_000, count: 1 }),
      });
    const before = (await site.admin("GET", "/api/admin/redeem-codes")).data.length;
    for (const origin of [
      "http://gateway.example",
      "https://gateway.example:8443",
      "http://gateway.example:443",
      "wss://gateway.example",
    ]) {
      const response = await write(origin);
      assert.equal(response.status, 403, origin);
      assert.match((await response.json()).error.message, /Cross-site request refused/);
    }
    assert.equal((await site.admin("GET", "/api/admin/redeem-codes")).data.length, before, "nothing was created");
    assert.equal((await write("https://gateway.example")).status, 201, "the portal's own origin");
  });

  test("/v1 is not a cookie route: no 415 for its bodies", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain", origin: "http://evil.example" },
      body: JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 200);
    await response.text();
  });
});

describe("the page after sign-in, over HTTP", () => {
  // The reproduced URLs: each path normalizes to "//evil.example/phish", a host to the browser.
  const tricks = ["%2F.%2F%2Fevil.example%2Fphish", "%2F%252e%2F%2Fevil.example%2Fphish", "%2Fx%2F..%2F%2Fevil.example%2Fphish"];

  test("signed in, /sign-in?callbackUrl=<a dot-segment trick> redirects to a page of this site", async () => {
    for (const trick of tricks) {
      const response = await fetch(`${gateway.url}/sign-in?callbackUrl=${trick}`, { headers: { cookie: adminCookie }, redirect: "manual" });
      assert.ok(response.status >= 300 && response.status < 400, `${trick}: ${response.status}`);
      const location = response.headers.get("location") ?? "";
      assert.equal(new URL(location, gateway.url).origin, new URL(gateway.url).origin, `${trick} -> ${location}`);
      assert.equal(new URL(location, gateway.url).pathname, "/dashboard", `${trick} -> ${location}`);
    }
    const kept = await fetch(`${gateway.url}/sign-in?callbackUrl=%2Fkeys%3Ftab%3Dnew`, {
      headers: { cookie: adminCookie },
      redirect: "manual",
    });
    assert.equal(new URL(kept.headers.get("location") ?? "", gateway.url).pathname, "/keys", "a page of the site is kept");
  });

  test("next-auth's own redirects (a sign-out form's callbackUrl) are normalized the same way: no path that names a host", async () => {
    const fresh = await signIn(gateway.url, "admin@example.com", "admin-password-123");
    assert.ok(fresh.ok);
    const csrf = await fetch(`${gateway.url}/api/auth/csrf`, { headers: { cookie: fresh.cookie } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const response = await fetch(`${gateway.url}/api/auth/signout`, {
      method: "POST",
      headers: { cookie: [fresh.cookie, csrfCookie].filter(Boolean).join("; "), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, callbackUrl: decodeURIComponent(tricks[0]!) }),
      redirect: "manual",
    });
    assert.equal(response.status, 302);
    const location = response.headers.get("location") ?? "";
    const landing = new URL(location, gateway.url);
    // Before, next-auth answered the callbackUrl appended to its base URL: "..././/evil.example/phish", whose path,
    // once normalized, is a network-path reference that names a host wherever it is handed on as a path.
    assert.ok(!landing.pathname.startsWith("//"), `${location}: its path would be read as a host`);
    assert.equal(new URL(`${landing.pathname}${landing.search}`, "http://elsewhere.invalid").host, "elsewhere.invalid", location);
  });
});

describe("one bad cookie, one bad path", () => {
  test("a cookie that does not decode breaks nothing; a path parameter that does not decode is a 404", async () => {
    const self = await fetch(`${gateway.url}/api/user/self`, { headers: { cookie: `other=100%; ${adminCookie}` } });
    assert.equal(self.status, 200, "the session still reads");
    const none = await fetch(`${gateway.url}/api/user/self`, { headers: { cookie: "other=100%" } });
    assert.equal(none.status, 401);
    const page = await fetch(`${gateway.url}/dashboard`, { headers: { cookie: "other=100%" }, redirect: "manual" });
    assert.ok(page.status < 500, `a portal page: ${page.status}`);
    const unauthenticated = await fetch(`${gateway.url}/api/admin/keys/%ZZ`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(unauthenticated.status, 401);
    const admin = await fetch(`${gateway.url}/api/admin/keys/%ZZ`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "disabled" }),
    });
    assert.equal(admin.status, 404);
    const model = await fetch(`${gateway.url}/v1/models/%ZZ`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(model.status, 404);
  });
});

describe("deep JSON", () => {
  const deep = (levels: number) => `${'{"p":'.repeat(levels)}1${"}".repeat(levels)}`;
  test("5,000 levels in a tool's parameters: 400 naming where, in each dialect; nothing charged", async () => {
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: `{"model":"std-5.5","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep(5_000)}}}]}`,
    });
    assert.equal(chat.status, 400);
    const error = (await chat.json()).error;
    assert.match(error.message, /nested more than 64 levels deep \(at 'tools\[0\]\.function\.parameters\.p\.p/);
    assert.equal(error.type, "invalid_request_error");
    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: `{"model":"msg-sonnet-4-6","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${deep(5_000)}}]}`,
    });
    assert.equal(messages.status, 400);
    const body = await messages.json();
    assert.equal(body.type, "error");
    assert.match(body.error.message, /nested more than 64 levels deep/);
    const sixty = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: `{"model":"std-5.5","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep(50)}}}]}`,
    });
    assert.equal(sixty.status, 200, "50 levels are fine");
    await sixty.text();
  });
});

describe("framing and page headers", () => {
  test("every page view gets a fresh script nonce: the policy allows only scripts that carry it, and every script does", async () => {
    const nonces = new Set<string>();
    for (const path of ["/", "/sign-in", "/sign-up"]) {
      const page = await fetch(`${gateway.url}${path}`);
      assert.equal(page.status, 200, path);
      const policy = page.headers.get("content-security-policy") ?? "";
      const nonce = /script-src 'self' 'nonce-([^']+)' 'strict-dynamic'/.exec(policy)?.[1];
      assert.ok(nonce, `${path}: ${policy}`);
      assert.doesNotMatch(policy, /script-src[^;]*'unsafe-inline'/);
      assert.match(policy, /frame-ancestors 'none'/);
      assert.match(policy, /img-src 'self' data: blob:/);
      assert.match(policy, /media-src 'self' blob:/);
      nonces.add(nonce);
      const html = await page.text();
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      assert.ok(scripts.length > 1, `${path} has scripts`);
      for (const tag of scripts) assert.ok(tag.includes(`nonce="${nonce}"`), `${path}: ${tag} carries the nonce`);
    }
    assert.equal(nonces.size, 3, "a new nonce per view");
  });

  test("portal pages refuse framing and carry the usual headers; /v1 answers do not; HSTS when APP_URL is https", async () => {
    const page = await fetch(`${gateway.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    assert.equal(page.headers.get("referrer-policy"), "strict-origin-when-cross-origin");
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    assert.equal(page.headers.get("strict-transport-security"), null, "not over plain http");
    const api = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(api.headers.get("x-frame-options"), null);
    assert.equal(api.headers.get("content-security-policy"), null, "no page policy on /v1");
    const securePage = await fetch(`${(await secureGateway()).url}/`);
    assert.match(securePage.headers.get("strict-transport-security") ?? "", /max-age=\d+/);
  });

  test("next-auth's own pages and answers (/api/auth/*) refuse framing: a policy of their own, no scripts", async () => {
    for (const path of ["/api/auth/signout", "/api/auth/error", "/api/auth/error?error=Verification", "/api/auth/verify-request"]) {
      const page = await fetch(`${gateway.url}${path}`, { headers: { cookie: adminCookie } });
      assert.match(page.headers.get("content-type") ?? "", /text\/html/, path);
      const policy = page.headers.get("content-security-policy") ?? "";
      assert.match(policy, /frame-ancestors 'none'/, `${path}: ${policy}`);
      assert.match(policy, /default-src 'none'/, path);
      assert.match(policy, /form-action 'self'/, path);
      assert.equal(page.headers.get("x-frame-options"), "DENY", path);
      assert.equal(page.headers.get("x-content-type-options"), "nosniff", path);
      assert.doesNotMatch(await page.text(), /<script\b/i, `${path}: the policy allows no script, and the page has none`);
    }
    // Its redirects and JSON carry the same headers (the sign-in page of its own redirects to the portal's).
    const signin = await fetch(`${gateway.url}/api/auth/signin`, { redirect: "manual" });
    assert.ok(signin.status >= 300 && signin.status < 400);
    assert.equal(signin.headers.get("x-frame-options"), "DENY");
    const session = await fetch(`${gateway.url}/api/auth/session`, { headers: { cookie: adminCookie } });
    assert.equal(session.status, 200);
    assert.match(session.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.ok(((await session.json()) as { user?: unknown }).user, "the session still reads");
  });
});
