// Access tokens for a Google service account (Vertex AI), fetched from the key file's own `token_uri`.
//
// The exchange (tests/fakes/google-token.ts describes the endpoint): a JWT assertion signed RS256 with the account's
// private key (header kid = private_key_id; iss = client_email, scope cloud-platform, aud = token_uri, one hour
// between iat and exp), posted as `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`. The answer
// is {access_token, expires_in}. google-auth-library posts to Google's fixed token URL whatever the file says, so the
// assertion is signed here with jose and posted where the file says (tests/fakes/google-token-client.ts does the
// same for the fakes' own tests).
//
// Each token is kept until 5 minutes before it expires; callers that want one at the same time share one fetch; a
// failed fetch is not kept; the imported signing key is kept with the token (importing a PKCS#8 key costs far more
// than signing with it). The cache holds at most MAX_ACCOUNTS accounts.
import { createPrivateKey } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";
import { singleton } from "@/lib/platform/singleton";
import { readUpstreamJson, upstreamFetch } from "./http";
import type { UpstreamFailure } from "./types";

/** The fields of a Google service-account key file the gateway uses, named as the file names them. */
export type ServiceAccount = {
  /** The file's project: Vertex's URL names a project (the channel may name another). */
  project_id?: string;
  /** Sent as the assertion's `kid`, so the endpoint picks the right public key. */
  private_key_id?: string;
  /** PKCS#8 PEM of an RSA key (`-----BEGIN PRIVATE KEY-----`). */
  private_key: string;
  client_email: string;
  token_uri: string;
};

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** An assertion's lifetime: Google refuses more than an hour. */
const ASSERTION_SECONDS = 3600;
/** A token is fetched again this long before it expires. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** How many accounts' tokens and keys are kept (one per Vertex channel; a few hundred is far more than a gateway has). */
export const MAX_ACCOUNTS = 256;
/** The token endpoint's deadline for its answer. */
const TOKEN_TIMEOUT_MS = 30_000;

const REQUIRED = ["private_key", "client_email", "token_uri"] as const;

/**
 * A service-account key file (the JSON Google issues) checked field by field, with what is wrong said in words an
 * operator can act on. The private key must import as an RSA key in PKCS#8 form, as Google issues it. `token_uri`
 * must be https, or http to this machine only (a test's fake): the signed assertion is as good as a credential for
 * an hour, so it never crosses a network in clear.
 */
export function parseServiceAccount(text: string): { ok: true; account: ServiceAccount } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text, which holds the private key: never repeat it.
    return { ok: false, message: "The service account key is not JSON: paste the whole key file Google gave you" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, message: "The service account key is not a JSON object: paste the whole key file Google gave you" };
  const file = value as Record<string, unknown>;
  if (file.type !== "service_account") {
    const type = typeof file.type === "string" && file.type.length <= 40 ? `"${file.type}"` : "missing";
    return {
      ok: false,
      message: `This is not a service account key: its "type" is ${type}, not "service_account" (a key file is made under IAM, Service accounts, Keys)`,
    };
  }
  const missing = REQUIRED.filter((name) => typeof file[name] !== "string" || (file[name] as string).trim() === "");
  if (missing.length) return { ok: false, message: `The service account key has no ${missing.map((name) => `"${name}"`).join(", ")}` };
  for (const name of ["project_id", "private_key_id"] as const) {
    if (file[name] !== undefined && typeof file[name] !== "string") return { ok: false, message: `"${name}" must be text` };
  }
  const clientEmail = (file.client_email as string).trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(clientEmail)) return { ok: false, message: `"client_email" is not an email address` };
  const tokenProblem = tokenUriProblem((file.token_uri as string).trim());
  if (tokenProblem) return { ok: false, message: tokenProblem };
  // A key pasted with its line breaks escaped twice ("\\n" in the file) is still the key.
  const privateKey = (file.private_key as string).replace(/\\n/g, "\n");
  const keyProblem = privateKeyProblem(privateKey);
  if (keyProblem) return { ok: false, message: keyProblem };
  const account: ServiceAccount = { private_key: privateKey, client_email: clientEmail, token_uri: (file.token_uri as string).trim() };
  if (typeof file.project_id === "string" && file.project_id) account.project_id = file.project_id;
  if (typeof file.private_key_id === "string" && file.private_key_id) account.private_key_id = file.private_key_id;
  return { ok: true, account };
}

