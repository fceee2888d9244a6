// The client side of the service-account exchange, done as a gateway would: sign the JWT assertion with jose and
// post it to the key file's own token_uri (google-auth-library posts to Google's fixed URL whatever the file says),
// then reuse the token until shortly before it expires. `TokenSourceAuthClient` hands such a token to the SDKs that
// want a google-auth-library client (@anthropic-ai/vertex-sdk's authClient, @google/genai's googleAuthOptions).
import { importPKCS8, SignJWT } from "jose";
import { OAuth2Client } from "google-auth-library";
import { CLOUD_PLATFORM_SCOPE, JWT_BEARER_GRANT, type ServiceAccountJson } from "./google-token.ts";

export type AssertionOptions = {
  /** Sign with this PEM instead of the file's key (to prove a bad signature is refused). */
  signingKeyPem?: string;
  audience?: string;
  scope?: string | null;
  lifetimeSeconds?: number;
};

export async function mintAssertion(account: ServiceAccountJson, options: AssertionOptions = {}): Promise<string> {
  const key = await importPKCS8(options.signingKeyPem ?? account.private_key, "RS256");
  const now = Math.floor(Date.now() / 1000);
  const scope = options.scope === undefined ? CLOUD_PLATFORM_SCOPE : options.scope;
  return new SignJWT(scope === null ? {} : { scope })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", kid: account.private_key_id })
    .setIssuer(account.client_email)
    .setAudience(options.audience ?? account.token_uri)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.lifetimeSeconds ?? 3600))
    .sign(key);
}

export async function exchangeAssertion(tokenUri: string, assertion: string): Promise<Response> {
  return fetch(tokenUri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
  });
}

/** Fetches tokens from the account's token_uri and reuses each until `refreshMarginSeconds` before it expires. */
export class ServiceAccountTokenSource {
  private cached: { token: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    readonly account: ServiceAccountJson,
    private readonly refreshMarginSeconds = 300,
  ) {}

  async token(): Promise<string> {
    if (this.cached && this.cached.expiresAt - this.refreshMarginSeconds * 1000 > Date.now()) return this.cached.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = null));
    return this.pending;
  }

  /** Forgets the cached token (as a client does after a 401). */
  invalidate(): void {
    this.cached = null;
  }

  private async fetchToken(): Promise<string> {
    const response = await exchangeAssertion(this.account.token_uri, await mintAssertion(this.account));
    const body = (await response.json()) as { access_token?: string; expires_in?: number; error_description?: string };
    if (!response.ok || !body.access_token) throw new Error(`token endpoint refused: ${response.status} ${body.error_description ?? ""}`);
    this.cached = { token: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 0) * 1000 };
    return body.access_token;
  }
}

/** A google-auth-library client whose Bearer comes from a ServiceAccountTokenSource. */
export class TokenSourceAuthClient extends OAuth2Client {
  constructor(private readonly source: ServiceAccountTokenSource) {
    super();
    this.projectId = source.account.project_id;
  }

  override async getAccessToken() {
    return { token: await this.source.token() };
  }

  override async getRequestHeaders(): Promise<Headers> {
    return new Headers({ authorization: `Bearer ${await this.source.token()}` });
  }
}
