// Hostile and broken input on every endpoint (security items 17, 18, 19): bad JSON, wrong types, huge strings, bad
// enums, bad data URIs, broken multipart and oversize bodies and files get a 400 (413 for size) in the endpoint's
// dialect, never a 500, and never cost anything. Then random JSON (fast-check) against every /v1 handler over real
// HTTP: no 500, always a dialect error body, nothing charged for a refusal.
// The schemas themselves are fuzzed in-process by tests/unit/input-properties.test.ts; the SSE parser by
// tests/unit/sse-properties.test.ts.
//
// Not refused by the gateway on purpose: the content of chat and messages turns (images as data URIs, tool calls,
// unknown fields) is the upstream's to judge. The gateway validates what it needs (model, roles, output cap, stream
// flags) and passes the rest on; an upstream that refuses it answers 400, which reaches the client at no cost
// (tests/integration/gateway-text.test.ts, "an upstream 400 is passed to the client in its dialect and costs nothing").
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

const MB = 1024 * 1024;
/** This gateway's configured body cap (GATEWAY_MAX_BODY_BYTES), small so the 413 is cheap to reach. */
const BODY_CAP = 2 * MB;

let gateway: Gateway;
let payer: Awaited<ReturnType<typeof createUserWithKey>>;
let browser: Browser;
let png: Buffer;
let channelId: string;
let keyId: string;

before(async () => {
  gateway = await startGateway({ portal: true, env: { GATEWAY_MAX_BODY_BYTES: String(BODY_CAP) } });
  payer = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  browser = await signedIn(gateway.url, payer.email, payer.password);
  png = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 1 } } }).png().toBuffer();
  channelId = (await gateway.admin("POST", "/api/admin/channels", { name: "spare", type: "simulator", models: ["std-5.5"], status: "disabled" })).id;
  keyId = payer.keyId;
});
after(stopAllGateways);

