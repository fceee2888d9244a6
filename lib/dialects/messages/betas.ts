// Which `anthropic-beta` values a client may pass to an anthropic upstream (docs/billing.md, "Betas"). A beta can
// change what the vendor bills (a premium speed, a bigger context, files or remote tools the gateway cannot count),
// so only those on the list go upstream: by default the ones that change nothing the reservation does not already
// bound, which include every beta the pinned Claude Code sends on a plain API-key request. An operator extends the
// list per channel with `settings.betas` (an array of beta names). The 1M-context beta never passes from the client:
// the gateway treats a request that names it as the `[1m]` model (permission and price) and the channel adds its own.
export const DEFAULT_ALLOWED_BETAS: readonly string[] = [
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "fine-grained-tool-streaming-2025-05-14",
  "token-efficient-tools-2025-02-19",
  "output-128k-2025-02-19",
  "context-management-2025-06-27",
  "effort-2025-11-24",
  "task-budgets-2026-03-13",
  "structured-outputs-2025-11-13",
  "structured-outputs-2025-12-15",
  "prompt-caching-2024-07-31",
  "prompt-caching-scope-2026-01-05",
  // 1-hour cache writes: reserved at the model's 1-hour write multiplier.
  "extended-cache-ttl-2025-04-11",
  "redact-thinking-2026-02-12",
  "thinking-token-count-2026-05-13",
  "cache-diagnosis-2026-04-07",
  "context-hint-2026-04-09",
  "mid-conversation-system-2026-04-07",
  "mid-conversation-tool-changes-2026-07-01",
  "token-counting-2024-11-01",
  // Server tools are priced per use or refused by their tool type (lib/money/reservation.ts), whatever the beta.
  "web-search-2025-03-05",
  "tool-search-tool-2025-10-19",
  "advanced-tool-use-2025-11-20",
];

/** Names the 1M-token context, whatever its date. */
export function isLongContextBeta(beta: string): boolean {
  return beta.startsWith("context-1m-");
}

export function splitBetas(header: string | null): string[] {
  return (header ?? "")
    .split(",")
    .map((beta) => beta.trim())
    .filter(Boolean);
}

/** The client's betas that may go upstream on this channel, in the client's order. */
export function allowedBetas(header: string | null, channelSettings: Record<string, unknown>): { allowed: string[]; dropped: string[] } {
  const extra = Array.isArray(channelSettings.betas)
    ? channelSettings.betas.filter((beta): beta is string => typeof beta === "string")
    : [];
  const allowed: string[] = [];
  const dropped: string[] = [];
  for (const beta of splitBetas(header)) {
    if (!isLongContextBeta(beta) && (DEFAULT_ALLOWED_BETAS.includes(beta) || extra.includes(beta))) allowed.push(beta);
    else dropped.push(beta);
  }
  return { allowed, dropped };
}
