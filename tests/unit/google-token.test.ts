// Google service-account tokens (lib/providers/google-token.ts) against the fake token endpoint
// (tests/fakes/google-token.ts), which verifies the RS256 assertion as Google does and counts the tokens it issues.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, afterEach, before, describe, mock, test } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import {
  CLOUD_PLATFORM_SCOPE,
  forgetGoogleToken,
  googleAccessToken,
  MAX_ACCOUNTS,
  parseServiceAccount,
  type ServiceAccount,
} from "@/lib/providers/google-token";
import { singleton } from "@/lib/platform/singleton";
import { createTokenIssuer, makeServiceAccount, type ServiceAccountJson } from "../fakes/google-token.ts";
import { startVertexFake, type VertexFake } from "../fakes/vertex.ts";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.ts";

let fake: VertexFake;
let accountCount = 0;

before(async () => {
  fake = await startVertexFake();
});
after(() => fake.close());
afterEach(() => {
  fake.tokens.lifetimeSeconds = 3599;
  mock.restoreAll();
});

function parsed(json: ServiceAccountJson): ServiceAccount {
  const result = parseServiceAccount(JSON.stringify(json));
  assert.ok(result.ok, result.ok ? "" : result.message);
  return result.account;
}

/** A new account the fake trusts (each test its own, since tokens are cached per account). */
async function trustedAccount(): Promise<ServiceAccount> {
  const made = makeServiceAccount({ projectId: "gateway-tests-417203", tokenUri: fake.tokenUri, name: `test-${++accountCount}` });
  await fake.tokens.trust(made);
  return parsed(made.json);
}

function tokenRequests(): number {
  return fake.received.filter((request) => request.path === "/token").length;
}

