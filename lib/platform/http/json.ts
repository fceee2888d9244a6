// JSON in and out for the plain handlers: bodies read with a size cap, validated with zod, errors as GatewayError.
import type { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { firstUnstorableText } from "@/lib/platform/text";
import { randomUUID } from "node:crypto";
import { textResponse } from "./direct-body";
import { readNodeBody } from "./node-adapter";

export const JSON_LIMIT_BYTES = 32 * 1024 * 1024;
/** Account and sign-in routes (public, or a person's own settings): their bodies are a few hundred bytes. */
export const ACCOUNT_BODY_LIMIT_BYTES = 16 * 1024;

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

/** "32 MB", "8 KB", "512 bytes". */
export function limitText(limit: number): string {
  if (limit >= 1024 * 1024) return `${Math.round(limit / 1024 / 1024)} MB`;
  if (limit >= 1024) return `${Math.round(limit / 1024)} KB`;
  return `${limit} bytes`;
}

function bodyTooLarge(limit: number): GatewayError {
  return new GatewayError("body_too_large", `Request body is larger than the ${limitText(limit)} limit`);
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
  return parseJsonObject(await readText(request, limit));
}

/** A request body's text as a JSON object no deeper than MAX_JSON_DEPTH, or the 400 that says what it is instead. */
export function parseJsonObject(text: string): Record<string, unknown> {
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
  checkDepth(value);
  return value as Record<string, unknown>;
}

/** How deep a request body may nest. Real requests (tool schemas included) stay far below; the code that reads a
 * body (token counting, conversions) may then recurse without running out of stack. */
export const MAX_JSON_DEPTH = 64;

type Frame = { node: object; depth: number; parent: Frame | null; key: string; array: boolean };

function pathOf(frame: Frame): string {
  const segments: string[] = [];
  for (let at: Frame | null = frame; at?.parent; at = at.parent) segments.push(at.parent.array ? `[${at.key}]` : `.${at.key}`);
  return segments.reverse().join("").replace(/^\./, "");
}

/** Refuses a body nested deeper than MAX_JSON_DEPTH, naming where; walks without recursion (the path is built only
 * for the refusal). */
function checkDepth(root: object): void {
  const stack: Frame[] = [{ node: root, depth: 1, parent: null, key: "", array: Array.isArray(root) }];
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth > MAX_JSON_DEPTH) {
      const path = pathOf(frame).slice(0, 200);
      throw new GatewayError("invalid_request", `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (at '${path}')`, {
        param: path,
      });
    }
    for (const key in frame.node) {
      const child = (frame.node as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null)
        stack.push({ node: child, depth: frame.depth + 1, parent: frame, key, array: Array.isArray(child) });
    }
  }
}

/** The first zod issue as a GatewayError naming the field, e.g. "size: Expected string, received number". */
export function zodError(error: z.ZodError): GatewayError {
  const issue = error.issues[0]!;
  const param = issue.path.map(String).join(".") || null;
  return new GatewayError("invalid_request", issueMessage(issue, param), { param });
}

/**
 * A validator's issue as a sentence for people: a missing field says to send it, a wrong type says what was
 * expected; the schemas' own messages (written for people already) are kept.
 */
function issueMessage(issue: z.core.$ZodIssue, param: string | null): string {
  const generic = /^Invalid input: expected (\w+), received (\w+)$/.exec(issue.message);
  if (issue.code === "invalid_type" && param && generic) {
    if (generic[2] === "undefined") return `Send '${param}': it is required (${article(generic[1]!)})`;
    return `Invalid '${param}': it must be ${article(generic[1]!)}, not ${generic[2] === "null" ? "null" : article(generic[2]!)}`;
  }
  // A schema's message that is already a whole sentence naming the field stands as it is.
  if (param && issue.message.includes(`'${param}'`)) return issue.message;
  return param ? `Invalid '${param}': ${issue.message}` : issue.message;
}

function article(type: string): string {
  const names: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "a whole number",
    boolean: "true or false",
    object: "an object",
    array: "a list",
  };
  return names[type] ?? type;
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw zodError(result.error);
  return result.data;
}

/** The refusal of text a database cannot hold (lib/platform/text.ts), naming where it is. */
function unstorableRefusal(param: string): GatewayError {
  return new GatewayError(
    "invalid_request",
    `Invalid '${param}': text here may not contain NUL (\\u0000) characters or unpaired UTF-16 surrogates`,
    { param },
  );
}

/**
 * A body of the account and operator APIs, validated with `schema`. Their strings are stored (names, emails,
 * settings, notes) or looked up in the database, so any string or key holding NUL or an unpaired surrogate is
 * refused with a 400 naming the field before the schema runs (PostgreSQL refuses such text: a 500 otherwise).
 * /v1 bodies are read with readJsonObject: what they carry goes upstream, not into the database.
 */
export async function readBody<T extends z.ZodType>(request: Request, schema: T, limit = JSON_LIMIT_BYTES): Promise<z.infer<T>> {
  const body = await readJsonObject(request, limit);
  const unstorable = firstUnstorableText(body);
  if (unstorable !== null) throw unstorableRefusal(unstorable);
  return parseWith(schema, body);
}

/**
 * The query string of an account or operator API request, validated with `schema` (each parameter as a string; the
 * last one wins when a name repeats; names the schema does not know are ignored). A value holding NUL is refused
 * with a 400 naming the parameter, as in readBody (a query string decodes no unpaired surrogate: bad UTF-8 becomes
 * U+FFFD).
 */
export function parseQuery<T extends z.ZodType>(request: Request, schema: T): z.infer<T> {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  for (const [name, value] of Object.entries(query)) {
    if (firstUnstorableText(value) !== null) throw unstorableRefusal(name);
  }
  return parseWith(schema, query);
}
