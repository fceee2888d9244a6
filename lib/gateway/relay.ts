// Tries the channels that serve a model in order (docs/decisions/0007-upstreams-are-adapters.md): a retryable failure before the
// first byte reaches the client moves on to the next; an upstream refusing the channel's key switches the
// channel off. The winning attempt's usage settles the reservation when the response has been delivered.
import { GatewayError, type ErrorCode } from "@/lib/platform/errors";
import { log } from "@/lib/platform/log";
import { observeAttempt, observeFailover, observeUpstreamError } from "@/lib/platform/metrics";
import { channelsFor, disableChannel, type Channel } from "@/lib/channels";
import { TELEMETRY_NAMES } from "@/lib/providers";
import type { Outcome, UpstreamFailure } from "@/lib/providers/types";
import type { GatewayContext } from "./pipeline";
import type { Reservation } from "@/lib/money/reserve";

export type Attempt<T extends { ok: true }> = (channel: Channel) => Promise<T | UpstreamFailure>;

export async function withFailover<T extends { ok: true }>(
  context: GatewayContext,
  model: string,
  reservation: Reservation,
  attempt: Attempt<T>,
  /** The channels to try, when the caller chose them already (an edit sent upstream while it was uploaded). */
  candidates?: Channel[],
): Promise<{ channel: Channel; result: T }> {
  try {
    return await tryChannels(context, model, reservation, attempt, candidates);
  } catch (error) {
    // Whatever ends the attempts without an answer (an adapter refusing the request with a 400, a failed channel
    // lookup) gives the reservation back; release() settles once, so the paths below that released already win.
    reservation.release({
      status: "error",
      httpStatus: error instanceof GatewayError ? error.status : 500,
      error: error instanceof Error ? error.message : "failed",
    });
    throw error;
  }
}

async function tryChannels<T extends { ok: true }>(
  context: GatewayContext,
  model: string,
  reservation: Reservation,
  attempt: Attempt<T>,
  chosen: Channel[] | undefined,
): Promise<{ channel: Channel; result: T }> {
  // A reservation made for some channels only (price modifiers that only they pass on) is tried on those.
  const candidates = chosen ?? reservation.channels ?? (await channelsFor(model));
  if (!candidates.length) {
    reservation.release({ status: "error", httpStatus: 503, error: "no enabled channel" });
    throw new GatewayError("no_channel", `No enabled channel serves the model '${model}'`);
  }
  let last: { channel: Channel; failure: UpstreamFailure } | null = null;
  // The ledger row's timing (docs/api.md, "The operator's ledger"): when the first attempt started, when an answer started.
  if (context.upstreamAt === undefined) context.upstreamAt = performance.now();
  for (let index = 0; index < candidates.length; index++) {
    const channel = candidates[index]!;
    let result: T | UpstreamFailure;
    const attemptAt = performance.now();
    const span = context.trace ? startAttemptSpan(context, model, channel) : undefined;
    try {
      result = await attempt(channel);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      // An adapter that throws on an answer it could not read: nothing reached the client, so another channel may.
      log.error("upstream attempt threw", { requestId: context.requestId, channel: channel.name, error });
      result = { ok: false, retryable: true, status: 502, message: "The upstream's answer could not be read", cause: "unreadable" };
    }
    const waited = performance.now() - attemptAt;
    context.upstreamMs = (context.upstreamMs ?? 0) + waited;
    observeAttempt(model, channel.name, result.ok, attemptAt);
    if (span) {
      // The answer's start: for a stream its headers (the first byte), else the whole answer.
      const timing = { "gateway.upstream.time_to_first_byte_ms": Math.round(waited * 100) / 100 };
      if (result.ok) context.trace!.attemptServing(span, timing);
      else {
        // The upstream's own status where it answered with one (the cause `upstream_503`), else only why it failed.
        const answered = /^upstream_(\d{3})$/.exec(result.cause);
        context.trace!.attemptFailed(
          span,
          { ...timing, "error.type": result.cause, ...(answered ? { "http.response.status_code": Number(answered[1]) } : {}) },
          result.message.slice(0, 300),
        );
      }
    }
    if (result.ok) {
      if (context.answeredAt === undefined) context.answeredAt = performance.now();
      return { channel, result };
    }
    last = { channel, failure: result };
    observeUpstreamError(channel.name, result.cause);
    log.warn("upstream attempt failed", {
      requestId: context.requestId,
      channel: channel.name,
      status: result.status,
      cause: result.cause,
      message: result.message,
      detail: result.detail,
    });
    if (result.disable) await disableChannel(channel, result.disable);
    if (!result.retryable || context.request.signal.aborted) break;
    // Moving on to the next channel: the row names this one and why (no secrets: the upstream's message, capped).
    if (index < candidates.length - 1) {
      observeFailover(model, channel.name);
      (context.failovers ??= []).push({
        channelId: channel.id,
        channel: channel.name,
        status: result.status,
        error: result.message.slice(0, 300),
        ms: Math.round(performance.now() - context.startedAt),
      });
    }
  }
  const { channel, failure } = last!;
  // Nothing reached the client: the whole reservation goes back (SECURITY.md: failures before output cost nothing). The row records the failure.
  reservation.release({
    channel: { id: channel.id, name: channel.name },
    status: "error",
    httpStatus: failure.status,
    error: failure.message,
    stream: false,
  });
  throw upstreamError(failure);
}

