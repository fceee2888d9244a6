// Per-key request limits (requests per minute; the key's own limit, else its group's). Counted in Redis when
// REDIS_URL is set, so the limit holds across instances; in-process otherwise.
import { GatewayError } from "@/lib/platform/errors";
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
