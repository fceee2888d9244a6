// The built-in offline upstream's text model (docs/decisions/0008-offline-simulator.md). Answers are deterministic from the
// model and the prompt, readable, marked "(simulated)", cut at max tokens and stop sequences like a real model's,
// and carry usage counted with the same tokenizer the gateway bills with. The producers below render them in
// the vendors' wire formats:
//   OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/object (and chat-streaming)
//   Anthropic Messages:      https://docs.anthropic.com/en/api/messages (and build-with-claude/streaming)
import { createHash, randomBytes } from "node:crypto";
import { mulberry32 } from "@/lib/platform/random";
import {
  countChatRequestInputTokens,
  countMessagesInputTokens,
  countTextTokens,
  truncateToTokens,
  type ChatMessageLike,
  type MessagesBodyLike,
} from "@/lib/money/tokens";
import { DEFAULT_MAX_TOKENS } from "@/lib/dialects/convert/common";
import type { ChatCompletion, ChatCompletionChunk, ChatFinishReason, ChatUsage } from "@/lib/dialects/chat/wire";
import type { MessagesResponse, MessagesStopReason, MessagesStreamEvent } from "@/lib/dialects/messages/wire";

import {
  chatEndsWithToolResult,
  chatForcedTool,
  chatStructuredContent,
  chatTools,
  chooseTool,
  instanceOf,
  messagesEndsWithToolResult,
  messagesForcedTool,
  messagesStructuredContent,
  messagesTools,
  toolCallId,
  type SimulatedToolCall,
} from "./agent";

export const SIMULATED_PREFIX = "(simulated) ";

export type SimulatedText = {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** Cut at `maxTokens` (finish_reason "length", stop_reason "max_tokens"). */
  truncated: boolean;
  /** The stop sequence the text was cut at, if any. */
  stopSequence: string | null;
};

// Common words that make poor topics; the rest of a prompt's longer words usually name what it is about.
const TOPIC_STOPWORDS = new Set(
  (
    "about above after again against almost along already also although always among another anything around because become became " +
    "before being below between both cannot could describe different doing during each either enough especially even every everything " +
    "example explain first following further given going happen happens having however include including instead into itself just " +
    "later least maybe might more most much must never often other others otherwise perhaps please possible probably provide quite " +
    "rather really right same should since something sometimes still such summarize thank thanks that their them then there these " +
    "they thing things think this those though through today under until using usually very want what when where whether which while " +
    "whose will with within without would write your yours yourself"
  ).split(" "),
);

/** Scripts written without spaces between words: a "word" there is a whole phrase, not a topic. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

const FALLBACK_TOPICS = [
  "reliability",
  "cost",
  "latency",
  "clarity",
  "maintenance",
  "security",
  "scale",
  "usability",
  "accuracy",
  "simplicity",
];

const SENTENCES = [
  "A practical first step is to write down what {topic} should achieve, and how you would measure it.",
  "In most setups, {topic} matters less than keeping the feedback loop short.",
  "It often helps to weigh {topic} against {other} before settling on a plan.",
  "Small, reversible changes make {topic} easier to reason about.",
  "A concrete example of {topic} usually settles questions that abstract discussion cannot.",
  "Teams that document {topic} early tend to avoid surprises later.",
  "The trade-off between {topic} and {other} is worth stating explicitly.",
  "Start simple, then refine {topic} once real numbers are in.",
  "A quick test with realistic data will show whether your assumptions about {topic} hold up.",
  "Keep an eye on {other} while {topic} evolves.",
  "Most problems with {topic} come from unclear requirements rather than hard technical limits.",
  "When in doubt, favour the option for {topic} that is easiest to undo.",
];

/** A small deterministic generator (mulberry32) seeded from the prompt, so the same prompt gives the same answer. */
function seededRandom(seedText: string): () => number {
  return mulberry32(createHash("sha256").update(seedText).digest().readUInt32LE(0));
}