/** An attempt's span: the GenAI conventions' client span, named "{operation} {model}", with the channel (its host, not
 *  its URL or key) and the model name sent upstream. */
function startAttemptSpan(context: GatewayContext, model: string, channel: Channel) {
  const operation = context.operation ?? "request";
  const upstreamModel = channel.modelMapping[model] ?? model;
  return context.trace!.attempt(`${operation} ${upstreamModel}`, {
    "gen_ai.operation.name": operation,
    "gen_ai.provider.name": TELEMETRY_NAMES[channel.type],
    "gen_ai.request.model": upstreamModel,
    "gateway.channel.id": channel.id,
    "gateway.channel.name": channel.name,
    ...hostOf(channel),
  });
}

/** A channel's host, read from its base URL once per loaded channel (the channel list is reloaded on change). */
const hosts = new WeakMap<Channel, { "server.address"?: string }>();
function hostOf(channel: Channel): { "server.address"?: string } {
  let host = hosts.get(channel);
  if (!host) {
    try {
      host = { "server.address": new URL(channel.baseUrl).hostname };
    } catch {
      host = {};
    }
    hosts.set(channel, host);
  }
  return host;
}

export function upstreamError(failure: UpstreamFailure): GatewayError {
  const code: ErrorCode =
    failure.status === 429
      ? "rate_limited"
      : failure.status === 504
        ? "upstream_timeout"
        : failure.status === 404
          ? "not_found"
          : failure.status < 500
            ? "invalid_request"
            : "upstream_error";
  return new GatewayError(code, failure.message, {
    status: failure.status === 499 ? 400 : failure.status,
    headers: failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
    vendor: failure.vendor,
  });
}

/** Settles when the upstream's usage is known (at once, or when a stream ends or is cut). */
export function settleWhenDone(
  reservation: Reservation,
  channel: Channel,
  outcome: Extract<Outcome, { ok: true }>,
  stream: boolean,
  usageOf: (report: Awaited<Extract<Outcome, { ok: true }>["usage"]>) => Parameters<Reservation["settle"]>[0]["usage"],
): void {
  outcome.usage.then(
    (report) =>
      reservation.settle({
        usage: usageOf(report),
        channel: { id: channel.id, name: channel.name },
        status: report.complete ? "success" : report.clientGone ? "cancelled" : "error",
        httpStatus: 200,
        error: report.error ?? null,
        stream,
        // Which rule set the output charged (docs/billing.md): the upstream's report, or the delivered-output meter.
        detail: { rule: report.rule },
      }),
    (error) => {
      log.error("usage report failed", { error });
      reservation.release({ channel: { id: channel.id, name: channel.name }, error: "usage unknown" });
    },
  );
}
