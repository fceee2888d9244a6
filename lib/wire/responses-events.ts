// The events of a streaming /v1/responses call (docs/api.md §2.5, §6), in the vendor's Responses API shapes so its official
// client parses them: https://platform.openai.com/docs/api-reference/responses-streaming
// Pure: the simulator and the gateway's own tool loop build their streams with `ResponseBuilder`; the native relay
// passes the upstream's events through. Sequence numbers are not set here: the stream writer
// (lib/gateway/responses/stream.ts) numbers every event it sends, keepalives included, so they are always 0, 1, 2, ...
import { randomBytes } from "node:crypto";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import type { ImageTool } from "./responses-request";

/** One event as sent, without its `sequence_number`. */
export type ResponsesEvent = { type: string; [field: string]: unknown; [PREVIEW]?: true };

export const RESPONSE_EVENT = {
  created: "response.created",
  inProgress: "response.in_progress",
  completed: "response.completed",
  failed: "response.failed",
  incomplete: "response.incomplete",
  itemAdded: "response.output_item.added",
  itemDone: "response.output_item.done",
  imageInProgress: "response.image_generation_call.in_progress",
  imageGenerating: "response.image_generation_call.generating",
  partialImage: "response.image_generation_call.partial_image",
  contentPartAdded: "response.content_part.added",
  contentPartDone: "response.content_part.done",
  textDelta: "response.output_text.delta",
  textDone: "response.output_text.done",
  keepalive: "keepalive",
  error: "error",
} as const;

/**
 * Marks a `partial_image` event that carries a progress image (the request asked for `partial_images`) rather than the
 * finished image: the vendor bills each progress image at a flat rate, and an image whose stream was cut after its
 * previews but before the finished image is billed for those previews only (docs/billing.md). Not serialised.
 */
export const PREVIEW: unique symbol = Symbol("progress image");

/** Events after which nothing more is sent. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set([RESPONSE_EVENT.completed, RESPONSE_EVENT.failed, RESPONSE_EVENT.incomplete]);

export function newId(prefix: "resp" | "ig" | "msg"): string {
  return `${prefix}_${randomBytes(24).toString("hex")}`;
}

/** What one generated image looked like, as the stream reports it (docs/api.md §2.5). */
export type GeneratedImage = {
  b64: string;
  /** What was generated, e.g. "1024x1024". */
  size: string;
  quality: string;
  outputFormat: string;
  background: string;
  revisedPrompt: string;
};

export type TokenCounts = { inputTokens: number; outputTokens: number; reasoningTokens?: number };

export type ImageToolUsage = { textInputTokens: number; imageInputTokens: number; imageOutputTokens: number };

/** The echo of the image_generation tool in the response object. */
export type ToolEcho = Record<string, unknown> & { type: "image_generation" };

type OutputItem = Record<string, unknown> & { id: string; type: string };

/**
 * Builds the events of one response. Output items are numbered in the order they are added; `response.completed`
 * lists them all, image items with their `result` as the vendor sends them: the SDKs' `finalResponse()` replaces its
 * snapshot with that object, so an image left out there is lost to the client. The items hold the same strings the
 * earlier events carried (no copy); lib/gateway/responses/stream.ts writes them into the event without building one
 * large JSON string.
 */
export class ResponseBuilder {
  readonly id = newId("resp");
  readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly output: OutputItem[] = [];

  constructor(private readonly options: { model: string; instructions: string; tool: ToolEcho }) {}

