// `openai` channels with the vendor's own Responses API (channel settings `responsesApi: true`): the request goes to
// POST {baseUrl}/responses (https://platform.openai.com/docs/api-reference/responses/create) and the event stream
// comes back event by event (https://platform.openai.com/docs/api-reference/responses-streaming). Events of several
// megabytes (a partial_image carries a whole image) go out while they arrive, their images passed on as the bytes
// received (lib/wire/raw-event.ts); small events, and an item whose partial image the gateway must add first, are
// parsed whole, one at a time.
//
// On the way through: the upstream's sequence numbers are replaced by the gateway's (it adds keepalives), the public
// model name replaces the upstream's, a finished image that came without a partial_image event gets one (clients of
// this service read each partial_image as one finished image, docs/api.md §6), and usage is read from response.completed.
// A stream cut before response.completed is billed from what was seen: the gateway's input count, the rewritten
// prompts as output, and each delivered image at its size and quality (lib/money/image-usage.ts).
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { countTextTokens } from "@/lib/money/tokens";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { readSseRaw, TruncatedStreamError } from "@/lib/platform/sse";
import { isImageData, parseWithRaw } from "@/lib/wire/raw-json";
import { EventRewriter, RawEventError, type EventPart } from "@/lib/wire/raw-event";
import { AUTO_SIZE, checkImageSize } from "@/lib/images/size";
import { addImageUsage, imageUsage, previewsUsage, type ImageUsage } from "@/lib/money/image-usage";
import { PREVIEW, RESPONSE_EVENT, TERMINAL_EVENTS, type ResponsesEvent } from "@/lib/wire/responses-events";
import { discardUpstreamBody, joinUrl, upstreamBody, upstreamFetch } from "@/lib/providers/http";
import { usageFromUpstream } from "@/lib/providers/images-api";
import type { ResponsesCall, ResponsesOutcome, ResponsesUsage } from "@/lib/providers/responses-types";
import { RESPONSES_LIMITS } from "@/lib/money/reservation";

const count = z.number().int().min(0).finite();
const tokenDetails = z.looseObject({ text_tokens: count.optional(), image_tokens: count.optional() }).nullish();
const completedSchema = z.looseObject({
  usage: z.looseObject({ input_tokens: count.optional(), output_tokens: count.optional() }).nullish(),
  tool_usage: z
    .looseObject({
      image_gen: z
        .looseObject({
          input_tokens: count.optional(),
          input_tokens_details: tokenDetails,
          output_tokens: count.optional(),
          output_tokens_details: tokenDetails,
        })
        .nullish(),
    })
    .nullish(),
});

/** The validated input, rebuilt in the vendor's shape: only what the gateway checked, nothing else from the body. */
function upstreamInput(call: ResponsesCall): unknown[] {
  const { messages, images } = call.request;
  return messages.map((message) => {
    if (message.role !== "user") {
      return { role: message.role, content: message.content.map((part) => (part.type === "input_image" ? "" : part.text)).join("") };
    }
    return {
      role: "user",
      content: message.content.map((part) =>
        part.type === "input_image" ? { type: "input_image", image_url: images[part.image]!.uri } : { type: "input_text", text: part.text },
      ),
    };
  });
}

function imageSizeOf(size: unknown, fallback: { width: number; height: number }): { width: number; height: number } {
  if (typeof size !== "string") return fallback;
  const check = checkImageSize(size);
  return check.ok && !check.auto ? { width: check.width, height: check.height } : fallback;
}

/** The fields of a Responses event that hold an image's base64. */
const IMAGE_FIELDS = ["partial_image_b64", "result"] as const;
/** An image value is kept as bytes (or passed on as it arrives) from this length on; shorter ones are parsed. */
const IMAGE_MIN_BYTES = 4096;
/** Events shorter than this are held and parsed whole; in longer ones images go out as they arrive. */
const STREAM_AFTER_BYTES = 64 * 1024;

type SeenImage = { size?: unknown; quality?: unknown; revisedPrompt?: string };

