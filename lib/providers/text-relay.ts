// The one relay of the text endpoints: an upstream's answer in its dialect (Chat Completions or Messages), streamed
// or whole, goes to the client in the client's dialect, converted where the two differ, and the usage to settle is
// worked out on the way by one set of rules (docs/billing.md, "What a cut or unreported answer costs"):
// - the upstream's dialect says what it reported and whether its answer is complete: its terminal event arrived
//   (Messages `message_stop`; Chat a `finish_reason`, then `[DONE]`); anything else is a cut, whoever closed the stream;
// - the client's dialect is metered (lib/money/meter.ts): every delta of every kind that reached the client;
// - the charge is the reported usage for a complete answer that reported it, else at least what the meter counted.
// Each adapter only builds its request and hands the answer here; none counts anything on its own.
import type { z } from "zod";
import { encodeSse, type SseEvent, type SseSource } from "@/lib/platform/sse";
import { GatewayError } from "@/lib/platform/errors";
import { jsonText } from "@/lib/platform/http/json";
import { chargeOutput, OutputMeter } from "@/lib/money/meter";
import { countTextTokens } from "@/lib/money/tokens";
import { relayedOutcome, type EventDecoder, type StreamEnd } from "./sse-relay";
import { readUpstreamJson, upstreamBody } from "./http";
import { chatResponseToMessage } from "@/lib/dialects/convert/chat-to-messages";
import { messagesResponseToChat } from "@/lib/dialects/convert/messages-to-chat";
import { MessagesStreamToChat } from "@/lib/dialects/convert/messages-stream-to-chat";
import { ChatStreamToMessages } from "@/lib/dialects/convert/chat-stream-to-messages";
import { chatCompletionChunkSchema, chatCompletionSchema } from "@/lib/dialects/chat/wire";
import { messagesResponseSchema, messagesStreamEventSchemas } from "@/lib/dialects/messages/wire";
import type { HubAnswer, HubUsage, StreamToChat } from "@/lib/dialects/hub";
import type { Outcome, TextCall, UpstreamFailure, UsageReport } from "./types";
import { geminiWholeAnswer, geminiWriter } from "./gemini-client";

export type TextDialect = "chat" | "messages";

/**
 * A vendor dialect outside Anthropic's family (Gemini, Converse), read through the hub (lib/dialects/hub.ts): its
 * answers become Chat Completions, which the relay then treats as it treats a Chat upstream.
 */
export type HubDialect = {
  /** The vendor's terminal event, for the message of a stream that ended without it. */
  lastEvent: string;
  answer(body: Record<string, unknown>, publicModel: string): HubAnswer;
  stream(publicModel: string): StreamToChat;
};

/** What the upstream answered, before the relay reads it. */
export type UpstreamAnswer =
  | { stream: false; read: () => Promise<{ ok: true; value: Record<string, unknown> } | UpstreamFailure> }
  | { stream: true; body: SseSource; abort: AbortController; decode?: EventDecoder };

/** An upstream's HTTP answer as the relay reads it: its event stream (SSE unless `decode` says otherwise), or its
 *  JSON body. */
export function fetchedAnswer(
  call: TextCall,
  fetched: { response: Response; abort: AbortController },
  decode?: EventDecoder,
): UpstreamAnswer {
  const { response, abort } = fetched;
  return call.stream
    ? { stream: true, body: upstreamBody(response), abort, decode }
    : { stream: false, read: () => readUpstreamJson(response, call.signal) };
}

