// A fake of Google's OAuth 2.0 token endpoint for service accounts, and the service account it trusts.
// The exchange is the one https://developers.google.com/identity/protocols/oauth2/service-account#httprest describes:
// POST grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>, the JWT signed RS256 with the
// account's private key (header kid = private_key_id), claims iss = client_email, scope, aud = the token URI,
// iat and exp at most one hour apart. The answer is {access_token, expires_in, token_type: "Bearer"}; refusals are
// OAuth errors ({error, error_description}) with status 400.
import { generateKeyPairSync } from "node:crypto";
import type http from "node:http";
import { compactVerify, decodeJwt, decodeProtectedHeader, importSPKI, type KeyObject } from "jose";

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** The JSON key file Google issues for a service account (the fields a client reads). */
export type ServiceAccountJson = {
  type: "service_account";
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
};

/** A fresh RSA key pair and the key file that carries its private half; the public half stays with the fake. */
export function makeServiceAccount(options: { projectId: string; tokenUri: string; name?: string }) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const name = options.name ?? "gateway";
  const email = `${name}@${options.projectId}.iam.gserviceaccount.com`;
  const json: ServiceAccountJson = {
    type: "service_account",
    project_id: options.projectId,
    private_key_id: randomHex(40),
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: email,
    client_id: String(100_000_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e15))),
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: options.tokenUri,
    auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
    universe_domain: "googleapis.com",
  };
  return { json, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

function randomHex(length: number): string {
  return Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("");
}

export type IssuedToken = { token: string; clientEmail: string; projectId: string; scopes: string[]; expiresAt: number; assertion: string };

/** The token endpoint's state: which accounts it trusts, what it issued. */
export type TokenIssuer = {
  /** Every token issued, in order (its length is the count a caching test asserts). */
  issued: IssuedToken[];
  /** Seconds an issued token lives (Google: 3599). */
  lifetimeSeconds: number;
  trust: (account: { json: ServiceAccountJson; publicKeyPem: string }) => Promise<void>;
  /** The token a Bearer header carries, if this issuer issued it; `expired` when its time is up. */
  lookup: (bearer: string) => { token: IssuedToken; expired: boolean } | null;
  /** Makes every issued token expire now (to test a client's refresh). */
  expireAll: () => void;
  handle: (tokenUri: string, raw: Buffer, headers: http.IncomingHttpHeaders, response: http.ServerResponse) => Promise<void>;
};

function oauthError(response: http.ServerResponse, error: string, description: string): void {
  response
    .writeHead(400, { "content-type": "application/json; charset=utf-8" })
    .end(JSON.stringify({ error, error_description: description }));
}

const TIMEFRAME =
  "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.";

export function createTokenIssuer(): TokenIssuer {
  const keys = new Map<string, { json: ServiceAccountJson; key: KeyObject | CryptoKey }>();
  const issuer: TokenIssuer = {
    issued: [],
    lifetimeSeconds: 3599,
    trust: async (account) => {
      keys.set(account.json.client_email, { json: account.json, key: await importSPKI(account.publicKeyPem, "RS256") });
    },
    lookup: (bearer) => {
      const token = issuer.issued.find((candidate) => candidate.token === bearer);
      return token ? { token, expired: token.expiresAt <= Date.now() } : null;
    },
    expireAll: () => {
      for (const token of issuer.issued) token.expiresAt = Date.now() - 1;
    },
    handle: async (tokenUri, raw, headers, response) => {
      if (!String(headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded"))
        return oauthError(response, "invalid_request", "Invalid Content-Type header: expected application/x-www-form-urlencoded.");
      const form = new URLSearchParams(raw.toString("utf8"));
      const grant = form.get("grant_type");
      if (grant !== JWT_BEARER_GRANT) return oauthError(response, "unsupported_grant_type", `Invalid grant_type: ${grant ?? ""}`);
      const assertion = form.get("assertion");
      if (!assertion) return oauthError(response, "invalid_request", "Missing required parameter: assertion");
      let header: ReturnType<typeof decodeProtectedHeader>;
      let claims: ReturnType<typeof decodeJwt>;
      try {
        header = decodeProtectedHeader(assertion);
        claims = decodeJwt(assertion);
      } catch {
        return oauthError(response, "invalid_grant", "Invalid JWT: could not be decoded.");
      }
      const account = typeof claims.iss === "string" ? keys.get(claims.iss) : undefined;
      if (!account) return oauthError(response, "invalid_grant", "Invalid grant: account not found");
      if (header.alg !== "RS256") return oauthError(response, "invalid_grant", "Invalid JWT Signature.");
      if (header.kid !== undefined && header.kid !== account.json.private_key_id)
        return oauthError(response, "invalid_grant", "Invalid JWT Signature.");
      try {
        await compactVerify(assertion, account.key, { algorithms: ["RS256"] });
      } catch {
        return oauthError(response, "invalid_grant", "Invalid JWT Signature.");
      }
      if (claims.aud !== tokenUri)
        return oauthError(response, "invalid_grant", `Invalid JWT: Failed audience check. The expected audience is ${tokenUri}.`);
      const now = Math.floor(Date.now() / 1000);
      const { iat, exp } = claims;
      if (typeof iat !== "number" || typeof exp !== "number" || exp <= now || iat > now + 300 || exp - iat > 3600 || exp <= iat)
        return oauthError(response, "invalid_grant", TIMEFRAME);
      const scopes = typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [];
      if (scopes.length === 0) return oauthError(response, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
      const token: IssuedToken = {
        token: `ya29.c.fake${randomHex(48)}`,
        clientEmail: account.json.client_email,
        projectId: account.json.project_id,
        scopes,
        expiresAt: Date.now() + issuer.lifetimeSeconds * 1000,
        assertion,
      };
      issuer.issued.push(token);
      response
        .writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "no-cache, no-store, max-age=0, must-revalidate",
        })
        .end(JSON.stringify({ access_token: token.token, expires_in: issuer.lifetimeSeconds, token_type: "Bearer" }));
    },
  };
  return issuer;
}
