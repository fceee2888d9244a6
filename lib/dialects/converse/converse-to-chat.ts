// Converse to Chat Completions: a Bedrock Converse answer, whole or streamed, as Chat Completions for the relay
// (lib/dialects/hub.ts: Chat is the hub). Pure. The shapes are in ./wire.ts.
import type { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { chatUsage, nowSeconds, randomId, upstreamInvalid } from "@/lib/dialects/convert/common";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  ChatFinishReason,
  ChatToolCall,
  ChatUsage,
} from "@/lib/dialects/chat/wire";
import type { HubAnswer, HubUsage, StreamToChat } from "@/lib/dialects/hub";
import { converseResponseSchema, type ConverseStreamEventType, converseStreamEventSchemas, type ConverseUsageInput } from "./wire";

/**
 * Converse's stopReason (API_runtime_Converse) as a Chat finish_reason. A guardrail or a content filter that stopped
 * the answer is `content_filter`; running out of context is `length`, as running out of output is.
 */
export function converseFinishReason(stopReason: string | null | undefined): ChatFinishReason {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "guardrail_intervened":
    case "content_filtered":
      return "content_filter";
    default: // end_turn, stop_sequence, malformed_model_output, malformed_tool_use, and reasons added later
      return "stop";
  }
}

/** Usage in the gateway's terms: each part only when Bedrock reported it. */
export function converseHubUsage(usage: ConverseUsageInput | undefined): HubUsage {
  const hub: HubUsage = {};
  if (!usage) return hub;
  if (usage.inputTokens !== undefined) hub.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) hub.outputTokens = usage.outputTokens;
  if (usage.cacheReadInputTokens !== undefined) hub.cacheReadTokens = usage.cacheReadInputTokens;
  if (usage.cacheWriteInputTokens !== undefined) hub.cacheWriteTokens = usage.cacheWriteInputTokens;
  return hub;
}

/** Chat usage for the client: every input token is a prompt token (fresh, cache reads and cache writes alike), and
 *  the cache reads are its `cached_tokens`, as OpenAI counts them. */
function clientUsage(usage: HubUsage): ChatUsage {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const prompt = (usage.inputTokens ?? 0) + cacheRead + (usage.cacheWriteTokens ?? 0);
  return chatUsage(prompt, usage.outputTokens ?? 0, cacheRead);
}

/**
 * A whole Converse answer as an OpenAI `chat.completion`, and the usage it reported: text blocks joined into
 * `content`, reasoning text into `reasoning_content` (redacted reasoning and signatures are not shown), `toolUse`
 * blocks as `tool_calls`. An answer without usage is given without it, as a Chat upstream's is relayed
 * (lib/gateway/text/schemas.ts); the relay then bills what the meter counted.
 */
export function converseResponseToChat(body: unknown, publicModel: string): HubAnswer {
  const parsed = converseResponseSchema.safeParse(body);
  if (!parsed.success) throw upstreamInvalid("Converse answer");
  const answer = parsed.data;
  let text = "";
  let reasoning = "";
  const toolCalls: ChatToolCall[] = [];
  for (const block of answer.output.message.content) {
    if (block.text !== undefined) text += block.text;
    else if (block.reasoningContent?.reasoningText) reasoning += block.reasoningContent.reasoningText.text;
    else if (block.toolUse) {
      const { toolUseId, name, input } = block.toolUse;
      toolCalls.push({ id: toolUseId, type: "function", function: { name, arguments: JSON.stringify(input ?? {}) } });
    }
  }
  const message: ChatCompletion["choices"][number]["message"] = {
    role: "assistant",
    // OpenAI sends null content when the reply is only tool calls.
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
    ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  const usage = converseHubUsage(answer.usage);
  const completion: Omit<ChatCompletion, "usage"> & { usage?: ChatUsage } = {
    id: randomId("chatcmpl-"),
    object: "chat.completion",
    created: nowSeconds(),
    model: publicModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: converseFinishReason(answer.stopReason) }],
    ...(answer.usage ? { usage: clientUsage(usage) } : {}),
  };
  // Without usage, the completion lacks the field ChatCompletion's type holds: relayed so, as a Chat upstream's is.
  return { completion: completion as ChatCompletion, usage };
}

/**
 * Turns ConverseStream events into OpenAI `chat.completion.chunk`s, one event at a time (the relay decodes the
 * event-stream frames and hands in each payload with its `:event-type`). `messageStart` gives the first chunk
 * (`{role: "assistant", content: ""}`); text, reasoning and tool input deltas follow as they come, each tool with its
 * own `tool_calls` index; `messageStop` gives the finish chunk; `metadata`, after it, the usage, sent by `finish()`
 * as a chunk with empty `choices`. The stream is complete once `metadata` arrived after `messageStop`. An exception
 * event (`throttlingException`, `modelStreamErrorException`, …) throws GatewayError("upstream_error") naming only
 * its type: its message may tell about the channel's account.
 */
