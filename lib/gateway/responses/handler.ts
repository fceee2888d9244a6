// POST /v1/responses (docs/api.md §2.4, §2.5, §6, §7): a text model (std-5.5) that calls the image generation tool, always
// streamed. Validate everything first (lib/wire/responses-request.ts; a bad request is a 400 that costs nothing),
// authorise both models, filter the prompt, reserve the upper bound of both parts, then pick a channel for the text
// model and stream:
//   simulator channel                         -> lib/providers/simulator/responses.ts
//   openai channel with settings.responsesApi -> lib/providers/openai/responses.ts (the vendor's stream, relayed)
//   any other openai or anthropic channel     -> lib/gateway/responses/tool-loop.ts (the gateway runs the tool loop)
// Billing is two parts in one ledger row (docs/api.md §1): the text model's tokens at std-5.5 prices and the image tool's
// tokens at std-image-2 prices, settled when the stream ends; a stream cut by either side pays for the images that
// reached the client and the text used so far.
import { env } from "@/lib/platform/env";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { IMAGE_MODEL, TEXT_MODEL } from "@/lib/catalog/models";
import { priceOf } from "@/lib/money/prices";
import { countForCharge } from "@/lib/money/tokens";
import { textInputBound } from "@/lib/money/reservation";
import { GatewayError } from "@/lib/platform/errors";
import type {} from "@/lib/images/inspect";
import { checkPrompt } from "@/lib/moderation/store";
import { authoriseModel, gatewayRoute } from "@/lib/gateway/pipeline";
import { requirePrice, reserve, type Reservation } from "@/lib/money/reserve";
import { withFailover } from "@/lib/gateway/relay";
import { upstreamModel, type Channel } from "@/lib/channels";
import { SSE_HEADERS } from "@/lib/providers/sse-relay";
import { textResponses } from "./text";
import { responsesBody } from "./body";
import {
  decodeInputImages,
  inspectInputImageHeaders,
  parseResponsesRequest,
  userText,
  type InputImage,
  type ResponsesRequest,
} from "@/lib/wire/responses-request";
import { countResponsesInputTokens } from "./tool";
import { readTextRequest } from "@/lib/gateway/text-request";
import { InputImageFiles } from "./files";
import { responsesStream } from "./stream";
import { startToolLoop } from "./tool-loop";
import type { ResponsesCall, ResponsesOutcome } from "@/lib/providers/responses-types";
import { RESPONSES_LIMITS, responsesUpperBound } from "@/lib/money/reservation";
import { chargeOutput } from "@/lib/money/meter";
import { providerOf } from "@/lib/providers";

/** Heartbeat interval while nothing else is sent (docs/api.md, "§6 Events": keepalive heartbeats). Channel setting `keepaliveMs` wins over the env. */
export const DEFAULT_KEEPALIVE_MS = 10_000;
const MIN_KEEPALIVE_MS = 10;
export function keepaliveMsFor(channel: Channel): number {
  const setting = Number(channel.settings.keepaliveMs);
  if (Number.isFinite(setting) && setting > 0) return Math.max(MIN_KEEPALIVE_MS, setting);
  return env().GATEWAY_RESPONSES_KEEPALIVE_MS ?? DEFAULT_KEEPALIVE_MS;
}

function attempt(
  call: ResponsesCall,
  context: Parameters<typeof startToolLoop>[0],
  imageReservation: Reservation,
): Promise<ResponsesOutcome> {
  return providerOf(call.channel.type).responses(call) ?? startToolLoop(context, call, imageReservation);
}

/** The least any request reserves: no input, the smallest low-quality image per allowed call (see paidBodyWatch). */
async function leastReservation(): Promise<number> {
  const [textPrice, imagePrice] = await Promise.all([priceOf(TEXT_MODEL), priceOf(IMAGE_MODEL)]);
  if (!textPrice || !imagePrice) return 1;
  // The smallest image allowed (655,360 pixels) at low quality.
  const smallest = { tool: { size: { width: 1024, height: 640, auto: false }, quality: "low", fields: {} } } as unknown as ResponsesRequest;
  return responsesUpperBound(smallest, [], 0, textPrice, imagePrice);
}

