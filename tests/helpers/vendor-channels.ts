// The cloud vendors' fakes (tests/fakes/, each proven with the vendor's own SDK) behind one shape, so that one set of
// integration tests runs over every channel type that reaches them: the channel to create, how to queue an answer,
// what the fake received and whether it accepted the credential, and what the vendor bills for its default answer.
// Azure OpenAI (tests/fakes/azure.ts) is here too, for the tests that run over every new type at once.
import { startAzureFake } from "../fakes/azure";
import { DEFAULT_AZURE_USAGE, throttled } from "../fakes/azure-wire";
import { startGeminiFake, type GeminiFake } from "../fakes/gemini";
import { googleError, DEFAULT_GEMINI_USAGE, type GeminiAnswer } from "../fakes/gemini-wire";
import { startVertexFake, type VertexFake } from "../fakes/vertex";
import { DEFAULT_CLAUDE_USAGE, type ClaudeAnswer } from "../fakes/vertex-wire";
import { defaultCredentials, startFakeBedrock, type FakeBedrock } from "../fakes/bedrock";
import { defaultUsage as BEDROCK_USAGE } from "../fakes/bedrock-wire";

/** Tokens as the ledger prices them: fresh input, cache reads and writes, output (reasoning included). */
export type Billed = { input: number; cacheRead: number; cacheWrite: number; output: number };

export type Received = { path: string; headers: Record<string, string | string[] | undefined>; body: any; authorized: boolean };

export type VendorChannel = {
  name: string;
  /** The public model the tests call, and what the channel maps it to upstream. */
  model: string;
  upstreamModel: string;
  /** The body of POST /api/admin/channels. */
  channel: Record<string, unknown>;
  /** The path the fake should see for a (streamed) call. */
  path(stream: boolean): RegExp;
  queueText(text: string[]): void;
  queueTool(name: string, args: Record<string, unknown>): void;
  /** A refusal of the request (4xx the vendor's way), and its message. */
  queueBadRequest(): string;
  queueRateLimit(): void;
  /**
   * A stream that stops without its end: after a few events or, given pieces of text, after every piece but the last
   * (Bedrock splits its text into words, one event each: the cut then falls before the last word).
   */
  queueCut(pieces?: string[]): void;
  received(): Received[];
  /** What the vendor bills for its default answer. */
  billed: Billed;
  /** Where the tool result of the second turn is, in the vendor's request. */
  toolResultOf(body: any): unknown;
  /** The fake itself, for what only that vendor does. */
  raw: unknown;
  close(): Promise<void>;
};

const GEMINI_BILLED: Billed = {
  input: DEFAULT_GEMINI_USAGE.promptTokenCount - DEFAULT_GEMINI_USAGE.cachedContentTokenCount!,
  cacheRead: DEFAULT_GEMINI_USAGE.cachedContentTokenCount!,
  cacheWrite: 0,
  output: DEFAULT_GEMINI_USAGE.candidatesTokenCount + DEFAULT_GEMINI_USAGE.thoughtsTokenCount!,
};

const CLAUDE_BILLED: Billed = {
  input: DEFAULT_CLAUDE_USAGE.input_tokens,
  cacheRead: DEFAULT_CLAUDE_USAGE.cache_read_input_tokens ?? 0,
  cacheWrite: DEFAULT_CLAUDE_USAGE.cache_creation_input_tokens ?? 0,
  output: DEFAULT_CLAUDE_USAGE.output_tokens,
};

const BEDROCK_BILLED: Billed = { input: BEDROCK_USAGE.input, cacheRead: 0, cacheWrite: 0, output: BEDROCK_USAGE.output };

function geminiToolResult(body: any): unknown {
  for (const content of body.contents ?? [])
    for (const part of content.parts ?? []) if (part.functionResponse) return part.functionResponse.response;
  return undefined;
}

function claudeToolResult(body: any): unknown {
  for (const message of body.messages ?? [])
    if (Array.isArray(message.content)) for (const block of message.content) if (block.type === "tool_result") return block.content;
  return undefined;
}

function converseToolResult(body: any): unknown {
  for (const message of body.messages ?? [])
    for (const block of message.content ?? []) if (block.toolResult) return block.toolResult.content;
  return undefined;
}

