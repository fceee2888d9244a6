// Chat Completions chunks to a Messages stream: a Chat upstream's chunks given to a Messages client. Pure.
import { GatewayError } from "@/lib/platform/errors";
import { type StreamUsage, anthropicToolId, randomId, upstreamInvalid, messagesStopReason } from "./common";
import type { MessagesStreamEvent } from "@/lib/dialects/messages/wire";
import { chatCompletionChunkSchema } from "@/lib/dialects/chat/wire";

// =============================================================================================
// OpenAI chunks → Anthropic stream

/**
 * Turns OpenAI `chat.completion.chunk`s into Anthropic stream events, in the order Anthropic sends them:
 * message_start, then per content block content_block_start, content_block_delta…, content_block_stop, then
 * message_delta (stop_reason, usage) and message_stop. Write each event as `event: <type>\ndata: <json>\n\n`.
 *
 * Feed `push()` each parsed `data:` payload (not `[DONE]`). The closing events come as soon as both the finish
 * reason and the usage are known (OpenAI sends usage in a last chunk with empty choices when asked with
 * `stream_options.include_usage`); call `finish()` when the upstream stream ends cleanly to close a message whose
 * upstream never sent usage (output tokens are then counted from the text). A stream that was cut should not be
 * finished: send an error event instead. `inputTokens` is the estimate shown in message_start (OpenAI reports
 * input only at the end); message_delta carries the real count.
 */
export class ChatStreamToMessages {
  private readonly publicModel: string;
  private readonly id: string;
  private readonly estimatedInputTokens: number;
  private inputTokens: number | null = null;
  private outputTokens: number | null = null;
  private cachedTokens = 0;
  private started = false;
  private closed = false;
  private finishReason: string | null = null;
  private nextBlockIndex = 0;
  private openBlock: { index: number; kind: "text" } | { index: number; kind: "tool"; toolIndex: number } | null = null;
  /** OpenAI tool_calls index → Anthropic block index and the call's id. */
  private readonly toolBlocks = new Map<number, { blockIndex: number; id: string | null }>();
  /** Text and tool arguments generated, to count output tokens when the upstream reports none. */
  private generated = "";

  /** The closing events wait for `finish()` (the upstream's [DONE]) rather than going out with the usage. */
  private readonly holdEnd: boolean;
  /** Counts the tokens of generated text (lib/money/tokens.ts `countTextTokens`, passed in: dialects sit below money). */
  private readonly countTokens: (text: string) => number;

  constructor(options: {
    publicModel: string;
    countTokens: (text: string) => number;
    inputTokens?: number;
    id?: string;
    holdEnd?: boolean;
  }) {
    this.countTokens = options.countTokens;
    this.publicModel = options.publicModel;
    this.holdEnd = options.holdEnd ?? false;
    this.estimatedInputTokens = options.inputTokens ?? 0;
    this.id = options.id ?? randomId("msg_");
  }

  /** True once message_stop was produced. */
  get completed(): boolean {
    return this.closed;
  }

  /** Upstream-reported usage when it came; otherwise the input estimate and the output counted from the text. */
  usage(): StreamUsage {
    return { inputTokens: this.inputTokens ?? this.estimatedInputTokens, outputTokens: this.outputTokens ?? this.countGenerated() };
  }

  push(input: unknown): MessagesStreamEvent[] {
    if (this.closed) return [];
    const parsed = chatCompletionChunkSchema.safeParse(input);
    if (!parsed.success) throw upstreamInvalid("chat completion chunk");
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) throw new GatewayError("upstream_error", "The upstream failed mid-stream.");

    const events: MessagesStreamEvent[] = [];
    this.start(events);
    if (chunk.usage) {
      this.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.inputTokens = chunk.usage.prompt_tokens ?? 0;
      this.outputTokens = chunk.usage.completion_tokens ?? 0;
    }
    // Only the first choice is converted; Anthropic has no `n`.
    const choice = (chunk.choices ?? []).find((candidate) => (candidate.index ?? 0) === 0);
    const delta = choice?.delta;
    const text = delta?.content || delta?.refusal || "";
    if (text !== "") {
      if (this.openBlock?.kind !== "text") {
        this.closeBlock(events);
        this.openBlock = { index: this.nextBlockIndex++, kind: "text" };
        events.push({ type: "content_block_start", index: this.openBlock.index, content_block: { type: "text", text: "" } });
      }
      this.generated += text;
      events.push({ type: "content_block_delta", index: this.openBlock.index, delta: { type: "text_delta", text } });
    }
    for (const call of delta?.tool_calls ?? []) {
      const toolIndex = call.index ?? 0;
      let known = this.toolBlocks.get(toolIndex);
      // A new call: an unseen index, or (some providers reuse index 0) a different id.
      if (!known || (call.id && known.id && call.id !== known.id)) {
        this.closeBlock(events);
        const id = call.id ? anthropicToolId(call.id) : randomId("toolu_");
        known = { blockIndex: this.nextBlockIndex++, id: call.id ?? null };
        this.toolBlocks.set(toolIndex, known);
        this.openBlock = { index: known.blockIndex, kind: "tool", toolIndex };
        const name = call.function?.name ?? "";
        this.generated += name;
        events.push({ type: "content_block_start", index: known.blockIndex, content_block: { type: "tool_use", id, name, input: {} } });
      }
      const argumentsText = call.function?.arguments ?? "";
      if (argumentsText !== "") {
        this.generated += argumentsText;
        events.push({
          type: "content_block_delta",
          index: known.blockIndex,
          delta: { type: "input_json_delta", partial_json: argumentsText },
        });
      }
    }
    if (choice?.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.closeBlock(events);
    }
    if (this.finishReason !== null && this.outputTokens !== null && !this.holdEnd) this.close(events);
    return events;
  }

  /** Closes the message when the upstream stream ended cleanly ([DONE]) without usage or without a finish reason. */
  finish(): MessagesStreamEvent[] {
    if (this.closed) return [];
    const events: MessagesStreamEvent[] = [];
    this.start(events);
    this.closeBlock(events);
    this.close(events);
    return events;
  }

  private start(events: MessagesStreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({
      type: "message_start",
      message: {
        id: this.id,
        type: "message",
        role: "assistant",
        model: this.publicModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: this.estimatedInputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
  }

  private closeBlock(events: MessagesStreamEvent[]): void {
    if (this.openBlock === null) return;
    events.push({ type: "content_block_stop", index: this.openBlock.index });
    this.openBlock = null;
  }

  private close(events: MessagesStreamEvent[]): void {
    this.closeBlock(events);
    const usage = this.usage();
    events.push({
      type: "message_delta",
      delta: { stop_reason: messagesStopReason(this.finishReason), stop_sequence: null },
      usage: {
        output_tokens: usage.outputTokens,
        // Anthropic's SDK replaces the message_start estimate with these when present.
        ...(this.inputTokens !== null
          ? { input_tokens: Math.max(0, this.inputTokens - this.cachedTokens), cache_read_input_tokens: this.cachedTokens }
          : {}),
      },
    });
    events.push({ type: "message_stop" });
    this.closed = true;
  }

  private countGenerated(): number {
    return this.countTokens(this.generated);
  }
}