export const responses = gatewayRoute(
  { endpoint: "/v1/responses", dialect: "openai", scheme: "bearer", operation: "chat" },
  async (context) => {
    // Money before work (lib/money/body-funds.ts): a large body is read only as far as its payer can cover it.
    const watch = paidBodyWatch(context, { least: await leastReservation() });
    // Parsed, checked and counted (a large body's count on a worker: lib/gateway/text-request.ts).
    const read = await readTextRequest(context.request, responsesBody, { watch, limit: env().GATEWAY_MAX_BODY_BYTES });
    const raw = read.body;
    // Without the image tool: a text (and function tools) response, served like chat (lib/gateway/responses/text.ts).
    if (!read.imageTool) return textResponses(context, raw, { inputTokens: read.inputTokens, stats: read.stats, bytes: read.sizeBytes! });
    const request = parseResponsesRequest(raw);
    // Both parts are checked: the key's group must include the text model and the image model.
    await authoriseModel(context.principal, request.model);
    await authoriseModel(context.principal, IMAGE_MODEL);
    const prompt = userText(request.messages);
    if (prompt) await checkPrompt(prompt, request.tool.moderation);
    const textPrice = await requirePrice(request.model);
    const imagePrice = await requirePrice(IMAGE_MODEL);
    const { inputTokens, stats } = read;
    const countInput = countForCharge(inputTokens, stats, () => countResponsesInputTokens(request));
    const inputBound = textInputBound(inputTokens, { bytes: read.sizeBytes!, items: request.messages.length + 3 }, stats);
    // Money before work: the images' headers size the reservation; they are decoded only once it is made.
    const headers = await inspectInputImageHeaders(request.images);
    const reservation = await reserve(
      context,
      request.model,
      textPrice,
      responsesUpperBound(request, headers, inputBound, textPrice, imagePrice),
    );
    let images: InputImage[];
    try {
      images = await decodeInputImages(request.images);
    } catch (error) {
      if (error instanceof GatewayError) reservation.cancel();
      else reservation.release({ status: "error", httpStatus: 500, error: error instanceof Error ? error.message : "failed" });
      throw error;
    }

    const files = new InputImageFiles(images);
    const abort = new AbortController();
    const onClientGone = () => abort.abort(new Error("client disconnected"));
    if (context.request.signal.aborted) onClientGone();
    else context.request.signal.addEventListener("abort", onClientGone, { once: true });
    const stop = () => {
      context.request.signal.removeEventListener("abort", onClientGone);
      abort.abort(new Error("response ended"));
      void files.cleanup();
    };
    // withFailover releases the whole reservation when no channel works; the tool loop's image calls must not (images
    // already delivered are owed), so they get a handle whose release does nothing and the one settlement below decides.
    const imageReservation: Reservation = { ...reservation, settle: () => 0, release: () => undefined, cancel: () => undefined };

    try {
      const { channel, result } = await withFailover(context, request.model, reservation, (candidate) =>
        attempt(
          {
            channel: candidate,
            publicModel: request.model,
            upstreamModel: upstreamModel(candidate, request.model, request.model),
            request,
            images,
            files,
            get inputTokens() {
              return countInput();
            },
            headers: context.request.headers,
            signal: abort.signal,
          },
          context,
          imageReservation,
        ),
      );
      const { source } = result;
      const body = responsesStream({
        source,
        keepaliveMs: keepaliveMsFor(channel),
        idleTimeoutMs: Number(channel.settings.idleTimeoutMs) > 0 ? Number(channel.settings.idleTimeoutMs) : undefined,
        onClose(end) {
          stop();
          const used = source.usage(end.delivered);
          // The text model's output: what the source reported, and for a response that did not complete at least what
          // reached the client, up to the text output the reservation covers (docs/billing.md).
          const text = chargeOutput({
            complete: end.complete,
            reported: used.text.outputTokens,
            metered: () => end.metered,
            outputCap: RESPONSES_LIMITS.turnOutputTokens * RESPONSES_LIMITS.rounds,
          });
          reservation.settle({
            usage: {
              textInputTokens: used.text.inputTokens,
              textOutputTokens: text.outputTokens,
              imageInputTokens: 0,
              imageOutputTokens: 0,
            },
            extra: { model: IMAGE_MODEL, price: imagePrice, usage: used.image },
            channel: { id: channel.id, name: channel.name },
            status: end.complete ? "success" : end.clientGone ? "cancelled" : "error",
            httpStatus: 200,
            error: end.error,
            stream: true,
            detail: {
              ...used.detail,
              imagesGenerated: used.imagesGenerated,
              imagesDelivered: used.imagesDelivered,
              ...(used.previewsDelivered ? { previewsDelivered: used.previewsDelivered } : {}),
              rule: text.rule,
              events: end.events,
              keepalives: end.keepalives,
            },
          });
        },
      });
      return new Response(body, { status: 200, headers: SSE_HEADERS });
    } catch (error) {
      // withFailover has released already when every channel failed; anything else must not keep the money.
      reservation.release({ error: error instanceof Error ? error.message : "failed" });
      stop();
      throw error;
    }
  },
);