export async function openaiResponses(call: ResponsesCall): Promise<ResponsesOutcome> {
  const { request, channel } = call;
  const tool: Record<string, string | number> = { ...request.tool.fields };
  const mappedImageModel = channel.modelMapping[IMAGE_MODEL];
  if (mappedImageModel) tool.model = mappedImageModel;
  // The limits the reservation counted go upstream with the request (docs/billing.md): the text output of all rounds
  // and one tool call per image.
  const body = {
    model: call.upstreamModel,
    instructions: request.instructions,
    input: upstreamInput(call),
    tools: [tool],
    stream: true,
    max_output_tokens: RESPONSES_LIMITS.turnOutputTokens * RESPONSES_LIMITS.rounds,
    max_tool_calls: RESPONSES_LIMITS.images,
  };
  const result = await upstreamFetch(
    joinUrl(channel.baseUrl, "responses"),
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...(channel.apiKey ? { authorization: `Bearer ${channel.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
    },
    { signal: call.signal, timeoutMs: Number(channel.settings.timeoutMs) || undefined },
  );
  if (!result.ok) return result;
  const { response, abort } = result;
  // Not `response.body` (see upstreamBody): the events below read the upstream's own stream.
  if (!/^text\/event-stream/i.test(response.headers.get("content-type") ?? "") || response.status === 204) {
    discardUpstreamBody(response);
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "The upstream answered /responses without an event stream",
      cause: "upstream_not_streaming",
    };
  }

  const seen = new Map<string, SeenImage>();
  const withPartial = new Set<string>();
  let completed: z.infer<typeof completedSchema> | null = null;
  const fallbackSize = request.tool.size.auto ? AUTO_SIZE : request.tool.size;

  /** The upstream's sequence numbers go (the gateway numbers the events it sends) and the public model names replace
   *  the upstream's. Each change is to the value it looks at, as the rewriter requires (lib/wire/raw-event.ts). */
  const edit = (event: Record<string, unknown>) => {
    delete event.sequence_number;
    const inner = event.response as { model?: unknown; tools?: { type?: unknown; model?: unknown }[] } | undefined;
    if (!inner || typeof inner !== "object") return;
    inner.model = call.publicModel;
    for (const entry of Array.isArray(inner.tools) ? inner.tools : [])
      if (entry?.type === "image_generation" && "model" in entry) entry.model = IMAGE_MODEL;
  };
  const rewriter = new EventRewriter({
    keys: IMAGE_FIELDS,
    minBytes: IMAGE_MIN_BYTES,
    streamAfter: STREAM_AFTER_BYTES,
    edit,
    // A finished image that came without a partial_image gets one, sent before it: that event is held whole.
    mayStream(start) {
      if (start.type !== RESPONSE_EVENT.itemDone) return true;
      const item = start.item as { id?: unknown; type?: unknown } | undefined;
      return item?.type === "image_generation_call" && typeof item.id === "string" && withPartial.has(item.id);
    },
  });

  /** What the gateway learns from an event (whole, or streamed and now complete); yields the partial image it adds. */
  function* observe(event: ResponsesEvent): Generator<ResponsesEvent, void, undefined> {
    if (event.type === RESPONSE_EVENT.partialImage && typeof event.item_id === "string") {
      // The vendor's partial images are progress images (asked for with partial_images); the finished image comes in
      // the item's done event, or in the partial image the gateway adds below.
      event[PREVIEW] = true;
      withPartial.add(event.item_id);
      seen.set(event.item_id, { ...seen.get(event.item_id), size: event.size, quality: event.quality });
    }
    if (event.type === RESPONSE_EVENT.itemDone) {
      const item = event.item as {
        id?: unknown;
        type?: unknown;
        result?: unknown;
        size?: unknown;
        quality?: unknown;
        revised_prompt?: unknown;
        output_format?: unknown;
        background?: unknown;
      };
      if (item?.type === "image_generation_call" && typeof item.id === "string") {
        seen.set(item.id, {
          size: item.size,
          quality: item.quality,
          revisedPrompt: typeof item.revised_prompt === "string" ? item.revised_prompt : undefined,
        });
        if (!withPartial.has(item.id) && isImageData(item.result)) {
          withPartial.add(item.id);
          yield {
            type: RESPONSE_EVENT.partialImage,
            output_index: event.output_index,
            item_id: item.id,
            partial_image_index: 0,
            partial_image_b64: item.result,
            background: item.background ?? "opaque",
            output_format: item.output_format ?? request.tool.outputFormat,
            quality: item.quality,
            size: item.size,
          };
        }
      }
    }
    if (event.type === RESPONSE_EVENT.completed) {
      const parsed = completedSchema.safeParse(event.response);
      completed = parsed.success ? parsed.data : {};
    }
  }

  /** One whole event's data, parsed with its images kept as the bytes received (lib/wire/raw-json.ts). */
  const parseWhole = (data: Buffer[]): ResponsesEvent => {
    let event: ResponsesEvent;
    try {
      event = parseWithRaw(data, IMAGE_FIELDS, IMAGE_MIN_BYTES) as ResponsesEvent;
    } catch {
      throw new GatewayError("upstream_error", "The upstream sent an event that is not JSON");
    }
    if (typeof event !== "object" || event === null || typeof event.type !== "string")
      throw new GatewayError("upstream_error", "The upstream sent an event without a type");
    edit(event);
    return event;
  };

  async function* events(): AsyncGenerator<ResponsesEvent | EventPart, void, undefined> {
    try {
      for await (const items of readSseRaw(upstreamBody(response), abort.signal)) {
        for (const item of items) {
          if ("data" in item) {
            // A large event's image goes out while it arrives: its parts are yielded as they are ready.
            yield* rewriter.write(item.data);
            continue;
          }
          const ended = rewriter.end();
          if ("held" in ended) {
            if (ended.length === 6 && Buffer.concat(ended.held).toString("latin1") === "[DONE]") continue;
            const event = parseWhole(ended.held);
            yield* observe(event);
            yield event;
            if (TERMINAL_EVENTS.has(event.type)) return;
            continue;
          }
          yield* observe(ended.event as ResponsesEvent);
          yield ended;
          if (TERMINAL_EVENTS.has(ended.event.type as string)) return;
        }
      }
    } catch (error) {
      if (call.signal.aborted) return;
      if (error instanceof GatewayError) throw error;
      if (error instanceof RawEventError)
        throw new GatewayError("upstream_error", `The upstream sent an event that is not JSON: ${error.message}`);
      if (error instanceof TruncatedStreamError)
        throw new GatewayError("upstream_error", "The upstream stream was cut in the middle of an event");
      throw new GatewayError("upstream_error", `The upstream stream was cut off: ${(error as Error).message}`);
    }
  }

  /** The gateway's own count of one image: its rewritten prompt as text input, its size and quality as output. */
  const estimate = (image: SeenImage): ImageUsage => {
    const { width, height } = imageSizeOf(image.size, fallbackSize);
    const quality =
      image.quality === "low" || image.quality === "medium" || image.quality === "high" ? image.quality : request.tool.quality;
    return imageUsage({ prompt: image.revisedPrompt ?? "", width, height, quality });
  };
  return {
    ok: true,
    source: {
      events: events(),
      usage(delivered): ResponsesUsage {
        const billed = [...seen].filter(([id]) => delivered.images.has(id)).map(([, image]) => image);
        // Cut after its progress images, before the finished one: those progress images, not the image.
        const previewed = [...seen].flatMap(([id, image]) => {
          const count = delivered.images.has(id) ? 0 : (delivered.previews.get(id) ?? 0);
          return count ? [previewsUsage(estimate(image), count)] : [];
        });
        const estimated = addImageUsage([...billed.map(estimate), ...previewed]);
        const final = completed as z.infer<typeof completedSchema> | null;
        const revisedTokens = billed.reduce((total, image) => total + countTextTokens(image.revisedPrompt ?? ""), 0);
        const reported = final
          ? usageFromUpstream(final.tool_usage?.image_gen, estimated)
          : { usage: estimated, source: "gateway" as const };
        return {
          text: {
            inputTokens: final?.usage?.input_tokens ?? call.inputTokens,
            outputTokens: final?.usage?.output_tokens ?? revisedTokens,
          },
          image: reported.usage,
          imagesGenerated: seen.size,
          imagesDelivered: billed.length,
          previewsDelivered: [...delivered.previews.values()].reduce((total, count) => total + count, 0),
          detail: { path: "native", usageSource: final?.usage ? "upstream" : "gateway", imageUsageSource: reported.source },
        };
      },
    },
  };
}
