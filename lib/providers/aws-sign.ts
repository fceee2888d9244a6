// Authentication for AWS Bedrock's runtime: an AWS access key signed with SigV4 (service `bedrock`), or a Bedrock
// API key sent as a Bearer token. tests/fakes/bedrock-auth.ts checks both as Bedrock does, and shows the rules
// followed here: the path is signed exactly as it goes on the wire (the signer escapes each segment once more, as
// SigV4 does for every service but S3), the body's exact bytes are signed, a session credential's token is sent
// and signed in `x-amz-security-token`.
import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { singleton } from "@/lib/platform/singleton";

export type AwsCredential =
  | { kind: "sigv4"; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: "apiKey"; token: string };

/** An access key id: AKIA… (long-term) or ASIA… (temporary), 20 characters today; AWS allows 16 to 128 of [A-Z0-9]. */
const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

/**
 * A channel's key as an AWS credential. The rule: `ACCESS_KEY_ID:SECRET_ACCESS_KEY` or
 * `ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN` (an access key id, then one or two parts without `:` or spaces)
 * is an access key for SigV4; anything else is a Bedrock API key, sent as `Authorization: Bearer` as it is. Neither
 * kind of API key can hold a `:` (long-term keys are `ABSK` and base64, short-term ones `bedrock-api-key-` and
 * base64), nor can a secret key or session token (base64), so the two never mix. Surrounding white space is dropped.
 * `awsCredentialProblem` says whether a key is either (for the channel form).
 */
export function parseAwsCredential(apiKey: string): AwsCredential {
  const text = apiKey.trim();
  const parts = text.split(":");
  if ((parts.length === 2 || parts.length === 3) && ACCESS_KEY_ID.test(parts[0]!) && parts.slice(1).every((part) => /^\S+$/.test(part))) {
    const [accessKeyId, secretAccessKey, sessionToken] = parts as [string, string, string | undefined];
    return sessionToken === undefined
      ? { kind: "sigv4", accessKeyId, secretAccessKey }
      : { kind: "sigv4", accessKeyId, secretAccessKey, sessionToken };
  }
  return { kind: "apiKey", token: text };
}

/** Why a channel's key is neither an AWS access key nor a Bedrock API key, in words; null when it is one. */
export function awsCredentialProblem(apiKey: string): string | null {
  const credential = parseAwsCredential(apiKey);
  if (credential.kind === "sigv4") return null;
  const { token } = credential;
  if (token.includes(":"))
    return "An AWS access key is ACCESS_KEY_ID:SECRET_ACCESS_KEY, with :SESSION_TOKEN for temporary credentials (the id is AKIA… or ASIA…)";
  if (/\s/.test(token)) return "A Bedrock API key has no spaces or line breaks";
  if (!token.startsWith("ABSK") && !token.startsWith("bedrock-api-key-"))
    return "A Bedrock API key starts with ABSK (long-term) or bedrock-api-key- (short-term); an AWS access key is ACCESS_KEY_ID:SECRET_ACCESS_KEY";
  return null;
}

/**
 * The path of a Bedrock runtime operation for a model id, encoded as the AWS SDK encodes a path label
 * (encodeURIComponent, and `!'()*` too): `us.anthropic.claude-sonnet-4-5-20250929-v1:0` becomes `…-v1%3A0`, an
 * inference profile ARN keeps no `/` or `:` raw.
 */
export function bedrockModelPath(
  modelId: string,
  operation: "invoke" | "invoke-with-response-stream" | "converse" | "converse-stream" | "count-tokens",
): string {
  const label = /^[\w.~-]+$/.test(modelId)
    ? modelId
    : encodeURIComponent(modelId).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `/model/${label}/${operation}`;
}

/** How many signers are kept (one per credential and region; a gateway has a handful). */
const MAX_SIGNERS = 256;

function signers(): Map<string, SignatureV4> {
  return singleton("providers.aws-signers", () => new Map<string, SignatureV4>());
}

function signerFor(credential: Extract<AwsCredential, { kind: "sigv4" }>, region: string): SignatureV4 {
  const cache = signers();
  const name = `${region}\n${credential.accessKeyId}\n${credential.secretAccessKey}\n${credential.sessionToken ?? ""}`;
  let signer = cache.get(name);
  if (!signer) {
    while (cache.size >= MAX_SIGNERS) cache.delete(cache.keys().next().value!);
    signer = new SignatureV4({
      service: "bedrock",
      region,
      credentials: {
        accessKeyId: credential.accessKeyId,
        secretAccessKey: credential.secretAccessKey,
        ...(credential.sessionToken !== undefined ? { sessionToken: credential.sessionToken } : {}),
      },
      sha256: Sha256,
    });
    cache.set(name, signer);
  }
  return signer;
}

/**
 * The SHA-256 of the body's bytes, in hex, by node's own crypto: the pure-JS hash the signer uses takes ~14 ms a
 * megabyte here (a 20 MB body: 270-490 ms on the event loop), node's ~0.6 ms. A body in slices (from 256 KB,
 * lib/providers/http.ts jsonBody) is hashed slice by slice, letting the event loop go every 2 ms
 * (docs/decisions/0018-large-bodies-off-the-event-loop.md).
 */
async function payloadHash(body: string | Buffer | Buffer[]): Promise<string> {
  const hash = createHash("sha256");
  if (!Array.isArray(body)) return hash.update(body).digest("hex");
  let since = performance.now();
  for (const slice of body) {
    hash.update(slice);
    if (performance.now() - since > 2) {
      await nextTurn();
      since = performance.now();
    }
  }
  return hash.digest("hex");
}

/**
 * The headers to send a Bedrock runtime request with: the caller's (names lower-cased) and its authentication.
 * SigV4 signs `host` (from the URL: undici sends that value), `x-amz-date`, the body's hash (sent in
 * `x-amz-content-sha256`, as the AWS SDK sends it), every header given, and `x-amz-security-token` for a session
 * credential. `url` must be the URL the request is sent to, path encoded as it goes on the wire (`bedrockModelPath`);
 * `body` the exact bytes sent (the slices of a body serialised in slices, lib/providers/http.ts jsonBody, too). One
 * signer is kept per credential and region. An API key gets `authorization: Bearer <key>`.
 */
export async function signBedrockRequest(request: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | Buffer[];
  credential: AwsCredential;
  region: string;
}): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  if (request.credential.kind === "apiKey") {
    headers.authorization = `Bearer ${request.credential.token}`;
    return headers;
  }
  const url = new URL(request.url);
  headers.host = url.host;
  headers["x-amz-content-sha256"] = await payloadHash(request.body);
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0]! : values;
  }
  const signed = await signerFor(request.credential, request.region).sign({
    method: request.method.toUpperCase(),
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers,
    // Not hashed again: the signer takes the hash from x-amz-content-sha256.
    body: undefined,
  });
  return signed.headers as Record<string, string>;
}
