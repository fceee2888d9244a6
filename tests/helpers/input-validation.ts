// Shared by the hostile-input tests (tests/integration/input-validation-*.test.ts: malformed, oversized and mismatched input): one
// gateway with a small body cap and a funded key per test file (the hooks below run in the file that imports this),
// a sender for every kind of authentication, the dialect checks, request builders, and the suite that sends a table
// of cases and checks that none of them cost anything.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "./gateway";
import { signedIn, type Browser } from "./user-api";

export const MB = 1024 * 1024;
/** This gateway's configured body cap (GATEWAY_MAX_BODY_BYTES), small so the 413 is cheap to reach. */
export const BODY_CAP = 2 * MB;

export let gateway: Gateway;
export let payer: Awaited<ReturnType<typeof createUserWithKey>>;
export let browser: Browser;
export let png: Buffer;
export let channelId: string;
export let keyId: string;

before(async () => {
  gateway = await startGateway({ portal: true, env: { GATEWAY_MAX_BODY_BYTES: String(BODY_CAP) } });
  payer = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  browser = await signedIn(gateway.url, payer.email, payer.password);
  png = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 1 } } })
    .png()
    .toBuffer();
  channelId = (
    await gateway.admin("POST", "/api/admin/channels", { name: "spare", type: "simulator", models: ["std-5.5"], status: "disabled" })
  ).id;
  keyId = payer.keyId;
});
after(stopAllGateways);

export type Dialect = "openai" | "anthropic" | "plain";
export type Auth = "bearer" | "x-api-key" | "master" | "session" | "none";
export type Case = {
  name: string;
  method?: string;
  path: string | (() => string);
  auth: Auth;
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  contentType?: string;
  status: number;
  code?: string;
  message?: RegExp;
};

export function dialectOf(path: string): Dialect {
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1")) return "openai";
  return "plain";
}

export function authHeaders(auth: Auth): Record<string, string> {
  if (auth === "bearer") return { authorization: `Bearer ${payer.key}` };
  if (auth === "x-api-key") return { "x-api-key": payer.key };
  if (auth === "master") return { authorization: `Bearer ${gateway.masterKey}` };
  if (auth === "session") return { cookie: browser.cookie };
  return {};
}

export async function send(
  kase: Pick<Case, "method" | "path" | "auth" | "body" | "contentType">,
): Promise<{ status: number; body: any; text: string; requestId: string | null }> {
  const path = typeof kase.path === "function" ? kase.path() : kase.path;
  const headers: Record<string, string> = { ...authHeaders(kase.auth) };
  let body: BodyInit | undefined;
  if (kase.body !== undefined) {
    if (typeof kase.body === "string" || Buffer.isBuffer(kase.body)) body = kase.body as BodyInit;
    else body = JSON.stringify(kase.body);
    headers["content-type"] = kase.contentType ?? "application/json";
  } else if (kase.contentType) headers["content-type"] = kase.contentType;
  const response = await fetch(`${gateway.url}${path}`, { method: kase.method ?? "POST", headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // asserted below
  }
  return { status: response.status, body: parsed, text, requestId: response.headers.get("x-request-id") };
}

/** The error body of the endpoint's dialect, exactly its keys. */
export function assertDialectError(path: string, body: any, text: string) {
  assert.ok(body && typeof body === "object", `a JSON error body, got ${text.slice(0, 200)}`);
  const dialect = dialectOf(path);
  if (dialect === "anthropic") {
    assert.deepEqual(Object.keys(body).sort(), ["error", "type"]);
    assert.equal(body.type, "error");
    assert.deepEqual(Object.keys(body.error).sort(), ["message", "type"]);
    assert.equal(typeof body.error.type, "string");
    assert.equal(typeof body.error.message, "string");
  } else if (dialect === "openai") {
    assert.deepEqual(Object.keys(body), ["error"]);
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(typeof body.error.message, "string");
  } else {
    assert.deepEqual(Object.keys(body), ["error"]);
    assert.equal(typeof body.error.code, "string");
    assert.equal(typeof body.error.message, "string");
  }
  // Small, readable bodies: a huge input is never echoed back whole.
  assert.ok(text.length < 2000, `the error body is ${text.length} bytes`);
}

export function codeOf(path: string, body: any): string | undefined {
  return dialectOf(path) === "anthropic" ? body.error.type : body.error.code;
}

/** A multipart body built by hand, so it can be broken on purpose. */
export function multipart(
  parts: { name: string; filename?: string; type?: string; data: Buffer | string }[],
  options: { boundary?: string; close?: boolean } = {},
): Buffer {
  const boundary = options.boundary ?? "gateway-test-boundary";
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += "\r\n";
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data), Buffer.from("\r\n"));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
export const MULTIPART = "multipart/form-data; boundary=gateway-test-boundary";
export const editFields = (extra: { name: string; filename?: string; type?: string; data: Buffer | string }[] = []) => [
  { name: "model", data: "std-image-2" },
  { name: "prompt", data: "make it blue" },
  ...extra,
];

