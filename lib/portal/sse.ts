// Reads a server-sent event stream in the browser as it arrives (the playground's Responses run and streamed chat).
// Parsing is eventsource-parser's, which has no line-length limit: one partial-image event may be megabytes.
import { createParser } from "eventsource-parser";

export type StreamEvent = {
  /** The `event:` name, else the JSON payload's `type`, else "message". A comment line counts as "keepalive". */
  type: string;
  /** The parsed JSON payload, or null when `data` is not JSON (e.g. "[DONE]"). */
  payload: Record<string, unknown> | null;
  data: string;
  /** The SSE comment text, for comment lines. */
  comment?: string;
};

/** Calls `onEvent` for every event of `response`'s body until it ends; rejects when reading fails or is aborted. */
export async function readEventStream(response: Response, onEvent: (event: StreamEvent) => void): Promise<void> {
  if (!response.body) return;
  const parser = createParser({
    onEvent(message) {
      let payload: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(message.data);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
      } catch {
        payload = null;
      }
      const type = message.event ?? (typeof payload?.type === "string" ? payload.type : "message");
      onEvent({ type, payload, data: message.data });
    },
    onComment(comment) {
      onEvent({ type: "keepalive", payload: null, data: "", comment });
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