type Dialect = "openai" | "anthropic" | "plain";
type Auth = "bearer" | "x-api-key" | "master" | "session" | "none";
type Case = {
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

function dialectOf(path: string): Dialect {
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1")) return "openai";
  return "plain";
}

function authHeaders(auth: Auth): Record<string, string> {
  if (auth === "bearer") return { authorization: `Bearer ${payer.key}` };
  if (auth === "x-api-key") return { "x-api-key": payer.key };
  if (auth === "master") return { authorization: `Bearer ${gateway.masterKey}` };
  if (auth === "session") return { cookie: browser.cookie };
  return {};
}

async function send(kase: Pick<Case, "method" | "path" | "auth" | "body" | "contentType">): Promise<{ status: number; body: any; text: string; requestId: string | null }> {
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
function assertDialectError(path: string, body: any, text: string) {
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

function codeOf(path: string, body: any): string | undefined {
  return dialectOf(path) === "anthropic" ? body.error.type : body.error.code;
}

/** A multipart body built by hand, so it can be broken on purpose. */
function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[], options: { boundary?: string; close?: boolean } = {}): Buffer {
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
const MULTIPART = "multipart/form-data; boundary=gateway-test-boundary";
const editFields = (extra: { name: string; filename?: string; type?: string; data: Buffer | string }[] = []) => [
  { name: "model", data: "std-image-2" },
  { name: "prompt", data: "make it blue" },
  ...extra,
];

const chat = (body: Record<string, unknown>) => ({ model: "std-5.5", messages: [{ role: "user", content: "hi" }], ...body });
const message = (body: Record<string, unknown>) => ({ model: "msg-sonnet-4-6", max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...body });
const responses = (body: Record<string, unknown>) => ({ model: "std-5.5", stream: true, instructions: "Draw what is asked", input: [{ role: "user", content: [{ type: "input_text", text: "a cat" }] }], tools: [{ type: "image_generation" }], ...body });
const userInput = (image_url: unknown) => [{ role: "user", content: [{ type: "input_text", text: "edit this" }, { type: "input_image", image_url }] }];

const huge = "x".repeat(100_000);

const CASES: Record<string, Case[]> = {
  "/v1/chat/completions": [
    { name: "bad JSON", path: "/v1/chat/completions", auth: "bearer", body: "{\"model\": \"std-5.5\",", status: 400, code: "invalid_json", message: /^Request body is not valid JSON$/ },
    { name: "an empty body", path: "/v1/chat/completions", auth: "bearer", body: "", status: 400, code: "invalid_json" },
    { name: "a JSON array", path: "/v1/chat/completions", auth: "bearer", body: "[1,2]", status: 400, code: "invalid_json", message: /must be a JSON object/ },
    { name: "model is a number", path: "/v1/chat/completions", auth: "bearer", body: chat({ model: 42 }), status: 400, code: "invalid_request", message: /'model'/ },
    { name: "messages is a string", path: "/v1/chat/completions", auth: "bearer", body: chat({ messages: "hi" }), status: 400, code: "invalid_request", message: /'messages'/ },
    { name: "messages is empty", path: "/v1/chat/completions", auth: "bearer", body: chat({ messages: [] }), status: 400, code: "invalid_request", message: /at least one message/ },
    { name: "a bad role enum", path: "/v1/chat/completions", auth: "bearer", body: chat({ messages: [{ role: "wizard", content: "x" }] }), status: 400, code: "invalid_request", message: /role/ },
    { name: "content is a number", path: "/v1/chat/completions", auth: "bearer", body: chat({ messages: [{ role: "user", content: 42 }] }), status: 400, code: "invalid_request" },
    { name: "max_tokens is a string", path: "/v1/chat/completions", auth: "bearer", body: chat({ max_tokens: "ten" }), status: 400, code: "invalid_request", message: /max_tokens/ },
    { name: "max_tokens is fractional", path: "/v1/chat/completions", auth: "bearer", body: chat({ max_tokens: 1.5 }), status: 400, code: "invalid_request" },
    { name: "max_tokens is absurd", path: "/v1/chat/completions", auth: "bearer", body: chat({ max_tokens: 1e12 }), status: 400, code: "invalid_request" },
    { name: "stream is a string", path: "/v1/chat/completions", auth: "bearer", body: chat({ stream: "yes" }), status: 400, code: "invalid_request", message: /stream/ },
    { name: "n = 2", path: "/v1/chat/completions", auth: "bearer", body: chat({ n: 2 }), status: 400, code: "invalid_request", message: /'n'/ },
    { name: "a 100 KB model name (refused without echoing it)", path: "/v1/chat/completions", auth: "bearer", body: chat({ model: huge }), status: 404, code: "model_not_found" },
    { name: "a body over 32 MB", path: "/v1/chat/completions", auth: "bearer", body: JSON.stringify(chat({ messages: [{ role: "user", content: "y".repeat(33 * MB) }] })), status: 413, code: "body_too_large" },
  ],
  "/v1/messages": [
    { name: "bad JSON", path: "/v1/messages", auth: "x-api-key", body: "{not json", status: 400, code: "invalid_request_error", message: /^Request body is not valid JSON$/ },
    { name: "a JSON string", path: "/v1/messages", auth: "x-api-key", body: "\"hello\"", status: 400, code: "invalid_request_error" },
    { name: "max_tokens missing", path: "/v1/messages", auth: "x-api-key", body: { model: "msg-sonnet-4-6", messages: [{ role: "user", content: "hi" }] }, status: 400, code: "invalid_request_error", message: /^max_tokens: Field required$/ },
    { name: "max_tokens is a string", path: "/v1/messages", auth: "x-api-key", body: message({ max_tokens: "ten" }), status: 400, code: "invalid_request_error", message: /max_tokens/ },
    { name: "max_tokens is zero", path: "/v1/messages", auth: "x-api-key", body: message({ max_tokens: 0 }), status: 400, code: "invalid_request_error" },
    // (A `system` turn in messages is accepted: tests/integration/claude-code-shape.test.ts.)
    { name: "a tool role in messages", path: "/v1/messages", auth: "x-api-key", body: message({ messages: [{ role: "tool", content: "x" }] }), status: 400, code: "invalid_request_error", message: /user, assistant or system/ },
    { name: "a message without content", path: "/v1/messages", auth: "x-api-key", body: message({ messages: [{ role: "user" }] }), status: 400, code: "invalid_request_error" },
    { name: "a content block without a type", path: "/v1/messages", auth: "x-api-key", body: message({ messages: [{ role: "user", content: [{ text: "x" }] }] }), status: 400, code: "invalid_request_error" },
    { name: "system is a number", path: "/v1/messages", auth: "x-api-key", body: message({ system: 42 }), status: 400, code: "invalid_request_error", message: /system/ },
    { name: "stream is a string", path: "/v1/messages", auth: "x-api-key", body: message({ stream: "yes" }), status: 400, code: "invalid_request_error" },
    { name: "model is an object", path: "/v1/messages", auth: "x-api-key", body: message({ model: { name: "x" } }), status: 400, code: "invalid_request_error" },
    { name: "a 100 KB model name", path: "/v1/messages", auth: "x-api-key", body: message({ model: huge }), status: 404, code: "not_found_error" },
    { name: "a body over 32 MB", path: "/v1/messages", auth: "x-api-key", body: JSON.stringify(message({ messages: [{ role: "user", content: "y".repeat(33 * MB) }] })), status: 413, code: "request_too_large" },
  ],
  "/v1/images/generations": [
    { name: "bad JSON", path: "/v1/images/generations", auth: "bearer", body: "{\"prompt\": ", status: 400, code: "invalid_json" },
    { name: "prompt missing", path: "/v1/images/generations", auth: "bearer", body: { model: "std-image-2" }, status: 400, code: "invalid_request", message: /prompt/ },
    { name: "prompt is a number", path: "/v1/images/generations", auth: "bearer", body: { prompt: 42 }, status: 400, code: "invalid_request", message: /prompt/ },
    { name: "a 40,000-character prompt", path: "/v1/images/generations", auth: "bearer", body: { prompt: "p".repeat(40_000) }, status: 400, code: "invalid_request", message: /at most 32,000 characters/ },
    { name: "an unknown size", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", size: "999x999" }, status: 400, code: "invalid_request", message: /size/ },
    { name: "size is a number", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", size: 1024 }, status: 400, code: "invalid_request", message: /size/ },
    { name: "a bad quality enum", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", quality: "ultra" }, status: 400, code: "invalid_request", message: /quality/ },
    { name: "a bad output_format enum", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", output_format: "gif" }, status: 400, code: "invalid_request", message: /output_format/ },
    { name: "a bad response_format enum", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", response_format: "file" }, status: 400, code: "invalid_request", message: /response_format/ },
    { name: "a bad moderation enum", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", moderation: "none" }, status: 400, code: "invalid_request", message: /moderation/ },
    { name: "a transparent background", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", background: "transparent" }, status: 400, code: "invalid_request", message: /transparent/ },
    { name: "output_compression 101", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", output_format: "jpeg", output_compression: 101 }, status: 400, code: "invalid_request", message: /output_compression/ },
    { name: "another model", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", model: "dall-e-3" }, status: 400, code: "invalid_request", message: /model/ },
    { name: "a 100 KB model name", path: "/v1/images/generations", auth: "bearer", body: { prompt: "a cat", model: huge }, status: 400, code: "invalid_request", message: /model/ },
    { name: "multipart instead of JSON", path: "/v1/images/generations", auth: "bearer", body: multipart([{ name: "prompt", data: "a cat" }]), contentType: MULTIPART, status: 400, code: "invalid_request", message: /JSON body/ },
    { name: "a body over 1 MB", path: "/v1/images/generations", auth: "bearer", body: JSON.stringify({ prompt: "a cat", padding: "z".repeat(2 * MB) }), status: 413, code: "body_too_large" },
  ],
  "/v1/images/edits": [
    { name: "JSON instead of multipart", path: "/v1/images/edits", auth: "bearer", body: { prompt: "x", image: "data:image/png;base64,AAAA" }, status: 400, code: "invalid_request", message: /multipart\/form-data/ },
    { name: "multipart without a boundary", path: "/v1/images/edits", auth: "bearer", body: "--x\r\n", contentType: "multipart/form-data", status: 400, code: "invalid_request" },
    { name: "a body that is not multipart at all", path: "/v1/images/edits", auth: "bearer", body: "hello, this is not a form", contentType: MULTIPART, status: 400, code: "invalid_request" },
    { name: "a multipart body cut before its end", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image[]", filename: "a.png", type: "image/png", data: png.subarray(0, 40) }]), { close: false }), contentType: MULTIPART, status: 400, code: "invalid_request" },
    { name: "no image file", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields()), contentType: MULTIPART, status: 400, code: "invalid_request", message: /image/ },
    { name: "an empty file", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image[]", filename: "a.png", type: "image/png", data: Buffer.alloc(0) }])), contentType: MULTIPART, status: 400, code: "invalid_request" },
    { name: "a text file as the image", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image[]", filename: "a.png", type: "image/png", data: "just text" }])), contentType: MULTIPART, status: 400, code: "invalid_request", message: /PNG, JPEG or WebP/ },
    { name: "a truncated PNG", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image[]", filename: "a.png", type: "image/png", data: png.subarray(0, png.length - 30) }])), contentType: MULTIPART, status: 400, code: "invalid_request" },
    { name: "an image given as a data URI field", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image_url", data: `data:image/png;base64,${png.toString("base64")}` }])), contentType: MULTIPART, status: 400, code: "invalid_request" },
    { name: "a bad quality enum in a form field", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "quality", data: "ultra" }, { name: "image[]", filename: "a.png", type: "image/png", data: png }])), contentType: MULTIPART, status: 400, code: "invalid_request", message: /quality/ },
    { name: "a 100 KB prompt field", path: "/v1/images/edits", auth: "bearer", body: () => multipart([{ name: "prompt", data: huge }, { name: "image[]", filename: "a.png", type: "image/png", data: png }]), contentType: MULTIPART, status: 400, code: "invalid_request", message: /prompt/ },
    { name: "a mask without an alpha channel", path: "/v1/images/edits", auth: "bearer", body: async () => multipart(editFields([{ name: "image[]", filename: "a.png", type: "image/png", data: png }, { name: "mask", filename: "m.png", type: "image/png", data: await sharp({ create: { width: 64, height: 64, channels: 3, background: "#000" } }).png().toBuffer() }])), contentType: MULTIPART, status: 400, code: "invalid_request", message: /alpha/ },
    { name: "a file over 50 MB", path: "/v1/images/edits", auth: "bearer", body: () => multipart(editFields([{ name: "image[]", filename: "big.png", type: "image/png", data: Buffer.concat([png, Buffer.alloc(51 * MB)]) }])), contentType: MULTIPART, status: 413, code: "file_too_large" },
  ],
  "/v1/responses": [
    { name: "bad JSON", path: "/v1/responses", auth: "bearer", body: "{\"model\":", status: 400, code: "invalid_json" },
    { name: "instructions missing (docs/api.md §7)", path: "/v1/responses", auth: "bearer", body: responses({ instructions: undefined }), status: 400, code: "invalid_request", message: /^Instructions are required$/ },
    { name: "input is a string (docs/api.md §7)", path: "/v1/responses", auth: "bearer", body: responses({ input: "draw a cat" }), status: 400, code: "invalid_request", message: /^Input must be a list$/ },
    { name: "stream is not true", path: "/v1/responses", auth: "bearer", body: responses({ stream: false }), status: 400, code: "invalid_request", message: /stream/ },
    { name: "n is sent", path: "/v1/responses", auth: "bearer", body: responses({ n: 2 }), status: 400, code: "invalid_request", message: /'n'/ },
    { name: "previous_response_id is sent", path: "/v1/responses", auth: "bearer", body: responses({ previous_response_id: "resp_1" }), status: 400, code: "invalid_request", message: /previous_response_id/ },
    { name: "instructions is a number", path: "/v1/responses", auth: "bearer", body: responses({ instructions: 7 }), status: 400, code: "invalid_request", message: /instructions/ },
    // (No tools at all is a text response, served: tests/clients/responses-text.test.ts.)
    { name: "a tool of another kind", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "web_search" }] }), status: 400, code: "invalid_request", message: /tools/ },
    { name: "a tool of another type", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "web_search" }] }), status: 400, code: "invalid_request", message: /tools/ },
    { name: "a bad tool quality enum", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "image_generation", quality: "ultra" }] }), status: 400, code: "invalid_request", message: /quality/ },
    { name: "a bad tool action enum", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "image_generation", action: "paint" }] }), status: 400, code: "invalid_request", message: /action/ },
    { name: "a bad tool size", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "image_generation", size: "1x1" }] }), status: 400, code: "invalid_request", message: /size/ },
    { name: "action edit with no image", path: "/v1/responses", auth: "bearer", body: responses({ tools: [{ type: "image_generation", action: "edit" }] }), status: 400, code: "invalid_request", message: /edit/ },
    { name: "a data URI that is not base64", path: "/v1/responses", auth: "bearer", body: responses({ input: userInput("data:image/png;base64,@@@not-base64@@@") }), status: 400, code: "invalid_request", message: /base64/ },
    { name: "a data URI of another media type", path: "/v1/responses", auth: "bearer", body: responses({ input: userInput("data:text/plain;base64,aGVsbG8=") }), status: 400, code: "invalid_request", message: /PNG, JPEG or WebP/ },
    { name: "a data URI without ;base64", path: "/v1/responses", auth: "bearer", body: responses({ input: userInput("data:image/png,rawbytes") }), status: 400, code: "invalid_request", message: /data URI/ },
    { name: "a data URI whose bytes are not an image", path: "/v1/responses", auth: "bearer", body: responses({ input: userInput("data:image/png;base64,aGVsbG8gd29ybGQ=") }), status: 400, code: "invalid_request", message: /not a PNG, JPEG or WebP image/ },
    { name: "a data URI of a truncated PNG", path: "/v1/responses", auth: "bearer", body: () => responses({ input: userInput(`data:image/png;base64,${png.subarray(0, png.length - 30).toString("base64")}`) }), status: 400, code: "invalid_request" },
    { name: "an http image URL (never fetched)", path: "/v1/responses", auth: "bearer", body: responses({ input: userInput("http://127.0.0.1:9/cat.png") }), status: 400, code: "invalid_request", message: /does not fetch image URLs/ },
    { name: "a 100 KB model name", path: "/v1/responses", auth: "bearer", body: responses({ model: huge }), status: 400, code: "invalid_request", message: /model/ },
    { name: "a body over the configured cap (GATEWAY_MAX_BODY_BYTES)", path: "/v1/responses", auth: "bearer", body: JSON.stringify(responses({ instructions: "i".repeat(BODY_CAP + 1000) })), status: 413, code: "body_too_large" },
  ],
  "/api/user/*": [
    { name: "signup: bad JSON", path: "/api/user/signup", auth: "none", body: "{", status: 400, code: "invalid_json" },
    { name: "signup: email is a number", path: "/api/user/signup", auth: "none", body: { email: 42, password: "a-fine-password-1" }, status: 400, code: "invalid_request", message: /email/ },
    { name: "signup: a 100 KB password (a body over the 16 KB account limit)", path: "/api/user/signup", auth: "none", body: { email: "long@example.com", password: huge }, status: 413, code: "body_too_large", message: /16 KB limit/ },
    { name: "signup: a 10 KB password", path: "/api/user/signup", auth: "none", body: { email: "long@example.com", password: "x".repeat(10_000) }, status: 400, code: "invalid_request", message: /too long/ },
    { name: "signup: a 400-character email", path: "/api/user/signup", auth: "none", body: { email: `${"e".repeat(390)}@example.com`, password: "a-fine-password-1" }, status: 400, code: "invalid_request" },
    { name: "password: wrong types", path: "/api/user/password", auth: "session", body: { current: 1, next: 2 }, status: 400, code: "invalid_request" },
    { name: "password: a 100 KB new password (a body over the 16 KB account limit)", path: "/api/user/password", auth: "session", body: { current: "x", next: huge }, status: 413, code: "body_too_large", message: /16 KB limit/ },
    { name: "topup: key missing", path: "/api/user/topup", auth: "session", body: {}, status: 400, code: "invalid_request", message: /key/ },
    { name: "topup: key is a number", path: "/api/user/topup", auth: "bearer", body: { key: 12 }, status: 400, code: "invalid_request" },
    { name: "topup: a 100 KB code (a body over the 16 KB account limit)", path: "/api/user/topup", auth: "session", body: { key: huge }, status: 413, code: "body_too_large", message: /16 KB limit/ },
    { name: "topup: bad JSON with a key", path: "/api/user/topup", auth: "bearer", body: "{key", status: 400, code: "invalid_json" },
    { name: "keys: quota is a string", path: "/api/user/keys", auth: "session", body: { quota: "lots" }, status: 400, code: "invalid_request", message: /quota/ },
    { name: "keys: unlimited is a string", path: "/api/user/keys", auth: "session", body: { quota: 1, unlimited: "yes" }, status: 400, code: "invalid_request" },
    { name: "keys: expiresAt is not a date", path: "/api/user/keys", auth: "session", body: { quota: 1, expiresAt: "next week" }, status: 400, code: "invalid_request", message: /expiresAt/ },
    { name: "keys: a 101-character name", path: "/api/user/keys", auth: "session", body: { quota: 1, name: "n".repeat(101) }, status: 400, code: "invalid_request", message: /name/ },
    { name: "keys: a JSON array", path: "/api/user/keys", auth: "session", body: "[1]", status: 400, code: "invalid_json" },
    { name: "keys DELETE: bad JSON", method: "DELETE", path: "/api/user/keys", auth: "session", body: "{", status: 400, code: "invalid_json" },
    { name: "keys DELETE: id is a number", method: "DELETE", path: "/api/user/keys", auth: "session", body: { id: 42 }, status: 400, code: "invalid_request" },
    { name: "keys DELETE: a 1,000-character id", method: "DELETE", path: `/api/user/keys/${"i".repeat(1000)}`, auth: "session", status: 400, code: "invalid_request" },
    { name: "usage: a bad status enum", method: "GET", path: "/api/user/usage?status=fine", auth: "session", status: 400, code: "invalid_request", message: /status/ },
    { name: "usage: limit is not a number", method: "GET", path: "/api/user/usage?limit=lots", auth: "session", status: 400, code: "invalid_request", message: /limit/ },
    { name: "usage: from is not a date", method: "GET", path: "/api/user/usage?from=yesterday", auth: "session", status: 400, code: "invalid_request", message: /from/ },
    { name: "2fa enable: code missing", path: "/api/user/2fa/enable", auth: "session", body: {}, status: 400, code: "invalid_request", message: /code/ },
    { name: "2fa enable: code is a number", path: "/api/user/2fa/enable", auth: "session", body: { code: 123456 }, status: 400, code: "invalid_request" },
    { name: "2fa disable: bad JSON", path: "/api/user/2fa/disable", auth: "session", body: "not json", status: 400, code: "invalid_json" },
    { name: "2fa disable: a 200-character code", path: "/api/user/2fa/disable", auth: "session", body: { code: "1".repeat(200) }, status: 400, code: "invalid_request", message: /too long/ },
    { name: "reset request: not an email", path: "/api/user/reset/request", auth: "none", body: { email: "nope" }, status: 400, code: "invalid_request", message: /email/ },
    { name: "reset request: bad JSON", path: "/api/user/reset/request", auth: "none", body: "{\"email\"", status: 400, code: "invalid_json" },
    { name: "reset: token is a number", path: "/api/user/reset", auth: "none", body: { email: "a@example.com", token: 5 }, status: 400, code: "invalid_request", message: /token/ },
    { name: "reset: a 100 KB token (a body over the 16 KB account limit)", path: "/api/user/reset", auth: "none", body: { email: "a@example.com", token: huge }, status: 413, code: "body_too_large", message: /16 KB limit/ },
  ],
  "/api/admin/*": [
    { name: "users: bad JSON", path: "/api/admin/users", auth: "master", body: "{", status: 400, code: "invalid_json" },
    { name: "users: not an email", path: "/api/admin/users", auth: "master", body: { email: "x", password: "long-enough-1" }, status: 400, code: "invalid_request", message: /email/ },
    { name: "users: a bad role enum", path: "/api/admin/users", auth: "master", body: { email: "r@example.com", password: "long-enough-1", role: "god" }, status: 400, code: "invalid_request", message: /role/ },
    { name: "users: quota is a string", path: "/api/admin/users", auth: "master", body: { email: "q@example.com", password: "long-enough-1", quota: "lots" }, status: 400, code: "invalid_request", message: /quota/ },
    { name: "users PATCH: a bad status enum", method: "PATCH", path: () => `/api/admin/users/${payer.userId}`, auth: "master", body: { status: "gone" }, status: 400, code: "invalid_request", message: /status/ },
    { name: "users PATCH: a fractional balanceDelta", method: "PATCH", path: () => `/api/admin/users/${payer.userId}`, auth: "master", body: { balanceDelta: 1.5 }, status: 400, code: "invalid_request", message: /balanceDelta/ },
    { name: "users PATCH: a 100 KB note", method: "PATCH", path: () => `/api/admin/users/${payer.userId}`, auth: "master", body: { balanceDelta: 0, note: huge }, status: 400, code: "invalid_request", message: /note/ },
    { name: "keys: userId missing", path: "/api/admin/keys", auth: "master", body: { quota: 1 }, status: 400, code: "invalid_request", message: /userId/ },
    { name: "keys: expiresAt is not a date", path: "/api/admin/keys", auth: "master", body: () => ({ userId: payer.userId, expiresAt: "soon" }), status: 400, code: "invalid_request", message: /expiresAt/ },
    { name: "keys: rateLimitPerMinute 0", path: "/api/admin/keys", auth: "master", body: () => ({ userId: payer.userId, rateLimitPerMinute: 0 }), status: 400, code: "invalid_request", message: /rateLimitPerMinute/ },
    { name: "keys PATCH: a bad status enum", method: "PATCH", path: () => `/api/admin/keys/${keyId}`, auth: "master", body: { status: "maybe" }, status: 400, code: "invalid_request", message: /status/ },
    { name: "keys PATCH: a negative quota", method: "PATCH", path: () => `/api/admin/keys/${keyId}`, auth: "master", body: { quota: -5 }, status: 400, code: "invalid_request", message: /quota/ },
    { name: "groups: models is a string", path: "/api/admin/groups", auth: "master", body: { name: "g1", models: "all" }, status: 400, code: "invalid_request", message: /models/ },
    { name: "groups: a name with spaces", path: "/api/admin/groups", auth: "master", body: { name: "a b", models: [] }, status: 400, code: "invalid_request", message: /name/ },
    { name: "channels: a bad type enum", path: "/api/admin/channels", auth: "master", body: { name: "c", type: "mystery", models: ["std-5.5"] }, status: 400, code: "invalid_request", message: /type/ },
    { name: "channels: an ftp base URL", path: "/api/admin/channels", auth: "master", body: { name: "c", type: "openai", baseUrl: "ftp://example.com", models: ["std-5.5"] }, status: 400, code: "invalid_request", message: /baseUrl/ },
    { name: "channels: settings is a string", path: "/api/admin/channels", auth: "master", body: { name: "c", type: "simulator", models: ["std-5.5"], settings: "fast" }, status: 400, code: "invalid_request", message: /settings/ },
    { name: "channels PATCH: a javascript: base URL", method: "PATCH", path: () => `/api/admin/channels/${channelId}`, auth: "master", body: { baseUrl: "javascript:alert(1)" }, status: 400, code: "invalid_request", message: /baseUrl/ },
    { name: "channels PATCH: a negative weight", method: "PATCH", path: () => `/api/admin/channels/${channelId}`, auth: "master", body: { weight: -1 }, status: 400, code: "invalid_request", message: /weight/ },
    { name: "prices: textInput is a string", path: "/api/admin/prices", auth: "master", body: { model: "m", textInput: "cheap" }, status: 400, code: "invalid_request", message: /textInput/ },
    { name: "prices: a negative price", path: "/api/admin/prices", auth: "master", body: { model: "m", textOutput: -1 }, status: 400, code: "invalid_request", message: /textOutput/ },
    { name: "redeem-codes: count 100,000", path: "/api/admin/redeem-codes", auth: "master", body: { quota: 1, count: 100_000 }, status: 400, code: "invalid_request", message: /count/ },
    { name: "redeem-codes: quota 0", path: "/api/admin/redeem-codes", auth: "master", body: { quota: 0, count: 1 }, status: 400, code: "invalid_request", message: /quota/ },
    { name: "settings: signupEnabled is a string", path: "/api/admin/settings", auth: "master", body: { signupEnabled: "yes" }, status: 400, code: "invalid_request", message: /signupEnabled/ },
    { name: "settings: no user groups", path: "/api/admin/settings", auth: "master", body: { userGroups: [] }, status: 400, code: "invalid_request", message: /userGroups/ },
    { name: "moderation: an unknown field", path: "/api/admin/moderation", auth: "master", body: { everything: true }, status: 400, code: "invalid_request" },
    { name: "moderation: auto is a string", path: "/api/admin/moderation", auth: "master", body: { auto: "bad words" }, status: 400, code: "invalid_request", message: /auto/ },
    { name: "moderation: reset and lists together", path: "/api/admin/moderation", auth: "master", body: { reset: true, auto: ["x"] }, status: 400, code: "invalid_request", message: /either/ },
  ],
};