describe("parseServiceAccount", () => {
  test("the key file Google issues is read, with the keys it names its fields by", () => {
    const account = parsed(fake.serviceAccount);
    assert.equal(account.client_email, fake.serviceAccount.client_email);
    assert.equal(account.token_uri, fake.tokenUri);
    assert.equal(account.project_id, "gateway-tests-417203");
    assert.equal(account.private_key_id, fake.serviceAccount.private_key_id);
    assert.equal(account.private_key, fake.serviceAccount.private_key);
  });

  test("what is wrong is said field by field, never quoting the key", () => {
    const file = fake.serviceAccount;
    const message = (text: string) => {
      const result = parseServiceAccount(text);
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.ok(!result.message.includes("PRIVATE KEY-----\nMI"), "the key is never quoted");
      return result.message;
    };
    assert.match(message(JSON.stringify(file).slice(0, 900)), /not JSON/);
    assert.match(message("[1, 2]"), /not a JSON object/);
    assert.match(message(JSON.stringify({ ...file, type: "authorized_user" })), /"type" is "authorized_user", not "service_account"/);
    const { private_key: _key, ...noKey } = file;
    assert.equal(message(JSON.stringify(noKey)), 'The service account key has no "private_key"');
    const { client_email: _email, token_uri: _uri, ...neither } = file;
    assert.equal(message(JSON.stringify(neither)), 'The service account key has no "client_email", "token_uri"');
    assert.match(message(JSON.stringify({ ...file, token_uri: "http://oauth2.example.com/token" })), /must be an https URL/);
    assert.match(message(JSON.stringify({ ...file, token_uri: "not a url" })), /"token_uri" is not a URL/);
    assert.match(message(JSON.stringify({ ...file, client_email: "nobody" })), /not an email address/);
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    assert.match(message(JSON.stringify({ ...file, private_key: ec })), /is a ec key; Google's service account keys are RSA/);
    const pkcs1 = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    assert.match(message(JSON.stringify({ ...file, private_key: pkcs1 })), /not a PKCS#8 private key/);
    const cut = file.private_key.slice(0, 400) + file.private_key.slice(-30);
    assert.match(message(JSON.stringify({ ...file, private_key: cut })), /cannot be read as a private key/);
  });

  test("a key whose line breaks were escaped twice is still read", () => {
    const escaped = JSON.stringify({ ...fake.serviceAccount, private_key: fake.serviceAccount.private_key.replace(/\n/g, "\\n") });
    const result = parseServiceAccount(escaped);
    assert.ok(result.ok);
    assert.equal(result.account.private_key, fake.serviceAccount.private_key);
  });
});

describe("googleAccessToken", () => {
  test("a good assertion gets a token: RS256, kid, iss, scope, aud = token_uri, one hour", async () => {
    const account = await trustedAccount();
    const before = fake.tokens.issued.length;
    const result = await googleAccessToken(account);
    assert.ok(result.ok);
    assert.equal(fake.tokens.issued.length, before + 1);
    const issued = fake.tokens.issued.at(-1)!;
    assert.equal(result.token, issued.token);
    const header = decodeProtectedHeader(issued.assertion);
    assert.equal(header.alg, "RS256");
    assert.equal(header.kid, account.private_key_id);
    const claims = decodeJwt(issued.assertion);
    assert.equal(claims.iss, account.client_email);
    assert.equal(claims.aud, fake.tokenUri);
    assert.equal(claims.scope, CLOUD_PLATFORM_SCOPE);
    assert.equal(claims.exp! - claims.iat!, 3600);
    const request = fake.received.filter((received) => received.path === "/token").at(-1)!;
    assert.equal(request.headers["content-type"], "application/x-www-form-urlencoded");
    const form = new URLSearchParams(request.raw.toString());
    assert.equal(form.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert.equal(form.get("assertion"), issued.assertion);
  });

  test("20 callers at once and 20 more afterwards: one token issued", async () => {
    const account = await trustedAccount();
    const before = fake.tokens.issued.length;
    const first = await Promise.all(Array.from({ length: 20 }, () => googleAccessToken(account)));
    const second = await Promise.all(Array.from({ length: 20 }, () => googleAccessToken(account)));
    const tokens = new Set([...first, ...second].map((result) => (result.ok ? result.token : result.message)));
    assert.equal(tokens.size, 1);
    assert.equal(fake.tokens.issued.length, before + 1);
  });

  test("a token is fetched again 5 minutes before it expires, not earlier", async () => {
    const account = await trustedAccount();
    const before = fake.tokens.issued.length;
    const start = Date.now();
    const first = await googleAccessToken(account);
    assert.ok(first.ok);
    const now = mock.method(Date, "now", () => start + 54 * 60_000);
    assert.deepEqual(await googleAccessToken(account), first, "54 minutes on: the same token");
    assert.equal(fake.tokens.issued.length, before + 1);
    now.mock.mockImplementation(() => start + 55 * 60_000 + 1000);
    const renewed = await googleAccessToken(account);
    assert.ok(renewed.ok);
    assert.notEqual(renewed.token, first.token);
    assert.equal(fake.tokens.issued.length, before + 2);
  });

  test("a token that lives less than the margin is never reused; a forgotten token is fetched again", async () => {
    const account = await trustedAccount();
    fake.tokens.lifetimeSeconds = 120;
    const before = fake.tokens.issued.length;
    await googleAccessToken(account);
    await googleAccessToken(account);
    assert.equal(fake.tokens.issued.length, before + 2);
    fake.tokens.lifetimeSeconds = 3599;
    const kept = await googleAccessToken(account);
    assert.deepEqual(await googleAccessToken(account), kept);
    forgetGoogleToken(account);
    assert.notDeepEqual(await googleAccessToken(account), kept);
    assert.equal(fake.tokens.issued.length, before + 4);
  });

  test("the account's own token_uri is where the assertion goes, and its audience", async () => {
    const issuer = createTokenIssuer();
    const endpoint = await startFakeUpstream();
    try {
      const tokenUri = `${endpoint.url}/oauth2/v4/token?tenant=tests`;
      endpoint.respond = (request, response) => issuer.handle(tokenUri, request.raw, request.headers, response);
      const made = makeServiceAccount({ projectId: "elsewhere-20931", tokenUri, name: "own-endpoint" });
      await issuer.trust(made);
      const result = await googleAccessToken(parsed(made.json));
      assert.ok(result.ok);
      assert.equal(endpoint.received.length, 1);
      assert.equal(endpoint.received[0]!.path, "/oauth2/v4/token?tenant=tests");
      assert.equal(decodeJwt(issuer.issued[0]!.assertion).aud, tokenUri);
    } finally {
      await endpoint.close();
    }
  });

  test("the endpoint refusing the credential switches the channel off; the refusal is not kept", async () => {
    const stranger = makeServiceAccount({ projectId: "gateway-tests-417203", tokenUri: fake.tokenUri, name: "stranger" });
    const account = parsed(stranger.json);
    const requests = tokenRequests();
    const result = await googleAccessToken(account);
    assert.ok(!result.ok);
    assert.equal(result.retryable, true);
    assert.equal(result.status, 502);
    assert.equal(result.message, "The upstream refused this channel's credentials");
    assert.match(result.disable ?? "", /refused the service account stranger@.*400 invalid_grant: Invalid grant: account not found/);
    await googleAccessToken(account);
    assert.equal(tokenRequests(), requests + 2, "a failed fetch is not cached");

    // Another key under the same name and key id: refused by its signature, never given the trusted key's token.
    const trusted = await trustedAccount();
    assert.ok((await googleAccessToken(trusted)).ok);
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const forged = await googleAccessToken({ ...trusted, private_key: otherKey });
    assert.ok(!forged.ok);
    assert.match(forged.disable ?? "", /Invalid JWT Signature/);
  });

  describe("an endpoint of our own", () => {
    let endpoint: FakeUpstream;
    before(async () => {
      endpoint = await startFakeUpstream();
    });
    after(() => endpoint.close());

    const account = (name: string): ServiceAccount =>
      parsed(makeServiceAccount({ projectId: "p-1", tokenUri: `${endpoint.url}/token`, name }).json);

    test("a 401, and an invalid_client, switch the channel off", async () => {
      endpoint.respond = (_request, response) =>
        void response
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_client", error_description: "The OAuth client was not found." }));
      const refused = await googleAccessToken(account("unauthorized"));
      assert.ok(!refused.ok);
      assert.match(refused.disable ?? "", /\(401: The OAuth client was not found\.\)/);
      endpoint.respond = (_request, response) =>
        void response
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_client", error_description: "Unknown client" }));
      const invalid = await googleAccessToken(account("invalid-client"));
      assert.ok(!invalid.ok);
      assert.equal(invalid.retryable, true);
      assert.match(invalid.disable ?? "", /400 invalid_client: Unknown client/);
      endpoint.respond = (_request, response) =>
        void response
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_grant", error_description: "The account associated with this key was deleted" }));
      const deleted = await googleAccessToken(account("deleted"));
      assert.ok(!deleted.ok);
      assert.match(deleted.disable ?? "", /invalid_grant: The account associated with this key was deleted/);
    });

    test("a clock out of Google's window, or a request it calls malformed, switches nothing off", async () => {
      endpoint.respond = (_request, response) =>
        void response.writeHead(400, { "content-type": "application/json" }).end(
          JSON.stringify({
            error: "invalid_grant",
            error_description:
              "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
          }),
        );
      const clock = await googleAccessToken(account("clock"));
      assert.ok(!clock.ok);
      assert.equal(clock.retryable, true);
      assert.equal(clock.disable, undefined);
      assert.match(clock.detail ?? "", /^invalid_grant: Invalid JWT: Token must be a short-lived token/);
      endpoint.respond = (_request, response) =>
        void response
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_scope", error_description: "Invalid OAuth scope" }));
      const scope = await googleAccessToken(account("scope"));
      assert.ok(!scope.ok);
      assert.equal(scope.retryable, true);
      assert.equal(scope.disable, undefined);
    });

    test("a 5xx, or an endpoint that cannot be reached, lets another channel try; the next call tries again", async () => {
      let calls = 0;
      const issuer = createTokenIssuer();
      const made = makeServiceAccount({ projectId: "p-1", tokenUri: `${endpoint.url}/token`, name: "flaky" });
      await issuer.trust(made);
      endpoint.respond = (request, response) => {
        if (++calls === 1) return void response.writeHead(503).end("unavailable");
        return issuer.handle(`${endpoint.url}/token`, request.raw, request.headers, response);
      };
      const failed = await googleAccessToken(parsed(made.json));
      assert.ok(!failed.ok);
      assert.equal(failed.retryable, true);
      assert.equal(failed.disable, undefined);
      assert.equal(failed.cause, "upstream_503");
      const recovered = await googleAccessToken(parsed(made.json));
      assert.ok(recovered.ok, "the failure was not kept");

      const closed = await startFakeUpstream();
      const unreachable = parsed(makeServiceAccount({ projectId: "p-1", tokenUri: `${closed.url}/token`, name: "gone" }).json);
      await closed.close();
      const gone = await googleAccessToken(unreachable);
      assert.ok(!gone.ok);
      assert.equal(gone.retryable, true);
      assert.equal(gone.cause, "connection");
      assert.equal(gone.disable, undefined);
    });

    test("a caller that goes away stops waiting; the others get the token they share", async () => {
      const issuer = createTokenIssuer();
      const made = makeServiceAccount({ projectId: "p-1", tokenUri: `${endpoint.url}/token`, name: "slow" });
      await issuer.trust(made);
      endpoint.respond = async (request, response) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return issuer.handle(`${endpoint.url}/token`, request.raw, request.headers, response);
      };
      const account = parsed(made.json);
      const leaving = new AbortController();
      const first = googleAccessToken(account, { signal: leaving.signal });
      const second = googleAccessToken(account, { signal: new AbortController().signal });
      leaving.abort();
      assert.equal((await first).ok, false);
      assert.equal(((await first) as { cause: string }).cause, "client_gone");
      assert.ok((await second).ok);
      assert.equal(issuer.issued.length, 1);
    });
  });

  test("the cache holds at most MAX_ACCOUNTS accounts", async () => {
    const gone = AbortSignal.abort();
    const base = parsed(fake.serviceAccount);
    for (let index = 0; index < MAX_ACCOUNTS + 50; index++)
      await googleAccessToken({ ...base, client_email: `bound-${index}@p.iam.gserviceaccount.com` }, { signal: gone });
    assert.equal(singleton("providers.google-tokens", () => new Map()).size, MAX_ACCOUNTS);
  });
});
