// The gateway's own tool loop, for a text model whose channel has no Responses API (an `anthropic` channel, or any
// Chat Completions upstream): it offers the model a function tool `generate_image({prompt, action})`, asks it with
// non-streaming chat calls, sends each tool call to the image channels (std-image-2, with failover), feeds a short
// result back, and stops when the model answers without tool calls. Meanwhile it emits the same events as the real
// service (docs/api.md §6), so a client cannot tell which path served it.
//
// The first chat call happens before the response starts, so a failing text upstream is an ordinary HTTP error (and
// the next channel is tried); later failures end the stream with response.failed, billed for what was delivered.
import { GatewayError } from "@/lib/platform/errors";
import { countChatRequestInputTokens } from "@/lib/money/tokens";
import { IMAGE_MODEL } from "@/lib/catalog/models";
import { checkPrompt } from "@/lib/moderation/store";
import { AUTO_SIZE } from "@/lib/images/size";
import { addImageUsage, imageUsage, type ImageUsage } from "@/lib/money/image-usage";
import { resolveQuality } from "@/lib/money/image-tokens";
import { chatCompletionSchema, type ChatRequestMessage, type ChatToolCall } from "@/lib/dialects/chat/wire";
import type { Outcome, TextCall, UpstreamFailure } from "@/lib/providers/types";
import type { ResponsesCall, ResponsesOutcome, ResponsesSource, ResponsesUsage } from "@/lib/providers/responses-types";
import { RESPONSES_LIMITS } from "@/lib/money/reservation";
import type { ImageCall } from "@/lib/providers/image-types";
import { providerOf } from "@/lib/providers";
import { autoEditSize, MAX_PROMPT_CHARACTERS, parseImageOptions } from "@/lib/wire/image-request";
import { upstreamModel } from "@/lib/channels";
import { upstreamError, withFailover } from "@/lib/gateway/relay";
import type { GatewayContext } from "@/lib/gateway/pipeline";
import type { Reservation } from "@/lib/money/reserve";
import { ResponseBuilder, toolEcho, type ResponsesEvent } from "@/lib/wire/responses-events";
import { chatMessagesOf, IMAGE_FUNCTION, imageFunctionTool } from "./tool";

const MAX_ROUNDS = RESPONSES_LIMITS.rounds;
const MAX_IMAGES = RESPONSES_LIMITS.images;
const TURN_OUTPUT_CAP = RESPONSES_LIMITS.turnOutputTokens;

type AssistantMessage = { content: string | null; toolCalls: ChatToolCall[] };
type Turn = { ok: true; message: AssistantMessage; inputTokens: number; outputTokens: number };

function failure(status: number, message: string, cause: string, retryable: boolean): UpstreamFailure {
  return { ok: false, retryable, status, message, cause };
}

/** One non-streaming chat call with the image function offered; the adapter answers in Chat Completions form. */
async function chatTurn(call: ResponsesCall, messages: ChatRequestMessage[]): Promise<Turn | UpstreamFailure> {
  const body = {
    model: call.publicModel,
    messages,
    tools: [imageFunctionTool(call.request.tool.action)],
    tool_choice: "auto",
    max_completion_tokens: TURN_OUTPUT_CAP,
  };
  const textCall: TextCall = {
    channel: call.channel,
    publicModel: call.publicModel,
    upstreamModel: call.upstreamModel,
    longContext: false,
    body,
    stream: false,
    outputCap: TURN_OUTPUT_CAP,
    // The conversation holds the request's inline images and grows each round: serialised in slices whatever its size.
    bodyBytes: Number.POSITIVE_INFINITY,
    includeUsage: false,
    headers: call.headers,
    signal: call.signal,
    inputTokens: countChatRequestInputTokens(body as never),
  };
  let outcome: Outcome;
  let parsed: ReturnType<typeof chatCompletionSchema.safeParse>;
  try {
    outcome = await providerOf(call.channel.type).text.chat(textCall);
    if (!outcome.ok) return outcome;
    parsed = chatCompletionSchema.safeParse(await outcome.response.json());
  } catch (error) {
    if (call.signal.aborted) return failure(499, "The client closed the connection", "client_gone", false);
    const message = error instanceof GatewayError ? error.message : "The upstream's answer is not valid JSON";
    return failure(502, message, "upstream_malformed", true);
  }
  const choice = parsed.success ? parsed.data.choices[0] : undefined;
  if (!choice) return failure(502, "The upstream's chat answer holds no choice", "upstream_malformed", true);
  const report = await outcome.usage;
  const toolCalls: ChatToolCall[] = (choice.message.tool_calls ?? []).map((toolCall) => ({
    id: toolCall.id,
    type: "function",
    function: { name: toolCall.function.name, arguments: toolCall.function.arguments },
  }));
  return {
    ok: true,
    message: { content: choice.message.content ?? null, toolCalls },
    inputTokens: report.inputTokens,
    outputTokens: report.outputTokens,
  };
}