  /** The response object as of now (vendor field set; `usage` is filled on completion). */
  response(status: "in_progress" | "completed" | "failed" | "incomplete", extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      status,
      background: false,
      error: null,
      incomplete_details: null,
      instructions: this.options.instructions,
      max_output_tokens: null,
      model: this.options.model,
      output: this.output.map((item) => ({ ...item })),
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: false,
      temperature: 1,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [this.options.tool],
      top_p: 1,
      truncation: "disabled",
      usage: null,
      user: null,
      metadata: {},
      ...extra,
    };
  }

  start(): ResponsesEvent[] {
    return [
      { type: RESPONSE_EVENT.created, response: this.response("in_progress") },
      { type: RESPONSE_EVENT.inProgress, response: this.response("in_progress") },
    ];
  }

  /** A new image generation call: its id, its output index, and the three events that open it. */
  imageStart(): { itemId: string; outputIndex: number; events: ResponsesEvent[] } {
    const itemId = newId("ig");
    const outputIndex = this.output.length;
    this.output.push({ id: itemId, type: "image_generation_call", status: "in_progress" });
    return {
      itemId,
      outputIndex,
      events: [
        {
          type: RESPONSE_EVENT.itemAdded,
          output_index: outputIndex,
          item: { id: itemId, type: "image_generation_call", status: "in_progress" },
        },
        { type: RESPONSE_EVENT.imageInProgress, output_index: outputIndex, item_id: itemId },
      ],
    };
  }

  imageGenerating(itemId: string, outputIndex: number): ResponsesEvent {
    this.update(itemId, { status: "generating" });
    return { type: RESPONSE_EVENT.imageGenerating, output_index: outputIndex, item_id: itemId };
  }

  /**
   * A progress image, when the request asked for `partial_images`: a `partial_image` event with its index (0 first),
   * before the finished image (which then carries the next index).
   */
  imagePreview(
    itemId: string,
    outputIndex: number,
    index: number,
    preview: { b64: string; outputFormat: string; size: string },
  ): ResponsesEvent {
    return {
      type: RESPONSE_EVENT.partialImage,
      output_index: outputIndex,
      item_id: itemId,
      partial_image_index: index,
      partial_image_b64: preview.b64,
      output_format: preview.outputFormat,
      size: preview.size,
      [PREVIEW]: true,
    };
  }

  /** The finished image: `partial_image` carrying the whole image (docs/api.md §2.5), then the item's `output_item.done`. */
  imageDone(itemId: string, outputIndex: number, image: GeneratedImage, partialIndex = 0): ResponsesEvent[] {
    const details = {
      background: image.background,
      output_format: image.outputFormat,
      quality: image.quality,
      revised_prompt: image.revisedPrompt,
      size: image.size,
    };
    this.update(itemId, { status: "completed", ...details, result: image.b64 });
    return [
      {
        type: RESPONSE_EVENT.partialImage,
        output_index: outputIndex,
        item_id: itemId,
        partial_image_index: partialIndex,
        partial_image_b64: image.b64,
        background: image.background,
        output_format: image.outputFormat,
        quality: image.quality,
        size: image.size,
      },
      {
        type: RESPONSE_EVENT.itemDone,
        output_index: outputIndex,
        item: { id: itemId, type: "image_generation_call", status: "completed", ...details, result: image.b64 },
      },
    ];
  }

  /** An assistant message with one text part, streamed as one delta (the text model's own words, when it has any). */
  message(text: string): ResponsesEvent[] {
    const itemId = newId("msg");
    const outputIndex = this.output.length;
    const part = { type: "output_text", text, annotations: [], logprobs: [] };
    this.output.push({ id: itemId, type: "message", status: "completed", role: "assistant", content: [part] });
    const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    return [
      {
        type: RESPONSE_EVENT.itemAdded,
        output_index: outputIndex,
        item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] },
      },
      { type: RESPONSE_EVENT.contentPartAdded, ...at, part: { ...part, text: "" } },
      { type: RESPONSE_EVENT.textDelta, ...at, delta: text, logprobs: [] },
      { type: RESPONSE_EVENT.textDone, ...at, text, logprobs: [] },
      { type: RESPONSE_EVENT.contentPartDone, ...at, part },
      {
        type: RESPONSE_EVENT.itemDone,
        output_index: outputIndex,
        item: { id: itemId, type: "message", status: "completed", role: "assistant", content: [part] },
      },
    ];
  }

  /**
   * `response.incomplete`: the response ended at a gateway limit (`reason`, e.g. "max_images" when the prompt asked for
   * more images than a response may hold), with what was made so far and its usage, as the vendor ends a response
   * cut by max_output_tokens.
   */
  incomplete(text: TokenCounts, images: ImageToolUsage, reason: string): ResponsesEvent {
    return {
      type: RESPONSE_EVENT.incomplete,
      response: this.response("incomplete", {
        incomplete_details: { reason },
        usage: responseUsage(text),
        tool_usage: { image_gen: imageGenUsage(images) },
      }),
    };
  }

  /** `response.completed` with the text model's usage and the image tool's usage (docs/api.md §2.5). */
  completed(text: TokenCounts, images: ImageToolUsage): ResponsesEvent {
    return {
      type: RESPONSE_EVENT.completed,
      response: this.response("completed", { usage: responseUsage(text), tool_usage: { image_gen: imageGenUsage(images) } }),
    };
  }

  private update(itemId: string, fields: Record<string, unknown>): void {
    const item = this.output.find((entry) => entry.id === itemId);
    if (item) Object.assign(item, fields);
  }
}

export function responseUsage(text: TokenCounts) {
  return {
    input_tokens: text.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: text.outputTokens,
    output_tokens_details: { reasoning_tokens: text.reasoningTokens ?? 0 },
    total_tokens: text.inputTokens + text.outputTokens,
  };
}

export function imageGenUsage(images: ImageToolUsage) {
  const input = images.textInputTokens + images.imageInputTokens;
  return {
    input_tokens: input,
    input_tokens_details: { image_tokens: images.imageInputTokens, text_tokens: images.textInputTokens },
    output_tokens: images.imageOutputTokens,
    output_tokens_details: { image_tokens: images.imageOutputTokens, text_tokens: 0 },
    total_tokens: input + images.imageOutputTokens,
  };
}

/**
 * `response.failed` for a stream that broke after it started: built from the last response object the client saw
 * (so the id matches), with the error. The vendor's error codes are snake_case strings such as "server_error".
 */
export function failedEvent(lastResponse: Record<string, unknown> | null, code: string, message: string): ResponsesEvent {
  const base = lastResponse ?? { id: newId("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), output: [] };
  return { type: RESPONSE_EVENT.failed, response: { ...base, status: "failed", error: { code, message } } };
}

export function keepaliveEvent(): ResponsesEvent {
  return { type: RESPONSE_EVENT.keepalive };
}

/** The tool as the response object lists it (what the vendor echoes: every option with its effective value). */
export function toolEcho(tool: ImageTool): ToolEcho {
  return {
    type: "image_generation",
    action: tool.action,
    background: typeof tool.fields.background === "string" ? tool.fields.background : "auto",
    model: IMAGE_MODEL,
    moderation: tool.moderation,
    output_compression: tool.outputCompression ?? 100,
    output_format: tool.outputFormat,
    partial_images: typeof tool.fields.partial_images === "number" ? tool.fields.partial_images : 0,
    quality: tool.quality,
    size: tool.size.auto ? "auto" : `${tool.size.width}x${tool.size.height}`,
  };
}
