// JSON in and out for the plain handlers: bodies read with a size cap, validated with zod, errors as GatewayError.
import { z } from "zod";
import { GatewayError } from "../errors";
import { randomUUID } from "node:crypto";
import { textResponse } from "./direct-body";
import { readNodeBody } from "./node-adapter";

export const JSON_LIMIT_BYTES = 32 * 1024 * 1024;

/** JSON.stringify that writes BigInt money columns as numbers (safe below 2^53 micro-USD = $9 billion). */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? Number(item) : item));
}

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(stringify(data), status, headers);
}

export function requestIdOf(request: Request): string {
  return request.headers.get("x-request-id") ?? newRequestId();
}

export function newRequestId(): string {
  // randomUUID draws from a cached entropy pool: far cheaper per request than fresh random bytes.
  return `req_${randomUUID().replaceAll("-", "")}`;
}

/** A JSON response from text that is already serialised. */
export function jsonText(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return textResponse(text, status, { "content-type": "application/json", ...headers });
}

function bodyTooLarge(limit: number): GatewayError {
  return new GatewayError("body_too_large", `Request body is larger than the ${Math.round(limit / 1024 / 1024)} MB limit`);
}

/** Reads the body as text, refusing more than `limit` bytes while it streams in. */
export async function readText(request: Request, limit = JSON_LIMIT_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw bodyTooLarge(limit);
  const direct = readNodeBody(request, limit);
  if (direct) {
    const bytes = await direct;
    if (bytes === "too_large") throw bodyTooLarge(limit);
    return bytes.toString("utf8");
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJsonObject(request: Request, limit = JSON_LIMIT_BYTES): Promise<Record<string, unknown>> {
  const text = await readText(request, limit);
  if (!text.trim()) throw new GatewayError("invalid_json", "Request body must be a JSON object; it was empty");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError("invalid_json", "Request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GatewayError("invalid_json", "Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/** The first zod issue as a GatewayError naming the field, e.g. "size: Expected string, received number". */
export function zodError(error: z.ZodError): GatewayError {
  const issue = error.issues[0]!;
  const param = issue.path.map(String).join(".") || null;
  const message = param ? `Invalid '${param}': ${issue.message}` : issue.message;
  return new GatewayError("invalid_request", message, { param });
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw zodError(result.error);
  return result.data;
}

export async function readBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  return parseWith(schema, await readJsonObject(request));
}
