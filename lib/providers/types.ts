// What an upstream adapter does for the text endpoints. Each channel type is one folder under lib/providers.
import type { Channel } from "@/lib/channels";

export type TextCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  /** The `[1m]` suffix was used: the 1M-token context must be switched on upstream. */
  longContext: boolean;
  /** The client's request body, in the client's own dialect, already validated. */
  body: Record<string, unknown>;
  stream: boolean;
  /** The output cap the gateway reserved for and sent upstream (docs/billing.md). */
  outputCap: number;
  /** About how large the body is serialised (the client's as it arrived): a large one is serialised in slices. */
  bodyBytes: number;
  /** Chat Completions only: the client asked for the usage chunk (stream_options.include_usage). */
  includeUsage: boolean;
  /** A Gemini client (the /v1beta endpoints): `body` is the Chat request its request became, and the Chat answer is
   *  written to it as Gemini's (lib/providers/gemini-client.ts), streamed as SSE (`?alt=sse`) or as one JSON array. */
  geminiClient?: { sse: boolean };
  /** The client's headers (the vendor version and beta headers are passed on; never its key). */
  headers: Headers;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Our own count of the input, for when the upstream reports no usage: each text counted as the reservation's
   *  count does without its per-request budget (lib/money/tokens.ts), worked out on first read. */
  readonly inputTokens: number;
};

export type UsageReport = {
  /** Fresh input; cache reads and writes apart when the upstream reports them. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  /** Server tool uses by tool name (`web_search`). */
  toolUses?: Record<string, number>;
  /** Which rule gave `outputTokens` (lib/money/meter.ts): the upstream's report, or the meter of what was delivered. */
  rule: "usage" | "meter";
  /** False when the stream was cut (by either side) before its end. */
  complete: boolean;
  /** Who cut it, when it was cut. */
  error?: string;
  clientGone?: boolean;
};

export type UpstreamFailure = {
  ok: false;
  /** Another channel may succeed (connection error, timeout, 429, 5xx, the channel's key refused). */
  retryable: boolean;
  status: number;
  message: string;
  cause: string;
  /** The channel's own key was refused: switch the channel off, with this reason. */
  disable?: string;
  retryAfter?: string;
  /** A request the upstream refused (4xx): its own error type and code, which clients act on. */
  vendor?: { type?: string; code?: string };
  /** The upstream's own words when `message` replaced them: for the log only, never for the client. */
  detail?: string;
  /** Input the upstream had already processed and billed before this failure (a request split into several calls,
   *  a later one failing): charged whatever the request's end (docs/billing.md, "Embeddings"). */
  billedInputTokens?: number;
};

export type UpstreamSuccess = { ok: true; response: Response; usage: Promise<UsageReport> };
export type Outcome = UpstreamSuccess | UpstreamFailure;

export interface TextAdapter {
  /** Answers in the OpenAI Chat Completions dialect. */
  chat(call: TextCall): Promise<Outcome>;
  /** Answers in the Anthropic Messages dialect. */
  messages(call: TextCall): Promise<Outcome>;
}