export class ConverseStreamToChat implements StreamToChat {
  private readonly publicModel: string;
  private readonly created: number;
  private readonly id = randomId("chatcmpl-");
  /** Converse content block index → Chat tool_calls index, for toolUse blocks. */
  private readonly toolIndexes = new Map<number, number>();
  private started = false;
  private stopped = false;
  private finishSent = false;
  private finishReason: ChatFinishReason = "stop";
  private ended = false;
  private reportedUsage = false;
  private hubUsage: HubUsage = {};

  constructor(options: { publicModel: string; created?: number }) {
    this.publicModel = options.publicModel;
    this.created = options.created ?? nowSeconds();
  }

  get complete(): boolean {
    return this.ended;
  }

  get usage(): HubUsage {
    return this.hubUsage;
  }

  push(data: unknown, eventType?: string): ChatCompletionChunk[] {
    if (eventType === undefined || eventType === "") throw upstreamInvalid("ConverseStream event (no event type)");
    if (/Exception$/.test(eventType)) throw new GatewayError("upstream_error", `The upstream failed mid-stream (${eventType}).`);
    if (!Object.hasOwn(converseStreamEventSchemas, eventType)) return []; // event types added after this was written
    const type = eventType as ConverseStreamEventType;
    if (!this.started && type !== "messageStart") throw upstreamInvalid(`ConverseStream (${type} before messageStart)`);
    switch (type) {
      case "messageStart": {
        this.parse("messageStart", data);
        if (this.started) return [];
        this.started = true;
        return [this.chunk({ role: "assistant", content: "" }, null)];
      }
      case "contentBlockStart": {
        const event = this.parse("contentBlockStart", data);
        const toolUse = event.start.toolUse;
        if (!toolUse) return []; // an image or a tool result being generated: nothing a Chat client can show
        const toolIndex = this.toolIndexes.size;
        this.toolIndexes.set(event.contentBlockIndex, toolIndex);
        return [
          this.chunk(
            {
              tool_calls: [{ index: toolIndex, id: toolUse.toolUseId, type: "function", function: { name: toolUse.name, arguments: "" } }],
            },
            null,
          ),
        ];
      }
      case "contentBlockDelta": {
        const event = this.parse("contentBlockDelta", data);
        const { delta } = event;
        if (delta.text !== undefined) return delta.text === "" ? [] : [this.chunk({ content: delta.text }, null)];
        if (delta.toolUse) {
          const toolIndex = this.toolIndexes.get(event.contentBlockIndex);
          if (toolIndex === undefined) throw upstreamInvalid("ConverseStream (tool input before its contentBlockStart)");
          if (delta.toolUse.input === "") return [];
          return [this.chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.toolUse.input } }] }, null)];
        }
        const reasoning = delta.reasoningContent?.text;
        if (reasoning !== undefined && reasoning !== "") {
          const withReasoning: ChatCompletionChunkDelta = { reasoning_content: reasoning };
          return [this.chunk(withReasoning, null)];
        }
        return []; // a reasoning signature, redacted reasoning, citations
      }
      case "contentBlockStop":
        this.parse("contentBlockStop", data);
        return [];
      case "messageStop": {
        const event = this.parse("messageStop", data);
        if (this.stopped) return [];
        this.stopped = true;
        this.finishReason = converseFinishReason(event.stopReason);
        this.finishSent = true;
        return [this.chunk({}, this.finishReason)];
      }
      case "metadata": {
        const event = this.parse("metadata", data);
        if (event.usage) {
          this.hubUsage = converseHubUsage(event.usage);
          this.reportedUsage = true;
        }
        // Bedrock's last event: usage comes after messageStop.
        if (this.stopped) this.ended = true;
        return [];
      }
    }
  }

  finish(): ChatCompletionChunk[] {
    const chunks: ChatCompletionChunk[] = [];
    if (!this.finishSent) {
      this.finishSent = true;
      chunks.push(this.chunk({}, this.finishReason));
    }
    if (this.reportedUsage) chunks.push({ ...this.chunk({}, null), choices: [], usage: clientUsage(this.hubUsage) });
    return chunks;
  }

  private parse<K extends ConverseStreamEventType>(type: K, data: unknown): z.infer<(typeof converseStreamEventSchemas)[K]> {
    const parsed = converseStreamEventSchemas[type].safeParse(data);
    if (!parsed.success) throw upstreamInvalid(`${type} event`);
    return parsed.data as z.infer<(typeof converseStreamEventSchemas)[K]>;
  }

  private chunk(delta: ChatCompletionChunkDelta, finishReason: ChatFinishReason | null): ChatCompletionChunk {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.publicModel,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }
}