function geminiKnobs(push: (answer: GeminiAnswer) => void) {
  return {
    queueText: (text: string[]) => push({ text }),
    queueTool: (name: string, args: Record<string, unknown>) => push({ functionCalls: [{ name, args }] }),
    queueBadRequest: () => {
      const message = "Invalid value at 'contents[0].parts[0]' (the fake refuses it)";
      push({ error: { status: 400, body: googleError(400, "INVALID_ARGUMENT", message) } });
      return message;
    },
    queueRateLimit: () =>
      push({ error: { status: 429, body: googleError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).") } }),
    // One chunk per piece, the last one carrying finishReason.
    queueCut: (pieces?: string[]) =>
      push(
        pieces
          ? { text: pieces, cutAfterChunks: pieces.length - 1 }
          : { text: ["One ", "two ", "three ", "four ", "five."], cutAfterChunks: 2 },
      ),
  };
}

export async function geminiChannel(): Promise<VendorChannel> {
  const apiKey = "AIzaSyD-fake-gemini-key-0123456789abcdef";
  const fake: GeminiFake = await startGeminiFake({ apiKey });
  return {
    name: "gemini",
    model: "std-5.5",
    upstreamModel: "gemini-2.5-pro",
    channel: {
      name: "Gemini API",
      type: "gemini",
      baseUrl: fake.url,
      apiKey,
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "gemini-2.5-pro" },
    },
    path: (stream) =>
      stream ? /^\/v1beta\/models\/gemini-2\.5-pro:streamGenerateContent$/ : /^\/v1beta\/models\/gemini-2\.5-pro:generateContent$/,
    ...geminiKnobs((answer) => fake.answers.push(answer)),
    received: () => fake.received.map((request) => ({ ...request, headers: request.headers })),
    billed: GEMINI_BILLED,
    toolResultOf: geminiToolResult,
    raw: fake,
    close: () => fake.close(),
  };
}

let vertexFake: Promise<VertexFake> | undefined;
/** One Vertex fake for both of its publishers (its token endpoint counts the tokens it issued). */
export function sharedVertexFake(): Promise<VertexFake> {
  vertexFake ??= startVertexFake({ project: "gateway-tests-417203" });
  return vertexFake;
}

function vertexChannelBody(fake: VertexFake, name: string, model: string, upstreamModel: string) {
  return {
    name,
    type: "vertex",
    baseUrl: fake.url,
    apiKey: JSON.stringify(fake.serviceAccount),
    settings: { project: "gateway-tests-417203", region: "us-east5" },
    models: [model],
    modelMapping: { [model]: upstreamModel },
  };
}

const VERTEX_PREFIX = "/v1/projects/gateway-tests-417203/locations/us-east5/publishers";

export async function vertexGeminiChannel(): Promise<VendorChannel> {
  const fake = await sharedVertexFake();
  const mine = (request: { path: string }) => request.path.includes("/publishers/google/");
  return {
    name: "vertex (Gemini)",
    model: "std-5.5",
    upstreamModel: "gemini-2.5-flash",
    channel: vertexChannelBody(fake, "Vertex Gemini", "std-5.5", "gemini-2.5-flash"),
    path: (stream) =>
      new RegExp(`^${VERTEX_PREFIX}/google/models/gemini-2\\.5-flash:${stream ? "streamGenerateContent" : "generateContent"}$`),
    ...geminiKnobs((answer) => fake.geminiAnswers.push(answer)),
    received: () => fake.received.filter(mine),
    billed: GEMINI_BILLED,
    toolResultOf: geminiToolResult,
    raw: fake,
    close: async () => undefined,
  };
}

export async function vertexClaudeChannel(): Promise<VendorChannel> {
  const fake = await sharedVertexFake();
  const push = (answer: ClaudeAnswer) => fake.claudeAnswers.push(answer);
  return {
    name: "vertex (Claude)",
    model: "msg-sonnet-4-6",
    upstreamModel: "claude-sonnet-4-5@20250929",
    channel: vertexChannelBody(fake, "Vertex Claude", "msg-sonnet-4-6", "claude-sonnet-4-5@20250929"),
    path: (stream) =>
      new RegExp(`^${VERTEX_PREFIX}/anthropic/models/claude-sonnet-4-5@20250929:${stream ? "streamRawPredict" : "rawPredict"}$`),
    queueText: (text) => push({ text }),
    queueTool: (name, input) => push({ toolUse: { id: "toolu_vrtx_01A09q90qw90lq917835lq9", name, input } }),
    queueBadRequest: () => {
      const message = "messages.0.content: the fake refuses this content";
      push({ error: { status: 400, body: { type: "error", error: { type: "invalid_request_error", message } } } });
      return message;
    },
    queueRateLimit: () =>
      push({
        error: {
          status: 429,
          body: googleError(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model",
          ),
        },
      }),
    // message_start, content_block_start and a ping, then one delta per piece.
    queueCut: (pieces) =>
      push(
        pieces
          ? { text: pieces, cutAfterEvents: 3 + pieces.length - 1 }
          : { text: ["One ", "two ", "three ", "four ", "five."], cutAfterEvents: 4 },
      ),
    received: () => fake.received.filter((request) => request.path.includes("/publishers/anthropic/")),
    billed: CLAUDE_BILLED,
    toolResultOf: claudeToolResult,
    raw: fake,
    close: async () => undefined,
  };
}

async function bedrockChannel(kind: "invoke" | "converse"): Promise<VendorChannel> {
  const fake: FakeBedrock = await startFakeBedrock();
  const claude = kind === "invoke";
  const model = claude ? "msg-sonnet-4-6" : "std-5.5";
  const upstreamModel = claude ? "us.anthropic.claude-sonnet-4-5-20250929-v1:0" : "amazon.nova-pro-v1:0";
  const encoded = encodeURIComponent(upstreamModel).replace(/\./g, "\\.");
  return {
    name: claude ? "bedrock (Claude by Invoke)" : "bedrock (Converse)",
    model,
    upstreamModel,
    channel: {
      name: claude ? "Bedrock Claude" : "Bedrock Nova",
      type: "bedrock",
      baseUrl: fake.httpUrl,
      apiKey: `${defaultCredentials.accessKeyId}:${defaultCredentials.secretAccessKey}`,
      settings: { region: defaultCredentials.region },
      models: [model],
      modelMapping: { [model]: upstreamModel },
    },
    path: (stream) =>
      new RegExp(
        `^/model/${encoded}/${claude ? (stream ? "invoke-with-response-stream" : "invoke") : stream ? "converse-stream" : "converse"}$`,
      ),
    queueText: (text) => fake.queue.push({ text: text.join("") }),
    queueTool: (name, input) => fake.queue.push({ text: "", toolCall: { id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name, input } }),
    queueBadRequest: () => {
      const message = "The model returned the following errors: the fake refuses this request";
      fake.queue.push({ error: { type: "ValidationException", message } });
      return message;
    },
    queueRateLimit: () => fake.throttleNext(1),
    // Invoke: message_start and content_block_start, then one delta per word; Converse: messageStart, then the words.
    queueCut: (pieces) => {
      if (!pieces) return void fake.queue.push({ text: "One two three four five six seven eight.", cutAfterEvents: 4 });
      const text = pieces.join("");
      const words = text.match(/\S+\s*/g)?.length ?? 1;
      fake.queue.push({ text, cutAfterEvents: (claude ? 2 : 1) + words - 1 });
    },
    received: () =>
      fake.received.map((request) => ({
        path: request.path,
        headers: request.headers,
        body: request.body,
        authorized: request.auth.ok,
      })),
    billed: BEDROCK_BILLED,
    toolResultOf: claude ? claudeToolResult : converseToolResult,
    raw: fake,
    close: () => fake.close(),
  };
}

export const bedrockInvokeChannel = () => bedrockChannel("invoke");
export const bedrockConverseChannel = () => bedrockChannel("converse");

const AZURE_BILLED: Billed = {
  input: DEFAULT_AZURE_USAGE.prompt_tokens - (DEFAULT_AZURE_USAGE.cached_tokens ?? 0),
  cacheRead: DEFAULT_AZURE_USAGE.cached_tokens ?? 0,
  cacheWrite: 0,
  output: DEFAULT_AZURE_USAGE.completion_tokens,
};

/** An Azure OpenAI resource with one chat deployment, `chat-prod`, called with API version 2025-04-01-preview. */
export async function azureChannel(): Promise<VendorChannel> {
  const apiKey = "9c2e4a71f0b84d3e8a5c6b7d1e2f3a4b";
  const fake = await startAzureFake({ apiKey, deployments: { "chat-prod": { model: "gpt-4o-2024-11-20", kind: "chat" } } });
  return {
    name: "azure",
    model: "std-5.5",
    upstreamModel: "chat-prod",
    channel: {
      name: "Azure OpenAI",
      type: "azure",
      baseUrl: fake.url,
      apiKey,
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "chat-prod" },
      settings: { apiVersion: "2025-04-01-preview" },
    },
    path: () => /^\/openai\/deployments\/chat-prod\/chat\/completions$/,
    queueText: (text) => fake.answers.push({ text }),
    queueTool: (name, args) => fake.answers.push({ toolCalls: [{ id: "call_az_7Qm2kP4xR9", name, arguments: JSON.stringify(args) }] }),
    queueBadRequest: () => {
      const message = "Invalid 'messages[0].content': the fake refuses this content.";
      fake.answers.push({
        error: { status: 400, body: { error: { message, type: "invalid_request_error", param: "messages", code: null } } },
      });
      return message;
    },
    queueRateLimit: () => fake.answers.push({ error: throttled("2025-04-01-preview") }),
    // The prompt's filter results and the role chunk come first, then one chunk per piece.
    queueCut: (pieces) =>
      fake.answers.push(
        pieces
          ? { text: pieces, cutAfterChunks: 2 + pieces.length - 1 }
          : { text: ["One ", "two ", "three ", "four ", "five."], cutAfterChunks: 4 },
      ),
    received: () =>
      fake.received.map((request) => ({
        path: request.path,
        headers: request.headers,
        body: request.body,
        authorized: request.authorized,
      })),
    billed: AZURE_BILLED,
    toolResultOf: (body) => body.messages?.find((message: { role: string }) => message.role === "tool")?.content,
    raw: fake,
    close: () => fake.close(),
  };
}