async function ledgerCount(): Promise<number> {
  return (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data.length;
}

async function money(): Promise<{ balance: number; quota: number; rows: number }> {
  const user = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find((row: { id: string }) => row.id === payer.userId);
  const key = (await gateway.admin("GET", `/api/admin/keys?userId=${payer.userId}`)).data.find((row: { id: string }) => row.id === payer.keyId);
  return { balance: user.balance, quota: key.quotaRemaining, rows: await ledgerCount() };
}

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
          if (kase.message) assert.match(dialectOf(path) === "anthropic" ? answer.body.error.message : answer.body.error.message, kase.message);
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
    const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data as { cost: number; endpoint: string; status: string; httpStatus: number; error: string }[];
    assert.equal(rows.length - before.rows, rows.filter((row) => row.cost === 0).length - before.rows, "no row charges anything");
    assert.deepEqual(
      rows.slice(0, rows.length - before.rows).map((row) => [row.endpoint, row.status, row.httpStatus, row.cost, /damaged or truncated/.test(row.error)]),
      [["/v1/images/edits", "error", 400, 0, true]],
    );
  });
});

// ------------------------------------------------------------------------------------------------ property-based

/** Plausible and implausible values for a field: what a confused or hostile client might send. */
const anyValue = fc.oneof(
  { depthSize: "small" },
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom("", " ", "std-5.5", "msg-sonnet-4-6", "std-image-2", "user", "auto", "1024x1024", "png", "data:image/png;base64,AAAA", "http://127.0.0.1/x.png", "' OR 1=1--", "\u0000", "💥"),
  fc.integer(),
  fc.double(),
);