const parsedAccounts = new Map<string, ReturnType<typeof parseServiceAccount>>();

/**
 * parseServiceAccount for a call: a channel's key file is read once (its JSON and the key's import cost up to a
 * millisecond), not on every request. Bounded: the oldest reading goes first past MAX_ACCOUNTS.
 */
export function serviceAccountOf(text: string): ReturnType<typeof parseServiceAccount> {
  let parsed = parsedAccounts.get(text);
  if (!parsed) {
    parsed = parseServiceAccount(text);
    if (parsedAccounts.size >= MAX_ACCOUNTS) parsedAccounts.delete(parsedAccounts.keys().next().value!);
    parsedAccounts.set(text, parsed);
  }
  return parsed;
}

function tokenUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"token_uri" is not a URL`;
  }
  if (url.protocol === "https:") return null;
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol === "http:" && loopback) return null;
  return `"token_uri" must be an https URL (it is ${url.protocol.replace(/:$/, "")})`;
}

function privateKeyProblem(pem: string): string | null {
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem))
    return `"private_key" is not a PKCS#8 private key: it should start with -----BEGIN PRIVATE KEY----- as in the key file Google issues`;
  try {
    const key = createPrivateKey({ key: pem, format: "pem" });
    if (key.asymmetricKeyType !== "rsa")
      return `"private_key" is a ${key.asymmetricKeyType ?? "non-RSA"} key; Google's service account keys are RSA`;
  } catch {
    return `"private_key" cannot be read as a private key (was it cut short, or its line breaks lost?)`;
  }
  return null;
}

type TokenResult = { ok: true; token: string } | UpstreamFailure;

type Entry = {
  /** The PEM the entry was made for: an account with the same name, key id and token URI but another key gets a
   *  fresh entry, never this one's token. */
  pem: string;
  key: Promise<CryptoKey> | null;
  token: { ok: true; token: string } | null;
  /** When the token is fetched again (5 minutes before it expires). */
  refreshAt: number;
  pending: Promise<TokenResult> | null;
};

function accounts(): Map<string, Entry> {
  return singleton("providers.google-tokens", () => new Map<string, Entry>());
}

function entryFor(account: ServiceAccount): Entry {
  const cache = accounts();
  const name = `${account.client_email}\n${account.private_key_id ?? ""}\n${account.token_uri}`;
  let entry = cache.get(name);
  if (entry && entry.pem !== account.private_key) {
    cache.delete(name);
    entry = undefined;
  }
  if (!entry) {
    // The oldest account goes first; one whose fetch is under way keeps it (its callers hold the promise).
    while (cache.size >= MAX_ACCOUNTS) cache.delete(cache.keys().next().value!);
    entry = { pem: account.private_key, key: null, token: null, refreshAt: 0, pending: null };
    cache.set(name, entry);
  }
  return entry;
}

const CLIENT_GONE: UpstreamFailure = {
  ok: false,
  retryable: false,
  status: 499,
  message: "The client closed the connection",
  cause: "client_gone",
};

/**
 * A Bearer token for the account, from the cache while it has more than 5 minutes left, else from the account's
 * token_uri (one fetch however many callers ask at once). `signal` stops this caller's wait only: the fetch others
 * share goes on. Failures are the gateway's usual ones: the endpoint refusing the credential (invalid_grant,
 * invalid_client, unauthorized_client, 401, 403, 404) switches the channel off and lets another one try; an endpoint
 * that cannot be reached or fails (5xx, 429, timeout) lets another channel try and switches nothing off.
 */
export async function googleAccessToken(account: ServiceAccount, options: { signal?: AbortSignal } = {}): Promise<TokenResult> {
  const entry = entryFor(account);
  if (entry.token && Date.now() < entry.refreshAt) return entry.token;
  if (options.signal?.aborted) return CLIENT_GONE;
  if (!entry.pending) {
    const pending = fetchToken(account, entry).finally(() => {
      if (entry.pending === pending) entry.pending = null;
    });
    entry.pending = pending;
  }
  return options.signal ? untilAborted(entry.pending, options.signal) : entry.pending;
}

