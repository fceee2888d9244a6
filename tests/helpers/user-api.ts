// Calls to the account API (/api/user/*) as a browser would make them: a cookie jar per person, updated from every
// Set-Cookie (the API re-issues the session cookie when 2FA or the password changes).
import { signIn } from "./session";

export type ApiResult = { status: number; body: any; headers: Headers; ms: number };

function parseCookies(header: string): Map<string, string> {
  const jar = new Map<string, string>();
  for (const pair of header.split(";")) {
    const index = pair.indexOf("=");
    if (index > 0) jar.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
  }
  return jar;
}

/** One HTTP call; `body` is sent as JSON unless it is a string (sent as is, for malformed-JSON tests). */
export async function callApi(
  baseUrl: string,
  method: string,
  pathname: string,
  options: { body?: unknown; headers?: Record<string, string>; cookie?: string } = {},
): Promise<ApiResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "content-type"))
    headers["content-type"] = "application/json";
  const started = performance.now();
  const response = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text so an assertion shows it.
  }
  return { status: response.status, body, headers: response.headers, ms };
}

/** A signed-in person: their cookie jar, kept up to date. */
export class Browser {
  private jar: Map<string, string>;

  constructor(
    readonly baseUrl: string,
    cookie: string,
  ) {
    this.jar = parseCookies(cookie);
  }

  get cookie(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async call(method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResult> {
    const result = await callApi(this.baseUrl, method, pathname, { body, headers, cookie: this.cookie });
    for (const line of result.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
    return result;
  }
}

/** Signs in through next-auth's real flow and returns the browser, or throws with next-auth's error. */
export async function signedIn(baseUrl: string, email: string, password: string, code?: string): Promise<Browser> {
  const result = await signIn(baseUrl, email, password, code);
  if (!result.ok) throw new Error(`sign-in of ${email} failed: ${result.error} (${result.status})`);
  return new Browser(baseUrl, result.cookie);
}

/** Polls `read` until it returns a value (not undefined/null/false) or `timeoutMs` passes. */
export async function eventually<T>(read: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