/** Usage as the upstream reported it: each part only when it did. */
type Reported = Partial<Pick<UsageReport, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "cacheWrite1hTokens">> & {
  outputTokens?: number;
  toolUses?: Record<string, number>;
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A token count as reported: a whole number ≥ 0, or not reported at all. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Chat usage: `prompt_tokens` includes the cached ones, which are priced apart. DeepSeek reports its cache hits as
 *  `prompt_cache_hit_tokens` (https://api-docs.deepseek.com/guides/kv_cache): read where `cached_tokens` is absent. */
function chatReported(usage: unknown, into: Reported): void {
  if (!isObject(usage)) return;
  const prompt = count(usage.prompt_tokens);
  if (prompt !== undefined) {
    const details = isObject(usage.prompt_tokens_details) ? count(usage.prompt_tokens_details.cached_tokens) : undefined;
    const cached = Math.min(prompt, details ?? count(usage.prompt_cache_hit_tokens) ?? 0);
    into.inputTokens = prompt - cached;
    into.cacheReadTokens = cached;
  }
  const output = count(usage.completion_tokens);
  if (output !== undefined) into.outputTokens = output;
}

/** Messages usage (cumulative counts; a part that is absent keeps its earlier value): fresh input, cache reads and
 *  writes (of which 1-hour ones) apart, output, and server tool uses (`web_search_requests` as `web_search`).
 *  message_start's output count is a placeholder (a token or so) before anything was written: not a report. */
function messagesReported(usage: unknown, into: Reported, withOutput = true): void {
  if (!isObject(usage)) return;
  const input = count(usage.input_tokens);
  if (input !== undefined) {
    into.inputTokens = input;
    into.cacheReadTokens = count(usage.cache_read_input_tokens) ?? 0;
    into.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? 0;
    into.cacheWrite1hTokens = count(isObject(usage.cache_creation) ? usage.cache_creation.ephemeral_1h_input_tokens : 0) ?? 0;
  }
  const output = withOutput ? count(usage.output_tokens) : undefined;
  if (output !== undefined) into.outputTokens = output;
  if (isObject(usage.server_tool_use)) {
    const uses: Record<string, number> = {};
    for (const [field, value] of Object.entries(usage.server_tool_use)) {
      const used = count(value);
      if (used) uses[field.replace(/_requests$/, "")] = used;
    }
    if (Object.keys(uses).length) into.toolUses = uses;
  }
}

/** The usage to settle: what the upstream reported, the gateway's own input count where it reported none, and the
 *  output by the rules of lib/money/meter.ts. */
function usageReport(call: TextCall, reported: Reported, metered: () => number, end: StreamEnd): UsageReport {
  const output = chargeOutput({ complete: end.complete, reported: reported.outputTokens, metered, outputCap: call.outputCap });
  return {
    inputTokens: reported.inputTokens ?? call.inputTokens,
    cacheReadTokens: reported.cacheReadTokens,
    cacheWriteTokens: reported.cacheWriteTokens,
    cacheWrite1hTokens: reported.cacheWrite1hTokens,
    toolUses: reported.toolUses,
    outputTokens: output.outputTokens,
    rule: output.rule,
    complete: end.complete,
    error: end.error,
    clientGone: end.clientGone,
  };
}

/** An upstream that ended its stream cleanly without its terminal event: a cut all the same. */
function missingEnd(upstream: TextDialect | HubDialect): GatewayError {
  const last = upstream === "messages" ? "message_stop" : upstream === "chat" ? "a finish_reason and [DONE]" : upstream.lastEvent;
  return new GatewayError("upstream_error", `The upstream's stream ended before its last event (${last})`);
}

/** A hub dialect's usage report, as reported (a part it left out stays out). */
function hubReported(usage: HubUsage, into: Reported): void {
  if (usage.inputTokens !== undefined) {
    into.inputTokens = usage.inputTokens;
    into.cacheReadTokens = usage.cacheReadTokens ?? 0;
    into.cacheWriteTokens = usage.cacheWriteTokens ?? 0;
  }
  if (usage.outputTokens !== undefined) into.outputTokens = usage.outputTokens;
}

/** A whole answer in the client's dialect, and the usage it reported. */
function wholeAnswer(call: TextCall, upstream: TextDialect | HubDialect, client: TextDialect, body: Json, reported: Reported): Json {
  if (typeof upstream === "object") {
    const { completion, usage } = upstream.answer(body, call.publicModel);
    hubReported(usage, reported);
    // An answer without usage is relayed without it, as a Chat upstream's would be: never as zeros.
    if (usage.inputTokens === undefined && usage.outputTokens === undefined) delete (completion as { usage?: unknown }).usage;
    return client === "chat" ? completion : chatResponseToMessage(completion, call.publicModel);
  }
  if (upstream === "chat") chatReported(body.usage, reported);
  else messagesReported(body.usage, reported);
  return upstream === client
    ? body
    : upstream === "messages"
      ? messagesResponseToChat(parsedAnswer(messagesResponseSchema, body, "message"), call.publicModel)
      : chatResponseToMessage(parsedAnswer(chatCompletionSchema, body, "chat completion"), call.publicModel);
}

/** Relays an upstream's answer to a client of `client`'s dialect (see the top of this file). */
export async function relayText(
  call: TextCall,
  upstream: TextDialect | HubDialect,
  client: TextDialect,
  answer: UpstreamAnswer,
): Promise<Outcome> {
  const meter = new OutputMeter();
  const reported: Reported = {};
  if (!answer.stream) {
    const read = await answer.read();
    if (!read.ok) return read;
    let out = wholeAnswer(call, upstream, client, read.value, reported);
    out.model = call.publicModel;
    // Metered only when the rules need it (no usage reported): a whole answer is read once, here.
    let metered = () => {
      if (client === "chat") meter.chatCompletion(out);
      else meter.message(out);
      return meter.tokens();
    };
    // A Gemini client's request came as Chat: its answer goes back as Gemini's (lib/providers/gemini-client.ts).
    if (call.geminiClient && client === "chat") ({ out, metered } = geminiWholeAnswer(out, call, meter));
    const usage = usageReport(call, reported, metered, { complete: true });
    return { ok: true, response: jsonText(JSON.stringify(out)), usage: Promise.resolve(usage) };
  }

  const stream =
    upstream === "chat"
      ? new ChatUpstream(reported)
      : upstream === "messages"
        ? new MessagesUpstream(reported)
        : new HubUpstream(upstream.stream(call.publicModel), reported);
  const upstreamDialect = upstream === "messages" ? "messages" : "chat";
  const gemini = call.geminiClient && client === "chat" ? geminiWriter(call, upstreamDialect, meter) : null;
  const writer: ClientWriter = gemini ?? clientWriter(call, upstreamDialect, client, meter);
  return relayedOutcome({
    body: answer.body,
    decode: answer.decode,
    abort: answer.abort,
    dialect: client === "chat" ? "openai" : "anthropic",
    errorText: gemini?.error,
    headers: gemini?.headers,
    onEvent(event) {
      const data = stream.read(event);
      if (!Array.isArray(data)) return data === null ? "" : writer.write(data, event);
      return data.flatMap((chunk) => writer.write(chunk, event));
    },
    onEnd() {
      if (!stream.complete) throw missingEnd(upstream);
      const tail = stream instanceof HubUpstream ? stream.finish().flatMap((chunk) => writer.write(chunk, { data: "" })) : [];
      return tail.concat(writer.end());
    },
    completed: () => stream.complete,
    // Complete when the upstream's last event arrived, whatever happened after it (docs/billing.md).
    usage: (end) => usageReport(call, reported, () => meter.tokens(), { ...end, complete: stream.complete }),
  });
}

// ------------------------------------------------------------------------------------------ the upstream's dialect

// Each event is read through its dialect's lenient schema (lib/dialects/): what the relay reads is checked, fields it
// does not know are kept. The event as the upstream sent it (the JSON.parse result, not the schema's copy) is what
// goes on to the client's writer, untouched but for what the writer itself changes.

/** A whole answer read through its dialect's schema for conversion, or the upstream's fault. */
function parsedAnswer<T extends z.ZodType>(schema: T, body: Json, what: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new GatewayError("upstream_error", `The upstream sent a malformed ${what}.`);
  return parsed.data;
}

/** Reads a Chat Completions stream: usage when it comes; complete once a finish reason and then `[DONE]` arrived. */
class ChatUpstream {
  #finished = false;
  complete = false;

  constructor(private readonly reported: Reported) {}

  /** The chunk, or null for `[DONE]`. */
  read(event: SseEvent): Json | null {
    if (event.data === "[DONE]") {
      this.complete = this.#finished;
      return null;
    }
    const data: unknown = JSON.parse(event.data);
    const parsed = isObject(data) ? chatCompletionChunkSchema.safeParse(data) : null;
    if (!parsed?.success || !isObject(data))
      throw new GatewayError("upstream_error", "The upstream sent a malformed chat completion chunk.");
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) throw new GatewayError("upstream_error", "The upstream failed mid-stream.");
    if (chunk.usage) chatReported(chunk.usage, this.reported);
    if (chunk.choices?.some((choice) => choice.finish_reason)) this.#finished = true;
    return data;
  }
}

/** Reads a Messages stream: input from message_start, cumulative usage from message_delta; complete at message_stop.
 *  Events of a type the schemas do not know (a newer vendor feature) go on unread. */
class MessagesUpstream {
  complete = false;

  constructor(private readonly reported: Reported) {}

  read(event: SseEvent): Json {
    const data: unknown = JSON.parse(event.data);
    if (!isObject(data)) throw new GatewayError("upstream_error", "The upstream sent a malformed Messages event.");
    const type = data.type;
    if (typeof type !== "string" || !Object.hasOwn(messagesStreamEventSchemas, type)) return data;
    const parsed = messagesStreamEventSchemas[type as keyof typeof messagesStreamEventSchemas].safeParse(data);
    if (!parsed.success) throw new GatewayError("upstream_error", `The upstream sent a malformed Messages event (${type}).`);
    const known = parsed.data;
    if (known.type === "message_start") messagesReported(known.message.usage, this.reported, false);
    else if (known.type === "message_delta") messagesReported(known.usage, this.reported);
    else if (known.type === "message_stop") this.complete = true;
    else if (known.type === "error") {
      // Only the error's type is passed on: the upstream's words may carry details of the channel's account.
      const vendorType = known.error?.type ?? "api_error";
      throw new GatewayError("upstream_error", `The upstream failed mid-stream (${vendorType}).`, { vendor: { type: vendorType } });
    }
    return data;
  }
}

/** Reads a vendor dialect's stream through its hub converter (lib/dialects/hub.ts): each event becomes Chat chunks. */
class HubUpstream {
  constructor(
    private readonly converter: StreamToChat,
    private readonly reported: Reported,
  ) {}

  get complete(): boolean {
    return this.converter.complete;
  }

  read(event: SseEvent): Json[] {
    const chunks = this.converter.push(JSON.parse(event.data), event.event);
    hubReported(this.converter.usage, this.reported);
    return chunks as unknown as Json[];
  }

  finish(): Json[] {
    const chunks = this.converter.finish();
    hubReported(this.converter.usage, this.reported);
    return chunks as unknown as Json[];
  }
}

// -------------------------------------------------------------------------------------------- the client's dialect

type ClientWriter = {
  /** The SSE text to send for one upstream event (its parsed data, and the event as it came). */
  write(data: Json, event: SseEvent): string | string[];
  /** What to send after a complete upstream stream. */
  end(): string | string[];
};

function chatSse(chunk: unknown): string {
  return encodeSse({ data: JSON.stringify(chunk) });
}

function messagesSse(event: { type: string }): string {
  return encodeSse({ event: event.type, data: JSON.stringify(event) });
}

function clientWriter(call: TextCall, upstream: TextDialect, client: TextDialect, meter: OutputMeter): ClientWriter {
  if (upstream === "chat" && client === "chat") {
    return {
      write(chunk) {
        meter.chatChunk(chunk);
        if (!call.includeUsage) {
          // Usage is always asked for upstream, for billing; a client that did not ask does not get the extra chunk.
          if (chunk.usage && Array.isArray(chunk.choices) && chunk.choices.length === 0) return "";
          delete chunk.usage;
        }
        chunk.model = call.publicModel;
        return chatSse(chunk);
      },
      end: () => encodeSse({ data: "[DONE]" }),
    };
  }
  if (upstream === "messages" && client === "messages") {
    return {
      write(data, event) {
        meter.messagesEvent(data);
        if (data.type === "message_start" && isObject(data.message)) {
          data.message.model = call.publicModel;
          return encodeSse({ event: event.event ?? "message_start", data: JSON.stringify(data) });
        }
        // Other events go out byte for byte.
        return encodeSse({ event: event.event, data: event.data });
      },
      end: () => "",
    };
  }
  if (upstream === "messages") {
    const converter = new MessagesStreamToChat({ publicModel: call.publicModel, includeUsage: call.includeUsage });
    return {
      write(data) {
        return converter.push(data).map((chunk) => {
          meter.chatChunk(chunk);
          return chatSse(chunk);
        });
      },
      end: () => encodeSse({ data: "[DONE]" }),
    };
  }
  // message_stop only once the upstream's stream is complete ([DONE] after the finish reason), not on its usage.
  const converter = new ChatStreamToMessages({
    publicModel: call.publicModel,
    countTokens: countTextTokens,
    inputTokens: call.inputTokens,
    holdEnd: true,
  });
  const send = (events: { type: string }[]) =>
    events.map((event) => {
      meter.messagesEvent(event);
      return messagesSse(event);
    });
  return {
    write: (chunk) => send(converter.push(chunk)),
    end: () => send(converter.finish()),
  };
}
