// Messages stream to Chat Completions chunks: a Messages upstream's events given to a Chat client. Pure.
import type { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import {
  anthropicInputTotal,
  chatFinishReason,
  chatUsage,
  type StreamUsage,
  textBlockSchema,
  toolUseBlockSchema,
  nowSeconds,
  randomId,
  upstreamInvalid,
  withoutPrefix,
} from "./common";
import { messagesStreamEventSchemas, type messagesUsageSchema } from "@/lib/dialects/messages/wire";
import type { ChatCompletionChunk, ChatCompletionChunkDelta, ChatFinishReason } from "@/lib/dialects/chat/wire";

// =============================================================================================
// Anthropic stream → OpenAI chunks

/**
 * Turns Anthropic stream events into OpenAI `chat.completion.chunk`s, one event at a time.
 * Feed `push()` each parsed `data:` payload (JSON.parse of the SSE data) in order; write each returned chunk as
 * `data: <json>\n\n`, then `data: [DONE]\n\n` once `completed` is true. With `includeUsage` (the client's
 * `stream_options.include_usage`), every chunk carries `usage: null` and a final chunk with empty `choices`
 * carries the usage, as OpenAI does. An `error` event throws a GatewayError("upstream_error").
 */
export class MessagesStreamToChat {
  private readonly publicModel: string;
  private readonly includeUsage: boolean;
  private readonly created: number;
  private id = randomId("chatcmpl-");
  private inputTokens = 0;
  private outputTokens = 0;
  private cachedTokens = 0;
  /** Anthropic block index → OpenAI tool_calls index, for tool_use blocks. */
  private readonly toolIndexes = new Map<number, number>();
  private started = false;
  private finished = false;

  constructor(options: { publicModel: string; includeUsage?: boolean; created?: number }) {
    this.publicModel = options.publicModel;
    this.includeUsage = options.includeUsage ?? false;
    this.created = options.created ?? nowSeconds();
  }

  /** True once `message_stop` arrived: the upstream finished the message. */
  get completed(): boolean {
    return this.finished;
  }

  usage(): StreamUsage {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
  }

  push(event: unknown): ChatCompletionChunk[] {
    const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
    switch (type) {
      case "message_start": {
        const parsed = this.parse("message_start", event);
        this.id = `chatcmpl-${withoutPrefix(parsed.message.id, "msg_")}`;
        this.readUsage(parsed.message.usage);
        this.started = true;
        return [this.chunk({ role: "assistant", content: "", refusal: null }, null)];
      }
      case "content_block_start": {
        const parsed = this.parse("content_block_start", event);
        if (parsed.content_block.type === "text") {
          const block = textBlockSchema.safeParse(parsed.content_block);
          // The opening text is almost always empty; send it only when it is not.
          return block.success && block.data.text !== "" ? [this.chunk({ content: block.data.text }, null)] : [];
        }
        if (parsed.content_block.type === "tool_use") {
          const block = toolUseBlockSchema.safeParse(parsed.content_block);
          if (!block.success) throw upstreamInvalid("tool_use block");
          const toolIndex = this.toolIndexes.size;
          this.toolIndexes.set(parsed.index, toolIndex);
          return [
            this.chunk(
              {
                tool_calls: [{ index: toolIndex, id: block.data.id, type: "function", function: { name: block.data.name, arguments: "" } }],
              },
              null,
            ),
          ];
        }
        return []; // thinking, server tool results: nothing a Chat Completions client can show
      }
      case "content_block_delta": {
        const parsed = this.parse("content_block_delta", event);
        const delta = parsed.delta as { type: string; text?: unknown; partial_json?: unknown };
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "")
          return [this.chunk({ content: delta.text }, null)];
        if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json !== "") {
          const toolIndex = this.toolIndexes.get(parsed.index);
          if (toolIndex === undefined) return [];
          return [this.chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] }, null)];
        }
        return [];
      }
      case "message_delta": {
        const parsed = this.parse("message_delta", event);
        this.readUsage(parsed.usage);
        // message_delta comes once, at the end, with the final usage: the finish chunk and the usage chunk follow.
        const chunks = [this.chunk({}, chatFinishReason(parsed.delta.stop_reason))];
        if (this.includeUsage)
          chunks.push({ ...this.chunk({}, null), choices: [], usage: chatUsage(this.inputTokens, this.outputTokens, this.cachedTokens) });
        return chunks;
      }
      case "message_stop":
        this.finished = true;
        return [];
      case "error": {
        const parsed = this.parse("error", event);
        // Only the error type is passed on: upstream messages may carry details of the channel's account.
        throw new GatewayError("upstream_error", `The upstream failed mid-stream (${parsed.error?.type ?? "error"}).`);
      }
      default: // content_block_stop, ping, and event types added after this was written
        return [];
    }
  }

  private parse<K extends keyof typeof messagesStreamEventSchemas>(
    type: K,
    event: unknown,
  ): z.infer<(typeof messagesStreamEventSchemas)[K]> {
    const parsed = messagesStreamEventSchemas[type].safeParse(event);
    if (!parsed.success) throw upstreamInvalid(`${type} event`);
    if (!this.started && type !== "message_start" && type !== "error") throw upstreamInvalid("stream (an event before message_start)");
    return parsed.data as z.infer<(typeof messagesStreamEventSchemas)[K]>;
  }

  /** Usage counters are cumulative totals; a field that is absent keeps its earlier value. */
  private readUsage(usage: z.infer<typeof messagesUsageSchema> | null | undefined): void {
    if (!usage) return;
    if (usage.input_tokens !== undefined && usage.input_tokens !== null) this.inputTokens = anthropicInputTotal(usage);
    if (usage.cache_read_input_tokens !== undefined && usage.cache_read_input_tokens !== null)
      this.cachedTokens = usage.cache_read_input_tokens;
    if (usage.output_tokens !== undefined && usage.output_tokens !== null) this.outputTokens = usage.output_tokens;
  }

  private chunk(delta: ChatCompletionChunkDelta, finishReason: ChatFinishReason | null): ChatCompletionChunk {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.publicModel,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.includeUsage ? { usage: null } : {}),
    };
  }
}
