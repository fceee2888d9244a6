// Bedrock's two ways in, checked as Bedrock checks them: a SigV4 signature (service `bedrock`, the fake's region),
// re-computed with @smithy/signature-v4 over the exact request received and compared with the one sent; or a
// Bedrock API key as `Authorization: Bearer <key>`.
// SigV4: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html (a signature
// is valid for 15 minutes around `x-amz-date`; a session credential's token goes in `x-amz-security-token`).
// API keys: https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html
import { createHash, timingSafeEqual } from "node:crypto";
import { Sha256 } from "@aws-crypto/sha256-js";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import type { BedrockErrorType } from "./bedrock-wire.ts";

export type BedrockCredentials = {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests must carry it in a signed `x-amz-security-token` (temporary credentials). */
  sessionToken?: string;
  /** A Bedrock API key accepted as `Authorization: Bearer <key>`. */
  apiKey?: string;
};

export type AuthResult =
  | { ok: true; method: "sigv4" | "bearer"; signedHeaders?: string[]; accessKeyId?: string }
  | { ok: false; type: BedrockErrorType; message: string };

export type ReceivedForAuth = {
  method: string;
  /** The path exactly as it arrived (percent-encoding untouched), without the query. */
  rawPath: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
};

const SIGNATURE_WINDOW_MS = 15 * 60 * 1000;
const SIGNATURE_MISMATCH =
  "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

function header(headers: ReceivedForAuth["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function amzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
}

function basicFormat(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export async function verifyBedrockAuth(request: ReceivedForAuth, credentials: BedrockCredentials, now = new Date()): Promise<AuthResult> {
  const authorization = header(request.headers, "authorization");
  if (!authorization) return { ok: false, type: "MissingAuthenticationTokenException", message: "Missing Authentication Token" };

  if (authorization.startsWith("Bearer ")) {
    const key = authorization.slice("Bearer ".length);
    if (credentials.apiKey && equalText(key, credentials.apiKey)) return { ok: true, method: "bearer" };
    // Long-term keys start `ABSK`, short-term ones `bedrock-api-key-`. Bedrock's exact refusal of a well-formed but
    // unknown key is not documented; this fake answers 403 with the message Bedrock gives for a bad key format or
    // a generic authentication failure.
    const wellFormed = key.startsWith("ABSK") || key.startsWith("bedrock-api-key-");
    return {
      ok: false,
      type: "UnrecognizedClientException",
      message: wellFormed
        ? "Authentication failed: Please make sure your API Key is valid."
        : "Invalid API Key format: Must start with pre-defined prefix",
    };
  }

  const parsed = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) {
    return {
      ok: false,
      type: "IncompleteSignatureException",
      message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters. Authorization=${authorization.split(" ")[0]}`,
    };
  }
  const [, credential, signedHeaderList, signature] = parsed;
  const [accessKeyId, shortDate, region, service, terminator] = credential.split("/");
  if (accessKeyId !== credentials.accessKeyId) {
    return { ok: false, type: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
  }
  if (terminator !== "aws4_request" || service !== "bedrock") {
    return { ok: false, type: "InvalidSignatureException", message: `Credential should be scoped to correct service: 'bedrock'.` };
  }
  if (region !== credentials.region) {
    return { ok: false, type: "InvalidSignatureException", message: `Credential should be scoped to a valid region, not '${region}'.` };
  }
  const signedHeaders = signedHeaderList.split(";");
  // Over HTTP/2 the AWS SDK signs the `:authority` pseudo-header in place of `host`; either one must be signed.
  if (!signedHeaders.includes("host") && !signedHeaders.includes(":authority")) {
    return {
      ok: false,
      type: "InvalidSignatureException",
      message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
    };
  }
  if (!signedHeaders.includes("x-amz-date")) {
    return { ok: false, type: "InvalidSignatureException", message: "'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization." };
  }
  const dateText = header(request.headers, "x-amz-date") ?? "";
  const signingDate = amzDate(dateText);
  if (!signingDate || !dateText.startsWith(shortDate)) {
    return { ok: false, type: "IncompleteSignatureException", message: "Date must be in ISO-8601 'basic format'." };
  }
  if (signingDate.getTime() < now.getTime() - SIGNATURE_WINDOW_MS) {
    const bound = basicFormat(new Date(now.getTime() - SIGNATURE_WINDOW_MS));
    return {
      ok: false,
      type: "InvalidSignatureException",
      message: `Signature expired: ${dateText} is now earlier than ${bound} (${basicFormat(now)} - 15 min.)`,
    };
  }
  if (signingDate.getTime() > now.getTime() + SIGNATURE_WINDOW_MS) {
    const bound = basicFormat(new Date(now.getTime() + SIGNATURE_WINDOW_MS));
    return {
      ok: false,
      type: "InvalidSignatureException",
      message: `Signature not yet current: ${dateText} is still later than ${bound} (${basicFormat(now)} + 15 min.)`,
    };
  }
  const token = header(request.headers, "x-amz-security-token");
  if (credentials.sessionToken !== undefined || token !== undefined) {
    if (token === undefined || credentials.sessionToken === undefined || !equalText(token, credentials.sessionToken)) {
      return { ok: false, type: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
    }
    if (!signedHeaders.includes("x-amz-security-token")) {
      return { ok: false, type: "InvalidSignatureException", message: SIGNATURE_MISMATCH };
    }
  }
  const contentHash = header(request.headers, "x-amz-content-sha256");
  if (contentHash !== undefined && contentHash !== createHash("sha256").update(request.body).digest("hex")) {
    return {
      ok: false,
      type: "InvalidSignatureException",
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }

  // Re-sign what arrived: only the headers the client says it signed, the path as it came on the wire (the signer
  // escapes each segment again, as SigV4 does for every service but S3), the query, the body.
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    // HTTP/2 carries the host as the `:authority` pseudo-header, and the SDK's HTTP/2 handler signs it by that name.
    const value =
      name === "host" ? (header(request.headers, "host") ?? header(request.headers, ":authority")) : header(request.headers, name);
    if (value === undefined) return { ok: false, type: "InvalidSignatureException", message: SIGNATURE_MISMATCH };
    headers[name] = value;
  }
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(request.query.keys())) {
    const values = request.query.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  const signer = new SignatureV4({
    service: "bedrock",
    region: credentials.region,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
    },
    sha256: Sha256,
    applyChecksum: false,
  });
  const resigned = await signer.sign(
    new HttpRequest({
      method: request.method,
      hostname: headers.host ?? headers[":authority"],
      path: request.rawPath,
      query,
      headers,
      body: request.body,
    }),
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(resigned.headers.authorization))?.[1] ?? "";
  const expectedList = /SignedHeaders=([^,\s]+)/.exec(String(resigned.headers.authorization))?.[1];
  if (expectedList !== signedHeaderList || !equalText(expected, signature)) {
    return { ok: false, type: "InvalidSignatureException", message: SIGNATURE_MISMATCH };
  }
  return { ok: true, method: "sigv4", signedHeaders, accessKeyId };
}
