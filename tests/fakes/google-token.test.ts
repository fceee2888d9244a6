// Proves the Vertex fake's token endpoint (tests/fakes/google-token.ts) checks a service-account assertion as Google
// does: an assertion minted with jose the way a gateway would is exchanged; a bad signature, a wrong audience, a
// missing scope, a too-long lifetime, an unknown account and a wrong grant type are refused with OAuth errors.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { decodeJwt } from "jose";
import { CLOUD_PLATFORM_SCOPE, makeServiceAccount } from "./google-token.ts";
import { exchangeAssertion, mintAssertion, ServiceAccountTokenSource } from "./google-token-client.ts";
import { startVertexFake, type VertexFake } from "./vertex.ts";

async function exchange(fake: VertexFake, assertion: string) {
  const response = await exchangeAssertion(fake.tokenUri, assertion);
  return { status: response.status, body: (await response.json()) as any };
}

describe("Vertex fake's token endpoint", () => {
  let fake: VertexFake;
  before(async () => {
    fake = await startVertexFake();
  });
  after(() => fake.close());

  test("the service account names the fake's token endpoint and carries a PKCS#8 key", () => {
    const account = fake.serviceAccount;
    assert.equal(account.type, "service_account");
    assert.equal(account.token_uri, `${fake.url}/token`);
    assert.match(account.private_key, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(account.client_email, /@gateway-tests-417203\.iam\.gserviceaccount\.com$/);
    assert.ok(JSON.stringify(account).length > 2000, "a real key file is over 2,000 characters");
  });

  test("an RS256 assertion minted with jose is exchanged for a Bearer token", async () => {
    const before = fake.tokens.issued.length;
    const assertion = await mintAssertion(fake.serviceAccount);
    const { status, body } = await exchange(fake, assertion);
    assert.equal(status, 200);
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.expires_in, 3599);
    assert.match(body.access_token, /^ya29\./);
    assert.equal(fake.tokens.issued.length, before + 1);
    const issued = fake.tokens.issued.at(-1)!;
    assert.equal(issued.token, body.access_token);
    assert.equal(issued.clientEmail, fake.serviceAccount.client_email);
    assert.deepEqual(issued.scopes, [CLOUD_PLATFORM_SCOPE]);
    const claims = decodeJwt(issued.assertion);
    assert.equal(claims.aud, fake.tokenUri);
    const seen = fake.received.at(-1)!;
    assert.equal(seen.path, "/token");
    assert.equal(seen.headers["content-type"], "application/x-www-form-urlencoded");
  });

  test("an assertion signed with another key is refused: invalid_grant, Invalid JWT Signature", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const before = fake.tokens.issued.length;
    const { status, body } = await exchange(fake, await mintAssertion(fake.serviceAccount, { signingKeyPem: other }));
    assert.equal(status, 400);
    assert.deepEqual(body, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    assert.equal(fake.tokens.issued.length, before);
  });

  test("a tampered payload fails the signature check", async () => {
    const [header, , signature] = (await mintAssertion(fake.serviceAccount)).split(".");
    const claims = { ...decodeJwt(await mintAssertion(fake.serviceAccount)), scope: "https://www.googleapis.com/auth/admin" };
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    const { status, body } = await exchange(fake, forged);
    assert.equal(status, 400);
    assert.equal(body.error_description, "Invalid JWT Signature.");
  });

  test("audience, scope and lifetime are checked as Google does", async () => {
    const audience = await exchange(fake, await mintAssertion(fake.serviceAccount, { audience: "https://oauth2.googleapis.com/token" }));
    assert.equal(audience.status, 400);
    assert.equal(audience.body.error, "invalid_grant");
    assert.match(audience.body.error_description, /Failed audience check/);

    const scope = await exchange(fake, await mintAssertion(fake.serviceAccount, { scope: null }));
    assert.equal(scope.status, 400);
    assert.equal(scope.body.error, "invalid_scope");

    const long = await exchange(fake, await mintAssertion(fake.serviceAccount, { lifetimeSeconds: 7200 }));
    assert.equal(long.status, 400);
    assert.match(long.body.error_description, /short-lived token \(60 minutes\)/);
  });

  test("an account the endpoint does not know, and a wrong grant type, are refused", async () => {
    const stranger = makeServiceAccount({ projectId: "elsewhere-20931", tokenUri: fake.tokenUri, name: "stranger" });
    const unknown = await exchange(fake, await mintAssertion(stranger.json));
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, { error: "invalid_grant", error_description: "Invalid grant: account not found" });

    const response = await fetch(fake.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", assertion: await mintAssertion(fake.serviceAccount) }).toString(),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as any).error, "unsupported_grant_type");
  });

  test("a caching token source asks once, and again only after invalidation", async () => {
    const source = new ServiceAccountTokenSource(fake.serviceAccount);
    const before = fake.tokens.issued.length;
    const [first, second] = await Promise.all([source.token(), source.token()]);
    const third = await source.token();
    assert.equal(first, second);
    assert.equal(first, third);
    assert.equal(fake.tokens.issued.length, before + 1);
    source.invalidate();
    assert.notEqual(await source.token(), first);
    assert.equal(fake.tokens.issued.length, before + 2);
  });

  test("a token within the refresh margin of its expiry is replaced", async () => {
    fake.tokens.lifetimeSeconds = 120;
    try {
      const source = new ServiceAccountTokenSource(fake.serviceAccount, 300);
      const before = fake.tokens.issued.length;
      await source.token();
      await source.token();
      assert.equal(fake.tokens.issued.length, before + 2, "a token that lives less than the margin is never reused");
    } finally {
      fake.tokens.lifetimeSeconds = 3599;
    }
  });
});
