// Per-key request limits (requests per minute; the key's own limit, else its group's), and the budget of
// /v1/messages/count_tokens. Counted in Redis when REDIS_URL is set, so the limits hold across instances; in-process
// otherwise.
import { GatewayError } from "@/lib/platform/errors";
import { env } from "@/lib/platform/env";
import { groupOf } from "@/lib/money/prices";
import { createLimiter, type Limiter } from "@/lib/platform/limiter";
import { setSingleton, singleton } from "@/lib/platform/singleton";
import type { KeyPrincipal } from "@/lib/keys/lookup";

const WINDOW_MS = 60_000;

export function requestLimiter(): Limiter {
  return singleton("gateway.request-limiter", () => createLimiter(null));
}

export function setRequestLimiter(limiter: Limiter): void {
  setSingleton("gateway.request-limiter", limiter);
}

export async function checkRateLimit(principal: KeyPrincipal): Promise<void> {
  const limit = principal.rateLimitPerMinute ?? (await groupOf(principal.group))?.rateLimitPerMinute ?? null;
  if (!limit) return;
  const result = await requestLimiter().hit(`rpm:${principal.keyId}`, limit, WINDOW_MS);
  if (!result.allowed) {
    const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new GatewayError("rate_limited", `Rate limit reached for this key: ${limit} requests per minute; try again in ${seconds} s`, {
      headers: { "retry-after": String(seconds) },
    });
  }
}

/**
 * /v1/messages/count_tokens costs its caller nothing and the gateway a parse and a count, so it has a budget of its
 * own per key, GATEWAY_COUNT_TOKENS_PER_MINUTE (100: the vendor's first usage tier), counted apart from the key's
 * requests as the vendor counts it apart from message creation.
 */
export async function checkCountTokensLimit(principal: KeyPrincipal): Promise<void> {
  const limit = env().GATEWAY_COUNT_TOKENS_PER_MINUTE;
  const result = await requestLimiter().hit(`count:${principal.keyId}`, limit, WINDOW_MS);
  if (!result.allowed) {
    const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
    throw new GatewayError(
      "rate_limited",
      `Rate limit reached for this key on /v1/messages/count_tokens: ${limit} counts per minute, apart from its other requests; try again in ${seconds} s`,
      { headers: { "retry-after": String(seconds) } },
    );
  }
}
