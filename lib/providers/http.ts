// One way to call an upstream: a deadline for the response headers, the client's abort passed on, and every
// failure classified (retry on another channel or not, switch the channel off or not).
import type { UpstreamFailure } from "./types";

export const DEFAULT_HEADERS_TIMEOUT_MS = 120_000;

export type FetchResult = { ok: true; response: Response; abort: AbortController } | UpstreamFailure;

export async function upstreamFetch(url: string, init: RequestInit, options: { signal: AbortSignal; timeoutMs?: number }): Promise<FetchResult> {
  const abort = new AbortController();
  const onClientAbort = () => abort.abort(options.signal.reason);
  if (options.signal.aborted) onClientAbort();
  else options.signal.addEventListener("abort", onClientAbort, { once: true });
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error("upstream timeout"));
  }, timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: abort.signal, redirect: "manual" });
  } catch (error) {
    options.signal.removeEventListener("abort", onClientAbort);
    if (options.signal.aborted) return { ok: false, retryable: false, status: 499, message: "The client closed the connection", cause: "client_gone" };
    if (timedOut) return { ok: false, retryable: true, status: 504, message: `The upstream did not answer within ${Math.round(timeoutMs / 1000)} s`, cause: "timeout" };
    const detail = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { ok: false, retryable: true, status: 502, message: `Could not reach the upstream (${detail})`, cause: "connection" };
  } finally {
    clearTimeout(timer);
  }
  // From here the client's abort still cancels the body: keep the listener until the caller is done.
  if (response.ok) return { ok: true, response, abort };
  const text = await response.text().catch(() => "");
  options.signal.removeEventListener("abort", onClientAbort);
  return classifyStatus(response.status, text, response.headers.get("retry-after") ?? undefined);
}

/** The upstream's own error message, from an OpenAI- or Anthropic-shaped body or plain text. */
export function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === "string") return body.error;
    if (body.error?.message) return body.error.message;
    if (body.message) return body.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 300) || "no details";
}

export function classifyStatus(status: number, text: string, retryAfter?: string): UpstreamFailure {
  const message = upstreamMessage(text);
  if (status === 401 || status === 403) {
    return { ok: false, retryable: true, status: 502, message: "The upstream refused this channel's credentials", cause: `upstream_${status}`, disable: `Upstream answered ${status}: ${message}` };
  }
  if (status === 429) return { ok: false, retryable: true, status: 429, message: `The upstream is rate limiting: ${message}`, cause: "upstream_429", retryAfter };
  if (status >= 500) return { ok: false, retryable: true, status: 502, message: `The upstream failed (${status}): ${message}`, cause: `upstream_${status}` };
  if (status >= 300 && status < 400) return { ok: false, retryable: true, status: 502, message: `The upstream answered with a redirect (${status}), which is not followed`, cause: "upstream_redirect" };
  // Other 4xx: the request itself was refused upstream; another channel would refuse it too.
  return { ok: false, retryable: false, status: status === 404 ? 404 : 400, message: `The upstream refused the request: ${message}`, cause: `upstream_${status}` };
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
