// Sends the events of one response as server-sent events (docs/api.md §6), whatever produced them: numbers every event
// (`sequence_number` 0, 1, 2, ... with keepalives in the count), sends a `keepalive` event whenever the source has been
// quiet for `keepaliveMs` (so proxies keep the connection open through generations of up to two minutes), ends a
// broken stream with `response.failed`, and learns which images reached the client. A large event may come as parts
// that go out while the upstream sends them (lib/wire/raw-event.ts); no keepalive fits inside one, and a failure in
// the middle of one cuts the connection, since half an event has been sent and SSE cannot take it back.
//
// Delivery: the body is pulled with a high-water mark of 0, so the next pull only comes when the server has written
// the previous chunk and wants another one (lib/platform/http/node-adapter.ts writes, waits for drain, then reads). An image is
// counted as delivered when the pull after its event arrives; a client that leaves while an image is still being
// written is not charged for it (an event sent in parts counts at the pull after its last part). Nothing is buffered
// beyond the event being sent, or the part of it (docs/decisions/0006-streams-never-buffered.md).
import { GatewayError } from "@/lib/platform/errors";
import { encodeSse } from "@/lib/platform/sse";
import { log } from "@/lib/platform/log";
import { streamStarted } from "@/lib/platform/metrics";
import { failedEvent, keepaliveEvent, PREVIEW, RESPONSE_EVENT, TERMINAL_EVENTS, type ResponsesEvent } from "@/lib/wire/responses-events";
import type { DeliveredImages, ResponsesSource } from "@/lib/providers/responses-types";
import { OutputMeter } from "@/lib/money/meter";
import { isImageData, joinAroundRaw, RawString, stringifyAroundRaw } from "@/lib/wire/raw-json";
import { isEventPart, type EventPart } from "@/lib/wire/raw-event";

const encoder = new TextEncoder();

export type ResponsesStreamEnd = {
  /** response.completed reached the client. */
  complete: boolean;
  clientGone: boolean;
  error: string | null;
  /** The finished images and progress images that reached the client. */
  delivered: DeliveredImages;
  /** The text model's output the client received, by the delivered-output meter (lib/money/meter.ts). */
  metered: number;
  /** Events sent, keepalives included. */
  events: number;
  keepalives: number;
};

/**
 * One SSE event as bytes. The images an event carries (a partial image, an item's result, the finished images a
 * response lists: several MB each) are RawStrings (lib/wire/raw-json.ts) or strings; the event is serialised with a
 * marker in place of each and written around them into one buffer, so each image is copied once, into the bytes
 * that go out, and never into a large intermediate JSON string.
 */
export function encodeEvent(event: ResponsesEvent): Uint8Array[] {
  let shaped: ResponsesEvent = event;
  const response = event.response as { output?: Record<string, unknown>[] } | undefined;
  if (response && Array.isArray(response.output) && response.output.some((item) => typeof item.result === "string" && item.result !== "")) {
    const output = response.output.map((item) =>
      typeof item.result === "string" && item.result !== "" ? { ...item, result: new RawString(item.result) } : item,
    );
    shaped = { ...event, response: { ...response, output } };
  }
  if (typeof event.partial_image_b64 === "string" && event.partial_image_b64.length > 4096)
    shaped = { ...shaped, partial_image_b64: new RawString(event.partial_image_b64) };
  const item = event.item as Record<string, unknown> | undefined;
  if (item && typeof item.result === "string" && item.result.length > 4096)
    shaped = { ...shaped, item: { ...item, result: new RawString(item.result) } };
  const { text, raws } = stringifyAroundRaw(shaped);
  const sse = encodeSse({ event: event.type, data: text });
  return raws.length ? joinAroundRaw(sse, raws) : [encoder.encode(sse)];
}

/**
 * The image item an event carries, if any: the finished image (a partial_image that is the whole image, docs/api.md
 * §2.5, or the item's done event with its result), or a progress image (a partial_image marked PREVIEW).
 */
export function deliveredImageOf(event: ResponsesEvent): { item: string; preview: boolean } | null {
  if (event.type === RESPONSE_EVENT.partialImage && typeof event.item_id === "string" && isImageData(event.partial_image_b64))
    return { item: event.item_id, preview: event[PREVIEW] === true };
  if (event.type === RESPONSE_EVENT.itemDone) {
    const item = event.item as { id?: unknown; type?: unknown; result?: unknown } | undefined;
    if (item?.type === "image_generation_call" && typeof item.id === "string" && isImageData(item.result))
      return { item: item.id, preview: false };
  }
  return null;
}

type Next = { value: IteratorResult<ResponsesEvent | EventPart, void> } | { error: unknown } | "quiet";

/** Waits for the next event, or for `ms` of silence, whichever comes first; the pending event is kept for later. */
function nextOrQuiet(pending: Promise<IteratorResult<ResponsesEvent | EventPart, void>>, ms: number): Promise<Next> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("quiet"), ms);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve({ value });
      },
      (error) => {
        clearTimeout(timer);
        resolve({ error });
      },
    );
  });
}

/** What the client may read about a failure: a GatewayError's own message, never an internal one. */
function failureOf(error: unknown): { code: string; message: string } {
  if (error instanceof GatewayError) return { code: error.code === "internal_error" ? "server_error" : error.code, message: error.message };
  log.error("responses stream failed", { error });
  return { code: "server_error", message: "The gateway hit an internal error while streaming. It has been logged." };
}

