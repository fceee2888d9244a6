// What an upstream does for /v1/responses: produce the event stream of one response. Three ways exist: the simulator
// (lib/providers/simulator/responses.ts), an upstream with the vendor's own Responses API (lib/providers/openai/
// responses.ts), and the gateway's tool loop over any Chat Completions or Messages upstream
// (lib/gateway/responses/tool-loop.ts). Each yields the same events; lib/gateway/responses/stream.ts sends them.
import type { Channel } from "@/lib/channels";
import type { ResponsesEvent } from "@/lib/wire/responses-events";
import type { EventPart } from "@/lib/wire/raw-event";
import type { InputImage, ResponsesRequest } from "@/lib/wire/responses-request";
import type { InputImageFiles } from "@/lib/gateway/responses/files";
import type { ImageUsage } from "@/lib/money/image-usage";
import type { UpstreamFailure } from "./types";

export type ResponsesCall = {
  channel: Channel;
  publicModel: string;
  upstreamModel: string;
  request: ResponsesRequest;
  /** The request's inline images, decoded, in order (the first one is what an edit changes). */
  images: InputImage[];
  /** The same images as temporary files, written on first use (edits read files). */
  files: InputImageFiles;
  /** The gateway's count of the text model's input, for when an upstream reports none (every text counted; worked
   *  out on first read). */
  readonly inputTokens: number;
  /** The client's headers (vendor version headers are passed on; never its key). */
  headers: Headers;
  /** Aborted when the client goes away: every upstream request and timer stops. */
  signal: AbortSignal;
};

/** What reached the client of a response's images: the finished ones, and the progress images of each item. */
export type DeliveredImages = { images: ReadonlySet<string>; previews: ReadonlyMap<string, number> };

/** What a response used so far, for the two-part settlement (docs/api.md §1: text model tokens + image tool tokens). */
export type ResponsesUsage = {
  text: { inputTokens: number; outputTokens: number };
  /** Only images that reached the client: finished ones in full, and the progress images of one cut before it was
   *  finished at the vendor's flat rate per progress image (docs/billing.md). */
  image: ImageUsage;
  imagesGenerated: number;
  imagesDelivered: number;
  previewsDelivered: number;
  /** Extra facts for the ledger row (which path, how many rounds, the sizes). */
  detail: Record<string, unknown>;
};

export type ResponsesSource = {
  /** The events in order, without sequence numbers; a throw after the start ends the stream with response.failed (or
   *  cuts it, in the middle of an event). A large event may come as its parts, sent as they arrive (lib/wire/raw-event.ts). */
  events: AsyncGenerator<ResponsesEvent | EventPart, void, undefined>;
  /** What was used so far, given the images that reached the client. */
  usage(delivered: DeliveredImages): ResponsesUsage;
};

export type ResponsesOutcome = { ok: true; source: ResponsesSource } | UpstreamFailure;