function shaped(keys: string[]) {
  // Each request is the endpoint's own fields with random values (some left out), plus now and then a stray field.
  return fc.record(Object.fromEntries([...keys, "extra"].map((key) => [key, anyValue])), { requiredKeys: [] });
}

const FUZZ: { path: string; auth: Auth; body: fc.Arbitrary<unknown> }[] = [
  { path: "/v1/chat/completions", auth: "bearer", body: fc.oneof(fc.jsonValue(), shaped(["model", "messages", "max_tokens", "stream", "n", "stream_options", "tools", "tool_choice"])) },
  { path: "/v1/messages", auth: "x-api-key", body: fc.oneof(fc.jsonValue(), shaped(["model", "messages", "max_tokens", "system", "stream", "tools"])) },
  { path: "/v1/images/generations", auth: "bearer", body: fc.oneof(fc.jsonValue(), shaped(["model", "prompt", "size", "quality", "output_format", "output_compression", "response_format", "moderation", "background", "n"])) },
  { path: "/v1/responses", auth: "bearer", body: fc.oneof(fc.jsonValue(), shaped(["model", "instructions", "input", "stream", "tools", "n"]), fc.record({ model: fc.constant("std-5.5"), stream: fc.constant(true), instructions: fc.string(), input: fc.array(fc.record({ role: anyValue, content: fc.oneof(anyValue, fc.array(fc.record({ type: anyValue, text: anyValue, image_url: anyValue }, { requiredKeys: [] }))) }, { requiredKeys: [] }), { maxLength: 3 }), tools: fc.array(fc.record({ type: fc.constant("image_generation"), quality: anyValue, size: anyValue, action: anyValue }, { requiredKeys: [] }), { maxLength: 2 }) })) },
];

describe("property: random JSON against every /v1 endpoint", () => {
  for (const target of FUZZ) {
    test(`${target.path}: never a 500; refusals are dialect errors and cost nothing`, async () => {
      const refused: string[] = [];
      let served = 0;
      await fc.assert(
        fc.asyncProperty(target.body, async (value) => {
          const answer = await send({ path: target.path, auth: target.auth, body: JSON.stringify(value) });
          assert.notEqual(answer.status, 500, answer.text.slice(0, 300));
          assert.ok(answer.status < 500, `no 5xx for client input: ${answer.status} ${answer.text.slice(0, 300)}`);
          if (answer.status >= 400) {
            assertDialectError(target.path, answer.body, answer.text);
            refused.push(answer.requestId!);
          } else served++;
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
      );
      // Refused requests left no ledger row, so they cost nothing.
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data as { requestId: string }[];
      const charged = new Set(rows.map((row) => row.requestId));
      assert.deepEqual(refused.filter((id) => charged.has(id)), [], "no refused request has a ledger row");
      assert.ok(refused.length > 0, "the generator reaches the refusals");
      void served;
    });
  }
});