/** How long a source may stay silent (keepalives aside) before the response fails: docs/api.md §8 observes up to 2 minutes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export function responsesStream(options: {
  source: ResponsesSource;
  keepaliveMs: number;
  /** Silence after which the upstream counts as hung: the response fails and the upstream is aborted. */
  idleTimeoutMs?: number;
  onClose: (end: ResponsesStreamEnd) => void;
}): ReadableStream<Uint8Array> {
  const { source, keepaliveMs } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let lastEventAt = performance.now();
  const delivered = { images: new Set<string>(), previews: new Map<string, number>() };
  let awaitingDelivery: { item: string; preview: boolean }[] = [];
  const meter = new OutputMeter();
  let pending: Promise<IteratorResult<ResponsesEvent | EventPart, void>> | null = null;
  /** An event is being sent as it arrives (lib/wire/raw-event.ts): nothing else may go out until its end. */
  let inEvent = false;
  let sequence = 0;
  let keepalives = 0;
  let lastResponse: Record<string, unknown> | null = null;
  let terminal: string | null = null;
  let failure: string | null = null;
  let closed = false;
  const ended = streamStarted();

  const finish = (end: { complete: boolean; clientGone: boolean; error: string | null }) => {
    if (closed) return;
    closed = true;
    ended();
    // The source may still hold an upstream body or a timer: end it (its signal was aborted by the caller if needed).
    void source.events.return(undefined).catch(() => undefined);
    options.onClose({ ...end, delivered, metered: meter.tokens(), events: sequence, keepalives });
  };

  /** Queues one event (its parts: an image is written as the pieces it arrived in). The next pull comes only once the
   *  whole queue has been written, so delivery is still counted per event. */
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, event: ResponsesEvent) => {
    for (const part of encodeEvent({ ...event, sequence_number: sequence++ })) controller.enqueue(part);
  };

  /** What the stream learns from an event that is going out: the response so far, its end, the image it carries. */
  const observe = (event: ResponsesEvent) => {
    if (
      (event.type === RESPONSE_EVENT.created || event.type === RESPONSE_EVENT.inProgress) &&
      typeof event.response === "object" &&
      event.response
    )
      lastResponse = event.response as Record<string, unknown>;
    if (TERMINAL_EVENTS.has(event.type)) {
      terminal = event.type;
      if (event.type === RESPONSE_EVENT.failed) {
        const error = (event.response as { error?: { message?: unknown } } | undefined)?.error;
        failure = typeof error?.message === "string" ? error.message : `The response ended as ${event.type}`;
      }
    }
    const image = deliveredImageOf(event);
    if (image) awaitingDelivery.push(image);
    meter.responsesEvent(event);
  };

  /** The response fails: with a response.failed event, or, in the middle of an event that is going out as it arrives
   *  (half of it sent already), by cutting the connection, the only signal left (the client sees an error). */
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, code: string, message: string) => {
    failure = message;
    terminal = RESPONSE_EVENT.failed;
    if (!inEvent) return send(controller, failedEvent(lastResponse, code, message));
    finish({ complete: false, clientGone: false, error: message });
    controller.error(new Error(message));
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // The previous chunk has been written: the images it carried reached the client.
        for (const { item, preview } of awaitingDelivery) {
          if (!preview) delivered.images.add(item);
          else delivered.previews.set(item, (delivered.previews.get(item) ?? 0) + 1);
        }
        awaitingDelivery = [];
        if (closed) return;
        if (terminal) {
          controller.close();
          // An incomplete response ended as designed (at a limit): it is settled like a completed one.
          finish({
            complete: terminal === RESPONSE_EVENT.completed || terminal === RESPONSE_EVENT.incomplete,
            clientGone: false,
            error: failure,
          });
          return;
        }
        // Quiet in the middle of an event sent as it arrives: no keepalive can go out there, so wait on.
        for (;;) {
          pending ??= source.events.next();
          const next = await nextOrQuiet(pending, Math.min(keepaliveMs, Math.max(1, idleTimeoutMs - (performance.now() - lastEventAt))));
          if (closed) return;
          if (next === "quiet" && performance.now() - lastEventAt >= idleTimeoutMs) {
            pending.catch(() => undefined);
            fail(
              controller,
              "upstream_timeout",
              `The upstream sent nothing for ${idleTimeoutMs < 10_000 ? Math.round(idleTimeoutMs / 100) / 10 : Math.round(idleTimeoutMs / 1000)} s`,
            );
            return;
          }
          if (next === "quiet") {
            if (inEvent) continue;
            keepalives++;
            send(controller, keepaliveEvent());
            return;
          }
          pending = null;
          lastEventAt = performance.now();
          if ("error" in next || next.value.done) {
            const problem =
              "error" in next
                ? failureOf(next.error)
                : { code: "server_error", message: "The upstream ended the stream before the response was complete" };
            fail(controller, problem.code, problem.message);
            return;
          }
          const value = next.value.value;
          if (!isEventPart(value)) {
            observe(value);
            send(controller, value);
            return;
          }
          if (value.part === "start") {
            inEvent = true;
            controller.enqueue(encoder.encode(`event: ${value.type}\ndata: ${value.text}`));
            return;
          }
          if (value.part === "bytes") {
            for (const bytes of value.bytes) controller.enqueue(bytes);
            if (value.bytes.length) return;
            continue;
          }
          inEvent = false;
          // The event's own text ends with its closing brace: the gateway's sequence number goes in before it.
          controller.enqueue(encoder.encode(`${value.text.slice(0, -1)},"sequence_number":${sequence++}}\n\n`));
          observe(value.event as ResponsesEvent);
          return;
        }
      },
      cancel() {
        pending?.catch(() => undefined);
        finish({ complete: false, clientGone: true, error: "The client closed the connection" });
      },
    },
    { highWaterMark: 0 },
  );
}