type Delivered = { itemId: string; usage: ImageUsage };

/**
 * Runs the first chat call on `call.channel`; on success returns the source that streams the rest. `imageReservation`
 * is handed to withFailover for the image calls: it must not release the real reservation when an image fails midway,
 * because images already delivered are still owed (the caller settles once, at the end).
 */
export async function startToolLoop(
  context: GatewayContext,
  call: ResponsesCall,
  imageReservation: Reservation,
): Promise<ResponsesOutcome> {
  const messages = chatMessagesOf(call.request);
  const first = await chatTurn(call, messages);
  if (!first.ok) return first;

  const { tool } = call.request;
  const builder = new ResponseBuilder({ model: call.publicModel, instructions: call.request.instructions, tool: toolEcho(tool) });
  const text = { inputTokens: 0, outputTokens: 0 };
  const images: Delivered[] = [];
  let rounds = 0;
  let toolCalls = 0;
  let refused = 0;
  /** Tool calls refused because the response already holds the most images it may. */
  let refusedImages = 0;
  const count = (turn: Turn) => {
    rounds++;
    text.inputTokens += turn.inputTokens;
    text.outputTokens += turn.outputTokens;
  };
  count(first);

  async function generate(prompt: string, mode: "generate" | "edit") {
    const options = parseImageOptions({
      model: IMAGE_MODEL,
      prompt,
      size: tool.fields.size,
      quality: tool.fields.quality,
      output_format: tool.fields.output_format,
      output_compression: tool.fields.output_compression,
      moderation: tool.fields.moderation,
    });
    const uploads = mode === "edit" ? await call.files.uploads() : [];
    const first = uploads[0]?.info;
    const { width, height } = !tool.size.auto ? tool.size : mode === "edit" && first ? autoEditSize(first.width, first.height) : AUTO_SIZE;
    const usage = imageUsage({ prompt, width, height, quality: tool.quality, inputs: uploads.map((upload) => upload.info) });
    const { result } = await withFailover(context, IMAGE_MODEL, imageReservation, (candidate) => {
      const imageCall: ImageCall = {
        channel: candidate,
        publicModel: IMAGE_MODEL,
        upstreamModel: upstreamModel(candidate, IMAGE_MODEL, IMAGE_MODEL),
        options,
        width,
        height,
        images: uploads,
        mask: undefined,
        usage,
        signal: call.signal,
      };
      return providerOf(candidate.type).images[mode](imageCall);
    });
    if ("stream" in result) throw new Error("The image adapter streamed an answer it was not asked to stream");
    return result;
  }

  /** Runs one tool call, emitting the image's events; returns the short result the model reads. */
  async function* runToolCall(toolCall: ChatToolCall): AsyncGenerator<ResponsesEvent, string, undefined> {
    toolCalls++;
    if (toolCall.function.name !== IMAGE_FUNCTION)
      return `Error: there is no tool named '${toolCall.function.name}'; the only tool is ${IMAGE_FUNCTION}.`;
    let args: { prompt?: unknown; action?: unknown };
    try {
      args = JSON.parse(toolCall.function.arguments || "{}");
    } catch {
      return "Error: the arguments must be a JSON object with 'prompt' and 'action'.";
    }
    const prompt = typeof args?.prompt === "string" ? args.prompt.trim() : "";
    if (!prompt) return "Error: 'prompt' is required and must be a non-empty string.";
    if (prompt.length > MAX_PROMPT_CHARACTERS) return `Error: 'prompt' must be at most ${MAX_PROMPT_CHARACTERS} characters.`;
    if (images.length >= MAX_IMAGES) {
      refusedImages++;
      return `Not generated: at most ${MAX_IMAGES} images per answer. Tell the user to ask again for more.`;
    }
    try {
      // The rewritten prompt goes through the same content policy as the user's (docs/api.md §7 content filtering).
      await checkPrompt(prompt, tool.moderation);
    } catch (error) {
      if (error instanceof GatewayError && error.code === "content_policy_violation") {
        refused++;
        return `Not generated: the prompt was refused by the content policy (${error.message}). Do not retry with the same content.`;
      }
      throw error;
    }
    const mode =
      tool.action === "edit" || (tool.action === "auto" && args.action === "edit" && call.images.length > 0) ? "edit" : "generate";
    const { itemId, outputIndex, events } = builder.imageStart();
    yield* events;
    yield builder.imageGenerating(itemId, outputIndex);
    const result = await generate(prompt, mode);
    if (call.signal.aborted) return "Cancelled.";
    images.push({ itemId, usage: result.usage });
    yield* builder.imageDone(itemId, outputIndex, {
      b64: typeof result.b64 === "string" ? result.b64 : result.b64.toString("latin1"),
      size: result.size,
      quality: result.quality === "auto" ? resolveQuality("auto") : result.quality,
      outputFormat: result.format,
      background: result.background,
      revisedPrompt: prompt,
    });
    return `Image ${images.length} was ${mode === "edit" ? "edited" : "generated"} (${result.size}, ${result.format}) and is shown to the user.`;
  }

  const imageTotals = (items: Delivered[]): ImageUsage => addImageUsage(items.map((item) => item.usage));

  async function* events(): AsyncGenerator<ResponsesEvent, void, undefined> {
    yield* builder.start();
    let turn: Turn = first as Turn;
    for (;;) {
      const content = turn.message.content?.trim() ?? "";
      if (content) yield* builder.message(content);
      if (turn.message.toolCalls.length === 0) break;
      messages.push({ role: "assistant", content: turn.message.content, tool_calls: turn.message.toolCalls });
      for (const toolCall of turn.message.toolCalls) {
        const result = yield* runToolCall(toolCall);
        if (call.signal.aborted) return;
        messages.push({ role: "tool", tool_call_id: toolCall.id, content: result });
      }
      // The model has had its say for this many rounds: what it made so far is the answer.
      if (rounds >= MAX_ROUNDS) break;
      const next = await chatTurn(call, messages);
      if (call.signal.aborted) return;
      if (!next.ok) throw upstreamError(next);
      count(next);
      turn = next;
    }
    const totals = imageTotals(images);
    const usage = {
      textInputTokens: totals.textInputTokens,
      imageInputTokens: totals.imageInputTokens,
      imageOutputTokens: totals.imageOutputTokens,
    };
    // The model asked for more images than a response may hold: what was made is delivered, and the response says why
    // it stopped there.
    if (refusedImages > 0) yield builder.incomplete(text, usage, "max_images");
    else yield builder.completed(text, usage);
  }

  const source: ResponsesSource = {
    events: events(),
    usage(delivered): ResponsesUsage {
      // The tool loop asks for no progress images: an image is delivered whole or not at all.
      const billed = images.filter((image) => delivered.images.has(image.itemId));
      return {
        text: { ...text },
        image: imageTotals(billed),
        imagesGenerated: images.length,
        imagesDelivered: billed.length,
        previewsDelivered: 0,
        detail: { path: "tool_loop", rounds, toolCalls, ...(refused ? { refusedPrompts: refused } : {}) },
      };
    },
  };
  return { ok: true, source };
}
