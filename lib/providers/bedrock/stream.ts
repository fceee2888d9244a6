// Bedrock's streamed answers as events for the relay: AWS event-stream frames (lib/providers/event-stream.ts), not
// SSE. An exception frame (`throttlingException`, `modelStreamErrorException`, …) ends the stream as the upstream's
// failure, in the client's dialect: an Anthropic client gets the error type it retries on, where there is one.
import type { SseEvent, SseSource } from "@/lib/platform/sse";
import { GatewayError } from "@/lib/platform/errors";
import { converseStreamEvents, invokeStreamEvents, isBedrockException, readEventStream } from "@/lib/providers/event-stream";

const ANTHROPIC_TYPE: Record<string, string> = {
  throttlingException: "rate_limit_error",
  serviceUnavailableException: "overloaded_error",
  modelNotReadyException: "overloaded_error",
};

async function* raising(events: AsyncGenerator<SseEvent, void, undefined>): AsyncGenerator<SseEvent, void, undefined> {
  for await (const event of events) {
    if (!isBedrockException(event)) {
      yield event;
      continue;
    }
    // Only the exception's name goes on: Bedrock's words may name the account or the model's quota.
    const name = event.event!;
    throw new GatewayError("upstream_error", `The upstream failed mid-stream (${name}).`, {
      vendor: { type: ANTHROPIC_TYPE[name] ?? "api_error" },
    });
  }
}

/** InvokeModelWithResponseStream: each chunk's Messages event, named by its type. */
export function invokeEvents(body: SseSource, signal: AbortSignal): AsyncGenerator<SseEvent, void, undefined> {
  return raising(invokeStreamEvents(readEventStream(body, signal)));
}

/** ConverseStream: each event's payload, named by its `:event-type` (messageStart … metadata). */
export function converseEvents(body: SseSource, signal: AbortSignal): AsyncGenerator<SseEvent, void, undefined> {
  return raising(converseStreamEvents(readEventStream(body, signal)));
}
