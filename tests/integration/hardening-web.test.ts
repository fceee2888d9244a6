// Hardening items 1, 6 and 7 (SECURITY.md): writes with a session cookie only from the portal's own origin and as
// JSON; a cookie or path parameter that does not decode is not a 500; a body nested thousands of levels deep is a
// 400 in the endpoint's dialect. Items 5 and 12 have their own files (tests/unit/callback.test.ts,
// tests/integration/backup-code-migration.test.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";

let gateway: Gateway;
let adminCookie: string;
let key: string;

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

describe("hardening item 1: cross-site writes", () => {
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

describe("hardening item 6: one bad cookie, one bad path", () => {
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

describe("hardening item 7: deep JSON", () => {
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

describe("hardening item 11: framing", () => {
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
    const secure = await startGateway({ portal: true, env: { APP_URL: "https://gateway.example" } });
    const securePage = await fetch(`${secure.url}/`);
    assert.match(securePage.headers.get("strict-transport-security") ?? "", /max-age=\d+/);
  });
});