/** The prompt on one line, cut to about 120 characters at a word boundary when there is one. */
function summarize(promptText: string): string {
  const line = promptText.replace(/\s+/g, " ").trim();
  if (line.length <= 120) return line;
  const space = line.lastIndexOf(" ", 120);
  return `${line.slice(0, space > 60 ? space : 120)}…`;
}

/** Up to three distinctive words of the prompt (the longest, shown in order of appearance). */
function topicsOf(promptText: string): string[] {
  const candidates: { word: string; position: number }[] = [];
  const seen = new Set<string>();
  for (const match of promptText.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'-]{4,23}/gu)) {
    const key = match[0].toLowerCase();
    if (TOPIC_STOPWORDS.has(key) || seen.has(key) || UNSPACED_SCRIPT.test(key) || /^[\p{N}'-]+$/u.test(key)) continue;
    seen.add(key);
    candidates.push({ word: match[0], position: candidates.length });
    if (candidates.length === 50) break;
  }
  return candidates
    .sort((a, b) => b.word.length - a.word.length || a.position - b.position)
    .slice(0, 3)
    .sort((a, b) => a.position - b.position)
    .map((candidate) => candidate.word);
}

function listOf(words: string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** The full, uncut answer for a prompt. */
function composeAnswer(model: string, promptText: string): string {
  const random = seededRandom(`${model}\n${promptText}`);
  const summary = summarize(promptText);
  const topics = topicsOf(promptText);
  const pool = topics.length > 0 ? topics : [FALLBACK_TOPICS[Math.floor(random() * FALLBACK_TOPICS.length)]!];

  const parts = [
    summary === "" ? "You sent an empty prompt." : `You asked: "${summary}"${/[.?!…。？！]$/u.test(summary) ? "" : "."}`,
    topics.length > 0 ? `The main ${topics.length === 1 ? "topic seems" : "topics seem"} to be ${listOf(topics)}.` : "",
    "This answer comes from the gateway's built-in simulator, so no language model read your message.",
  ];
  const count = 3 + Math.floor(random() * 4);
  const used = new Set<number>();
  while (used.size < count) {
    const index = Math.floor(random() * SENTENCES.length);
    if (used.has(index)) continue;
    // Topics take turns, so each one is mentioned.
    const topic = pool[used.size % pool.length]!;
    used.add(index);
    const others = FALLBACK_TOPICS.filter((candidate) => candidate !== topic);
    parts.push(SENTENCES[index]!.replace("{topic}", topic).replace("{other}", others[Math.floor(random() * others.length)]!));
  }
  return SIMULATED_PREFIX + parts.filter((part) => part !== "").join(" ");
}

/**
 * The simulator's answer to `promptText`: deterministic for a given model and prompt, starting with "(simulated) ",
 * cut before the first stop sequence and then to `maxTokens` tokens. `inputTokens` defaults to the prompt's token
 * count; the wire producers pass the whole request's count instead.
 */
export function simulateText(options: {
  model: string;
  promptText: string;
  maxTokens: number;
  inputTokens?: number;
  stop?: readonly string[];
}): SimulatedText {
  let text = composeAnswer(options.model, options.promptText);
  let stopSequence: string | null = null;
  let stopAt = text.length;
  for (const stop of options.stop ?? []) {
    const index = stop === "" ? -1 : text.indexOf(stop);
    if (index !== -1 && index < stopAt) {
      stopAt = index;
      stopSequence = stop;
    }
  }
  text = text.slice(0, stopAt);
  const cut = truncateToTokens(text, Math.max(0, options.maxTokens));
  return {
    text: cut.text,
    inputTokens: options.inputTokens ?? countTextTokens(options.promptText),
    outputTokens: cut.tokens,
    truncated: cut.truncated,
    stopSequence: cut.truncated ? null : stopSequence,
  };
}

// ---------------------------------------------------------------------------------------------
// Request shapes the producers read (any validated request body fits; other fields are ignored).

export type SimulatorChatRequest = {
  messages: readonly ChatMessageLike[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | readonly string[] | null;
  stream_options?: { include_usage?: boolean | null } | null;
  tools?: readonly unknown[] | null;
};

export type SimulatorMessagesRequest = MessagesBodyLike & {
  max_tokens?: number | null;
  stop_sequences?: readonly string[] | null;
};

/**
 * How much of the last user turn an answer reads (docs/simulator.md): the answer, its tool choice and its seed come
 * from the turn's first characters, so a turn of 200,000 parts is not joined whole on the event loop (15 ms and more
 * of garbage, measured here) to answer with a summary of its first line.
 */
export const PROMPT_TEXT_CHARS = 16_384;

/** Text of a message's content (a string, or the text parts/blocks of an array, one per line), up to PROMPT_TEXT_CHARS. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content.length > PROMPT_TEXT_CHARS ? content.slice(0, PROMPT_TEXT_CHARS) : content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (typeof part !== "object" || part === null || (part as { type?: unknown }).type !== "text") continue;
    const piece = String((part as { text?: unknown }).text ?? "");
    if (piece === "") continue;
    text = text === "" ? piece : `${text}\n${piece}`;
    if (text.length >= PROMPT_TEXT_CHARS) return text.slice(0, PROMPT_TEXT_CHARS);
  }
  return text;
}

/** The last user turn is what the answer responds to. */
function lastUserText(messages: readonly { role?: string; content?: unknown }[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === "user") return textOf(messages[index]!.content);
  }
  return "";
}

type Simulated = SimulatedText & { toolCall: SimulatedToolCall | null };

/**
 * A tool call as the model writes it: its name and arguments, stopped at the output cap as a vendor stops it (finish
 * reason "length", stop reason "max_tokens"; the arguments then end mid-JSON), so it never costs more than the cap.
 */
function writeToolCall(id: string, name: string, args: Record<string, unknown>, maxTokens: number): Simulated {
  const overhead = countTextTokens(name) + 3;
  const cut = truncateToTokens(JSON.stringify(args), Math.max(0, maxTokens - overhead));
  const call: SimulatedToolCall = { id, name, arguments: cut.truncated ? {} : args, json: cut.text };
  return {
    text: "",
    inputTokens: 0,
    outputTokens: Math.min(maxTokens, overhead + cut.tokens),
    truncated: cut.truncated,
    stopSequence: null,
    toolCall: call,
  };
}

/** The JSON a response format asks for, as the whole answer (cut to max tokens like any text). */
function structured(result: SimulatedText, json: string | null, maxTokens: number): SimulatedText {
  if (json === null) return result;
  const cut = truncateToTokens(json, Math.max(0, maxTokens));
  return { ...result, text: cut.text, outputTokens: cut.tokens, truncated: cut.truncated, stopSequence: null };
}

/** `counted`: the request's input tokens as the gateway counted them (TextCall.inputTokens: off the event loop for a
 *  large body), which the simulator reports as a vendor reports its own count; counted here when not given. */
function simulateChat(body: SimulatorChatRequest, publicModel: string, counted?: number): Simulated {
  const stop = body.stop === undefined || body.stop === null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop;
  const promptText = lastUserText(body.messages);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS;
  const inputTokens = counted ?? countChatRequestInputTokens(body);
  const tool = chooseTool({
    tools: chatTools(body as never),
    forced: chatForcedTool(body as never),
    lastUserText: promptText,
    endsWithToolResult: chatEndsWithToolResult(body as never),
  });
  if (tool) {
    const args = (instanceOf(tool.schema ?? { type: "object" }, tool.name, tool.where) ?? {}) as Record<string, unknown>;
    const id = toolCallId("call_", `${publicModel}\n${promptText}\n${tool.name}`);
    return { ...writeToolCall(id, tool.name, args, maxTokens), inputTokens };
  }
  const text = simulateText({ model: publicModel, promptText, maxTokens, inputTokens, stop });
  return { ...structured(text, chatStructuredContent(body as never, text.text), maxTokens), toolCall: null };
}

function simulateMessages(body: SimulatorMessagesRequest, publicModel: string, counted?: number): Simulated {
  const promptText = lastUserText(body.messages);
  const maxTokens = body.max_tokens ?? DEFAULT_MAX_TOKENS;
  const inputTokens = counted ?? countMessagesInputTokens(body);
  const tool = chooseTool({
    tools: messagesTools(body as never),
    forced: messagesForcedTool(body as never),
    lastUserText: promptText,
    endsWithToolResult: messagesEndsWithToolResult(body as never),
  });
  if (tool) {
    const args = (instanceOf(tool.schema ?? { type: "object" }, tool.name, tool.where) ?? {}) as Record<string, unknown>;
    const id = toolCallId("toolu_", `${publicModel}\n${promptText}\n${tool.name}`);
    return { ...writeToolCall(id, tool.name, args, maxTokens), inputTokens };
  }
  const text = simulateText({ model: publicModel, promptText, maxTokens, inputTokens, stop: body.stop_sequences ?? [] });
  return { ...structured(text, messagesStructuredContent(body as never), maxTokens), toolCall: null };
}

function randomSuffix(): string {
  return randomBytes(15).toString("base64url").replace(/[-_]/g, "x");
}

function chatUsage(result: SimulatedText): ChatUsage {
  return {
    prompt_tokens: result.inputTokens,
    completion_tokens: result.outputTokens,
    total_tokens: result.inputTokens + result.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** JSON (a tool call's arguments) in pieces of about 16 characters, as vendors stream it. */
function jsonPieces(json: string): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < json.length; index += 16) pieces.push(json.slice(index, index + 16));
  return pieces.length ? pieces : [""];
}

/** Streamed text in pieces of a few words, each piece carrying its leading space as model tokens do. */
function textPieces(text: string): string[] {
  const words = text.match(/\s*\S+/g) ?? [];
  const pieces: string[] = [];
  for (let index = 0; index < words.length; index += 3) pieces.push(words.slice(index, index + 3).join(""));
  const rest = text.slice(pieces.join("").length); // trailing whitespace, if any
  if (rest !== "") pieces.push(rest);
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

/** A non-streamed `chat.completion`, with `system_fingerprint: "simulator"`. */
export function simulatorChatCompletion(body: SimulatorChatRequest, publicModel: string, inputTokens?: number): ChatCompletion {
  const result = simulateChat(body, publicModel, inputTokens);
  const finishReason: ChatFinishReason = result.truncated ? "length" : result.toolCall ? "tool_calls" : "stop";
  const message = result.toolCall
    ? {
        role: "assistant" as const,
        content: null,
        refusal: null,
        tool_calls: [
          {
            id: result.toolCall.id,
            type: "function" as const,
            function: { name: result.toolCall.name, arguments: result.toolCall.json },
          },
        ],
        annotations: [],
      }
    : { role: "assistant" as const, content: result.text, refusal: null, annotations: [] };
  return {
    id: `chatcmpl-sim${randomSuffix()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: publicModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: chatUsage(result),
    service_tier: "default",
    system_fingerprint: "simulator",
  };
}

/**
 * The chunks of a streamed completion, in OpenAI's order: a role chunk, content chunks of a few words, a finish
 * chunk, and with `stream_options.include_usage` a last chunk with empty choices and the usage (every other chunk
 * then carries `usage: null`). The caller writes each as `data: <json>\n\n` and ends with `data: [DONE]\n\n`.
 */
export function simulatorChatChunks(body: SimulatorChatRequest, publicModel: string, inputTokens?: number): ChatCompletionChunk[] {
  const result = simulateChat(body, publicModel, inputTokens);
  const includeUsage = body.stream_options?.include_usage === true;
  const base = {
    id: `chatcmpl-sim${randomSuffix()}`,
    object: "chat.completion.chunk" as const,
    created: Math.floor(Date.now() / 1000),
    model: publicModel,
    system_fingerprint: "simulator",
  };
  const chunk = (delta: ChatCompletionChunk["choices"][number]["delta"], finishReason: ChatFinishReason | null): ChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const call = result.toolCall;
  const chunks = call
    ? [
        // As OpenAI streams a call: the id and name first, then the arguments in pieces.
        chunk({ role: "assistant", content: null, refusal: null }, null),
        chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, null),
        ...jsonPieces(call.json).map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null)),
        chunk({}, result.truncated ? "length" : "tool_calls"),
      ]
    : [
        chunk({ role: "assistant", content: "", refusal: null }, null),
        ...textPieces(result.text).map((piece) => chunk({ content: piece }, null)),
        chunk({}, result.truncated ? "length" : "stop"),
      ];
  if (includeUsage) chunks.push({ ...base, choices: [], usage: chatUsage(result) });
  return chunks;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

function stopReasonOf(result: Simulated): MessagesStopReason {
  if (result.truncated) return "max_tokens";
  if (result.toolCall) return "tool_use";
  return result.stopSequence !== null ? "stop_sequence" : "end_turn";
}

function messageUsage(inputTokens: number, outputTokens: number): MessagesResponse["usage"] {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
    service_tier: "standard",
  };
}

/** A non-streamed Anthropic message; its id starts with `msg_sim_`. */
export function simulatorMessage(body: SimulatorMessagesRequest, publicModel: string, inputTokens?: number): MessagesResponse {
  const result = simulateMessages(body, publicModel, inputTokens);
  return {
    id: `msg_sim_${randomSuffix()}`,
    type: "message",
    role: "assistant",
    model: publicModel,
    content: result.toolCall
      ? [{ type: "tool_use", id: result.toolCall.id, name: result.toolCall.name, input: result.toolCall.arguments }]
      : result.text === ""
        ? []
        : [{ type: "text", text: result.text }],
    stop_reason: stopReasonOf(result),
    stop_sequence: result.stopSequence,
    usage: messageUsage(result.inputTokens, result.outputTokens),
  };
}

/**
 * The events of a streamed message, in Anthropic's order: message_start (with the input tokens), content_block_start,
 * ping, text deltas of a few words, content_block_stop, message_delta (stop_reason, output tokens), message_stop.
 * The caller writes each as `event: <event>\ndata: <JSON of data>\n\n`.
 */
export function simulatorMessageEvents(
  body: SimulatorMessagesRequest,
  publicModel: string,
  inputTokens?: number,
): { event: MessagesStreamEvent["type"]; data: MessagesStreamEvent }[] {
  const result = simulateMessages(body, publicModel, inputTokens);
  const events: MessagesStreamEvent[] = [
    {
      type: "message_start",
      message: {
        id: `msg_sim_${randomSuffix()}`,
        type: "message",
        role: "assistant",
        model: publicModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // Anthropic reports a token or so of output at the start; the final count comes in message_delta.
        usage: messageUsage(result.inputTokens, Math.min(1, result.outputTokens)),
      },
    },
    ...(result.toolCall
      ? [
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: result.toolCall.id, name: result.toolCall.name, input: {} },
          } as MessagesStreamEvent,
          { type: "ping" } as MessagesStreamEvent,
          ...jsonPieces(result.toolCall.json).map(
            (partial_json): MessagesStreamEvent => ({
              type: "content_block_delta",
              index: 0,
              delta: { type: "input_json_delta", partial_json },
            }),
          ),
        ]
      : [
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } as MessagesStreamEvent,
          { type: "ping" } as MessagesStreamEvent,
          ...textPieces(result.text).map(
            (text): MessagesStreamEvent => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
          ),
        ]),
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: stopReasonOf(result), stop_sequence: result.stopSequence },
      usage: { output_tokens: result.outputTokens },
    },
    { type: "message_stop" },
  ];
  return events.map((event) => ({ event: event.type, data: event }));
}
