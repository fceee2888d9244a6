// The delivered-output meter (docs/billing.md, "What a cut or unreported answer costs"): what reached the client,
// counted by vendor-neutral rules, so that an answer whose upstream reported no usage, or a stream that was cut, is
// charged at least for what was delivered. It reads the gateway's own dialects (the answers and events a client of
// /v1/chat/completions, /v1/messages, /v1/responses or /v1beta receives), whatever upstream produced them: every adapter's
// output passes through one of these shapes, so a new upstream is metered without counting anything itself.
//
// Counted as text (o200k tokens): content, refusals, reasoning and thinking, tool names and call arguments, audio
// transcripts, citations. Anything else a client receives as model output that is not recognised here (a delta kind
// added after this was written) is counted by its serialized size at 4 bytes per token. Envelopes (ids, roles, indexes,
// finish reasons, usage, log probabilities) and the encrypted signature of a thinking block are not output.
import { countTextTokens } from "./tokens";

/** Bytes per token for output the meter does not recognise (docs/billing.md). */
export const UNKNOWN_BYTES_PER_TOKEN = 4;
/** Text held before it is counted and let go, so a long stream keeps a bounded amount in memory. */
const PENDING_CHARS = 64 * 1024;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Chat Completions delta or message fields that hold text the model wrote. */
const CHAT_TEXT_FIELDS = new Set(["content", "refusal", "reasoning_content", "reasoning"]);
/** Chat Completions delta or message fields that are not output. */
const CHAT_ENVELOPE_FIELDS = new Set(["role", "name"]);

/** Responses delta events whose `delta` is encoded bytes (audio), not text: counted by size. */
const RESPONSES_BYTES_DELTA = /\.audio\.delta$/;

/** Messages content block types whose content is not model output (a server tool's results are read as input). */
const NOT_OUTPUT_BLOCK = /_tool_result$/;

export class OutputMeter {
  #pending: string[] = [];
  #pendingChars = 0;
  #counted = 0;
  #unknownBytes = 0;

  /** Text the model wrote. */
  text(value: unknown): void {
    if (typeof value !== "string" || value === "") return;
    this.#pending.push(value);
    this.#pendingChars += value.length;
    if (this.#pendingChars >= PENDING_CHARS) this.#countPending();
  }

  /** Output the meter does not recognise: its serialized size. */
  unknown(value: unknown): void {
    if (value === undefined || value === null) return;
    this.#unknownBytes += Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));
  }

  /** Output tokens delivered so far. */
  tokens(): number {
    this.#countPending();
    return this.#counted + Math.ceil(this.#unknownBytes / UNKNOWN_BYTES_PER_TOKEN);
  }

  #countPending(): void {
    if (!this.#pending.length) return;
    this.#counted += countTextTokens(this.#pending.join(""));
    this.#pending = [];
    this.#pendingChars = 0;
  }

  // -------------------------------------------------------------------------------------------- Chat Completions

  /** One `chat.completion.chunk` as the client receives it. */
  chatChunk(chunk: unknown): void {
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) if (isObject(choice)) this.#chatMessage(choice.delta);
  }

  /** A whole `chat.completion`. */
  chatCompletion(completion: unknown): void {
    if (!isObject(completion) || !Array.isArray(completion.choices)) return;
    for (const choice of completion.choices) if (isObject(choice)) this.#chatMessage(choice.message);
  }

