// Shared by the image API tests (tests/integration/images-*.test.ts): one gateway on the built-in simulator and a
// funded key per test file (the hooks below run in the file that imports this), request helpers, image makers and
// the gateway's memory readings.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import OpenAI from "openai";
import sharp, { type OutputInfo } from "sharp";
import busboy from "busboy";
import type { IncomingHttpHeaders } from "node:http";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "./gateway";
import type { FakeUpstream } from "./fake-upstream";

export const MB = 1024 * 1024;
export const LIMIT = 50 * MB;
// The seeded std-image-2 price, USD per 1M tokens (= micro-USD per token).
export const PRICE = { textInput: 5, imageInput: 8, imageOutput: 30 };

export let gateway: Gateway;
export let key: string;
export const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 }));
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

export function openai(apiKey = key, url = gateway.url) {
  return new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, timeout: 120_000 });
}

export async function ledgerRows(requestId: string, target = gateway) {
  return (await target.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data as any[];
}

export async function ledgerFor(requestId: string, target = gateway) {
  const rows = await ledgerRows(requestId, target);
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

export async function account(userId: string, target = gateway) {
  const user = ((await target.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[]).find(
    (entry) => entry.id === userId,
  )!;
  const keys = (await target.admin("GET", `/api/admin/keys?userId=${userId}`)).data as { quotaRemaining: number }[];
  return { balance: user.balance, quota: keys[0]!.quotaRemaining };
}

export async function decode(b64: string) {
  const metadata = await sharp(Buffer.from(b64, "base64")).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

export function postJson(path: string, body: unknown, apiKey = key): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export type ParsedForm = { fields: Record<string, string>; files: { field: string; filename: string; type: string; data: Buffer }[] };

/** A multipart body as an upstream received it (its headers and bytes): the text fields and the files. */
export function parseForm(headers: IncomingHttpHeaders, raw: Buffer): Promise<ParsedForm> {
  return new Promise((resolve, reject) => {
    const form: ParsedForm = { fields: {}, files: [] };
    const parser = busboy({ headers: headers as Record<string, string>, limits: { fileSize: 100 * MB } });
    parser.on("field", (name, value) => (form.fields[name] = value));
    parser.on("file", (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => form.files.push({ field, filename: info.filename ?? "", type: info.mimeType, data: Buffer.concat(chunks) }));
    });
    parser.on("close", () => resolve(form));
    parser.on("error", reject);
    parser.end(raw);
  });
}

export type Part = [field: string, value: string | Buffer, filename?: string, type?: string];

export function postForm(parts: Part[], apiKey = key): Promise<Response> {
  const form = new FormData();
  for (const [field, value, filename, type] of parts) {
    if (typeof value === "string" && filename === undefined) form.append(field, value);
    else
      form.append(
        field,
        new Blob([typeof value === "string" ? value : new Uint8Array(value)], { type: type ?? "application/octet-stream" }),
        filename ?? "file",
      );
  }
  return fetch(`${gateway.url}/v1/images/edits`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
}

export const solid = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 3, background: colour } });
export const png = (width: number, height: number, colour = "#2266aa") => solid(width, height, colour).png().toBuffer();
/** A mask: opaque (keep) on the left half, transparent (edit) on the right half. */
export async function halfMask(width: number, height: number, format: "png" | "webp" = "png") {
  const keep = await sharp({ create: { width: Math.floor(width / 2), height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } })
    .png()
    .toBuffer();
  const mask = sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite([
    { input: keep, left: 0, top: 0 },
  ]);
  return format === "png" ? mask.png().toBuffer() : mask.webp({ lossless: true }).toBuffer();
}

/** A valid PNG of exactly `bytes` bytes: a small image plus a private ancillary chunk that decoders skip. */
export async function paddedPng(bytes: number): Promise<Buffer> {
  const base = await png(1024, 768);
  const dataLength = bytes - base.length - 12;
  const chunk = Buffer.alloc(dataLength + 12);
  chunk.writeUInt32BE(dataLength, 0);
  chunk.write("paDd", 4, "latin1");
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + dataLength)), 8 + dataLength);
  const iend = base.length - 12;
  const file = Buffer.concat([base.subarray(0, iend), chunk, base.subarray(iend)]);
  assert.equal(file.length, bytes);
  return file;
}

export function pixel(raw: { data: Buffer; info: OutputInfo }, x: number, y: number): [number, number, number] {
  const offset = (y * raw.info.width + x) * raw.info.channels;
  return [raw.data[offset]!, raw.data[offset + 1]!, raw.data[offset + 2]!];
}

export const distance = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** The gateway process's memory, from /proc (kB → MB). `clear_refs` 5 resets the peak to the current size. */
export function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

export async function expectError(response: Response, status: number, code: string, param: string | null, message: RegExp) {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error.code, code, text);
  assert.equal(body.error.param, param, text);
  assert.match(body.error.message, message);
  assert.equal(typeof body.error.type, "string");
  return response.headers.get("x-request-id")!;
}

// ---------------------------------------------------------------------------------------------------- official client