export const chat = (body: Record<string, unknown>) => ({ model: "std-5.5", messages: [{ role: "user", content: "hi" }], ...body });
export const message = (body: Record<string, unknown>) => ({
  model: "msg-sonnet-4-6",
  max_tokens: 16,
  messages: [{ role: "user", content: "hi" }],
  ...body,
});
export const responses = (body: Record<string, unknown>) => ({
  model: "std-5.5",
  stream: true,
  instructions: "Draw what is asked",
  input: [{ role: "user", content: [{ type: "input_text", text: "a cat" }] }],
  tools: [{ type: "image_generation" }],
  ...body,
});
export const userInput = (image_url: unknown) => [
  {
    role: "user",
    content: [
      { type: "input_text", text: "edit this" },
      { type: "input_image", image_url },
    ],
  },
];

export const huge = "x".repeat(100_000);

export async function ledgerCount(): Promise<number> {
  return (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data.length;
}

export async function money(): Promise<{ balance: number; quota: number; rows: number }> {
  const user = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find((row: { id: string }) => row.id === payer.userId);
  const key = (await gateway.admin("GET", `/api/admin/keys?userId=${payer.userId}`)).data.find(
    (row: { id: string }) => row.id === payer.keyId,
  );
  return { balance: user.balance, quota: key.quotaRemaining, rows: await ledgerCount() };
}

/**
 * Sends every case and checks the answer's status, dialect, code and message; then that none of it cost anything.
 * `charged` lists the ledger rows the cases may leave, each at cost 0 (endpoint, status, HTTP status, cost, whether
 * the error says the image is damaged or truncated).
 */
export function refusalSuite(CASES: Record<string, Case[]>, charged: [string, string, number, number, boolean][] = []) {
  describe("malformed requests: 400 (or 413) in the endpoint's dialect, never a 500", () => {
    let before: Awaited<ReturnType<typeof money>>;
    test("(the money before the table)", async () => {
      before = await money();
    });

    for (const [group, cases] of Object.entries(CASES)) {
      describe(group, () => {
        for (const kase of cases) {
          test(`${kase.name} -> ${kase.status}`, async () => {
            const body = typeof kase.body === "function" ? await (kase.body as () => unknown)() : kase.body;
            const path = typeof kase.path === "function" ? kase.path() : kase.path;
            const answer = await send({ ...kase, body });
            assert.equal(answer.status, kase.status, `${kase.method ?? "POST"} ${path}: ${answer.text.slice(0, 300)}`);
            assertDialectError(path, answer.body, answer.text);
            if (kase.code) assert.equal(codeOf(path, answer.body), kase.code, answer.text.slice(0, 300));
            if (kase.message)
              assert.match(dialectOf(path) === "anthropic" ? answer.body.error.message : answer.body.error.message, kase.message);
          });
        }
      });
    }

    test("none of it cost anything: balance and key quota unchanged; the ledger holds no charge", async () => {
      const after = await money();
      assert.deepEqual({ balance: after.balance, quota: after.quota }, { balance: before.balance, quota: before.quota });
      // Every refusal above happens before the reservation, except one: a PNG whose header is valid but whose data is
      // cut passes the upload inspection (header only) and is refused when the image is decoded for the edit. Its
      // reservation is released in full, and its row records the refusal at cost 0. (/v1/responses also decodes its
      // images after the reservation, money before work: a refusal there gives the reservation back with no row.)
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data as {
        cost: number;
        endpoint: string;
        status: string;
        httpStatus: number;
        error: string;
      }[];
      assert.equal(rows.length - before.rows, rows.filter((row) => row.cost === 0).length - before.rows, "no row charges anything");
      assert.deepEqual(
        rows
          .slice(0, rows.length - before.rows)
          .map((row) => [row.endpoint, row.status, row.httpStatus, row.cost, /damaged or truncated/.test(row.error)]),
        charged,
      );
    });
  });
}