  /** A delta or a message: its text fields, its tool calls, its audio transcript; anything else by size. */
  #chatMessage(message: unknown): void {
    if (!isObject(message)) return;
    for (const [field, value] of Object.entries(message)) {
      if (value === null || value === undefined || CHAT_ENVELOPE_FIELDS.has(field)) continue;
      if (CHAT_TEXT_FIELDS.has(field)) {
        if (typeof value === "string") this.text(value);
        else this.unknown(value);
      } else if (field === "tool_calls" && Array.isArray(value)) {
        for (const call of value) this.#chatToolCall(call);
      } else if (field === "function_call") {
        this.#chatToolCall({ function: value });
      } else if (field === "audio" && isObject(value)) {
        // The spoken answer's words; its audio bytes are not text output.
        this.text(value.transcript);
      } else if (field === "annotations" && Array.isArray(value)) {
        for (const annotation of value) this.#citation(annotation);
      } else {
        this.unknown(value);
      }
    }
  }

  #chatToolCall(call: unknown): void {
    if (!isObject(call) || !isObject(call.function)) return;
    this.text(call.function.name);
    const args = call.function.arguments;
    this.text(typeof args === "string" || args === undefined || args === null ? args : JSON.stringify(args));
  }

  /** A citation's text (the quoted passage, its title and address). */
  #citation(citation: unknown): void {
    if (!isObject(citation)) {
      this.unknown(citation);
      return;
    }
    const inner = isObject(citation.url_citation) ? citation.url_citation : citation;
    this.text(inner.cited_text);
    this.text(inner.title);
    this.text(inner.url);
  }

  // ------------------------------------------------------------------------------------------------------ Gemini

  /** A GenerateContentResponse, whole or one stream chunk, as a Gemini client (the /v1beta endpoints) receives it:
   *  text and thought parts, and each function call's name and arguments. */
  geminiResponse(response: unknown): void {
    if (!isObject(response) || !Array.isArray(response.candidates)) return;
    for (const candidate of response.candidates) {
      const parts = isObject(candidate) && isObject(candidate.content) ? candidate.content.parts : undefined;
      if (!Array.isArray(parts)) continue;
      for (const part of parts) {
        if (isObject(part) && typeof part.text === "string") this.text(part.text);
        else if (isObject(part) && isObject(part.functionCall)) {
          this.text(part.functionCall.name);
          this.text(JSON.stringify(part.functionCall.args ?? {}));
        } else this.unknown(part);
      }
    }
  }

  // --------------------------------------------------------------------------------------------------- Responses

  /**
   * One Responses event as the client receives it: every `*.delta` event (output text, refusals, function arguments,
   * reasoning, and kinds added later) and an image call's rewritten prompt, which the text model wrote. The `*.done`
   * events repeat what their deltas carried and are not counted again; images are billed as images.
   */
  responsesEvent(event: unknown): void {
    if (!isObject(event) || typeof event.type !== "string") return;
    if (event.type.endsWith(".delta")) {
      if (typeof event.delta === "string" && !RESPONSES_BYTES_DELTA.test(event.type)) this.text(event.delta);
      else this.unknown(event.delta);
      return;
    }
    if (event.type === "response.output_item.done" && isObject(event.item) && event.item.type === "image_generation_call")
      this.text(event.item.revised_prompt);
  }

  // ---------------------------------------------------------------------------------------------------- Messages

  /** One Messages stream event as the client receives it. */
  messagesEvent(event: unknown): void {
    if (!isObject(event)) return;
    switch (event.type) {
      case "content_block_start":
        this.#messagesBlock(event.content_block);
        return;
      case "content_block_delta":
        this.#messagesDelta(event.delta);
        return;
      case "message_start":
        if (isObject(event.message) && Array.isArray(event.message.content))
          for (const block of event.message.content) this.#messagesBlock(block);
        return;
      case "message_delta":
      case "message_stop":
      case "content_block_stop":
      case "ping":
      case "error":
        return;
      default:
        this.unknown(event);
        return;
    }
  }

  /** A whole Messages answer. */
  message(message: unknown): void {
    if (!isObject(message) || !Array.isArray(message.content)) return;
    for (const block of message.content) this.#messagesBlock(block);
  }

  #messagesBlock(block: unknown): void {
    if (!isObject(block) || typeof block.type !== "string") {
      this.unknown(block);
      return;
    }
    switch (block.type) {
      case "text":
        this.text(block.text);
        if (Array.isArray(block.citations)) for (const citation of block.citations) this.#citation(citation);
        return;
      case "thinking":
        this.text(block.thinking);
        return;
      case "redacted_thinking":
        // Encrypted thinking: billed as thinking; its size is all the gateway can see of it.
        this.unknown(block.data);
        return;
      case "tool_use":
      case "server_tool_use":
      case "mcp_tool_use":
        this.text(block.name);
        // The input as the model wrote it (JSON); streamed, it comes empty here and in input_json_delta events after.
        if (isObject(block.input) && Object.keys(block.input).length > 0) this.text(JSON.stringify(block.input));
        return;
      default:
        if (NOT_OUTPUT_BLOCK.test(block.type)) return;
        this.unknown(block);
        return;
    }
  }

  #messagesDelta(delta: unknown): void {
    if (!isObject(delta)) {
      this.unknown(delta);
      return;
    }
    switch (delta.type) {
      case "text_delta":
        this.text(delta.text);
        return;
      case "input_json_delta":
        this.text(delta.partial_json);
        return;
      case "thinking_delta":
        this.text(delta.thinking);
        return;
      case "citations_delta":
        this.#citation(delta.citation);
        return;
      case "signature_delta":
        // The signature that authenticates a thinking block is not generated text.
        return;
      default:
        this.unknown(delta);
        return;
    }
  }
}

/** How the output of a finished request is charged, and why (recorded in the ledger row's detail as `rule`). */
export type OutputCharge = { outputTokens: number; rule: "usage" | "meter" };

/**
 * The output to charge (docs/billing.md): the upstream's reported count when the answer is complete and reported it;
 * otherwise the larger of what it reported and what the meter counted as delivered, the meter's count taken at most
 * up to the output cap that was sent (an upstream that honours its cap bills no more; one that reports more is charged
 * what it reports).
 */
export function chargeOutput(options: {
  complete: boolean;
  reported: number | undefined;
  metered: () => number;
  outputCap: number;
}): OutputCharge {
  const { complete, reported } = options;
  if (complete && reported !== undefined) return { outputTokens: reported, rule: "usage" };
  const metered = Math.min(options.metered(), options.outputCap);
  if (reported !== undefined && reported >= metered) return { outputTokens: reported, rule: "usage" };
  return { outputTokens: metered, rule: "meter" };
}