/** Forgets the account's token (e.g. after Vertex refused it as expired or revoked): the next call fetches one. */
export function forgetGoogleToken(account: ServiceAccount): void {
  const entry = accounts().get(`${account.client_email}\n${account.private_key_id ?? ""}\n${account.token_uri}`);
  if (entry) {
    entry.token = null;
    entry.refreshAt = 0;
  }
}

function untilAborted(shared: Promise<TokenResult>, signal: AbortSignal): Promise<TokenResult> {
  return new Promise((resolve) => {
    const onAbort = () => resolve(CLIENT_GONE);
    signal.addEventListener("abort", onAbort, { once: true });
    shared.then((result) => {
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    });
  });
}

async function fetchToken(account: ServiceAccount, entry: Entry): Promise<TokenResult> {
  let assertion: string;
  try {
    entry.key ??= importPKCS8(account.private_key, "RS256");
    assertion = await signAssertion(account, await entry.key);
  } catch (error) {
    entry.key = null;
    const reason = `The service account's private_key cannot sign (${(error as Error).message})`;
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "This channel's credentials cannot be used",
      cause: "credential",
      disable: reason,
    };
  }
  const requested = Date.now();
  // Its own signal: the callers' aborts end their waits, not the fetch they share.
  const fetched = await upstreamFetch(
    account.token_uri,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: `grant_type=${encodeURIComponent(JWT_BEARER_GRANT)}&assertion=${assertion}`,
    },
    { signal: new AbortController().signal, timeoutMs: TOKEN_TIMEOUT_MS, idleTimeoutMs: TOKEN_TIMEOUT_MS },
  );
  if (!fetched.ok) return tokenFailure(fetched, account);
  const json = await readUpstreamJson(fetched.response, fetched.abort.signal);
  if (!json.ok) return json;
  const { access_token: token, expires_in: expiresIn } = json.value;
  if (typeof token !== "string" || token === "")
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "The token endpoint answered without an access token",
      cause: "upstream_malformed",
    };
  const result = { ok: true as const, token };
  // Counted from when the request left, so the margin is never shorter than 5 minutes. A token without a lifetime
  // is used once.
  const lifetime = typeof expiresIn === "number" ? expiresIn : typeof expiresIn === "string" ? Number(expiresIn) : NaN;
  if (Number.isFinite(lifetime) && lifetime * 1000 > REFRESH_MARGIN_MS) {
    entry.token = result;
    entry.refreshAt = requested + lifetime * 1000 - REFRESH_MARGIN_MS;
  }
  return result;
}

function signAssertion(account: ServiceAccount, key: CryptoKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header: { alg: "RS256"; typ: "JWT"; kid?: string } = { alg: "RS256", typ: "JWT" };
  if (account.private_key_id) header.kid = account.private_key_id;
  return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader(header)
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(now)
    .setExpirationTime(now + ASSERTION_SECONDS)
    .sign(key);
}

/** OAuth 2 error codes (RFC 6749 5.2) that mean this credential is refused, not that the request was malformed. */
const REFUSED = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);

/** A refusal of the token endpoint, in the gateway's terms (lib/providers/http.ts classifyStatus read its body). */
function tokenFailure(failure: UpstreamFailure, account: ServiceAccount): UpstreamFailure {
  const status = /^upstream_(\d{3})$/.exec(failure.cause)?.[1];
  if (!status || Number(status) >= 500 || status === "429") return failure;
  const code = failure.vendor?.code;
  const words = failure.detail ?? failure.message;
  // Google says invalid_grant also when the assertion's iat/exp are out of its window: this machine's clock is
  // off, which no channel can mend; switching channels off for it would switch every Vertex channel off.
  const clock = code === "invalid_grant" && /\b(?:timeframe|iat|exp)\b/i.test(words);
  const refused = !clock && (["401", "403", "404"].includes(status) || (code !== undefined && REFUSED.has(code)));
  return {
    ok: false,
    retryable: true,
    status: 502,
    message: refused ? "The upstream refused this channel's credentials" : "The upstream's token endpoint refused to issue a token",
    cause: failure.cause,
    detail: `${code ? `${code}: ` : ""}${words}`,
    ...(refused
      ? {
          disable: `The token endpoint ${account.token_uri} refused the service account ${account.client_email} (${status}${code ? ` ${code}` : ""}: ${words})`,
        }
      : {}),
  };
}
