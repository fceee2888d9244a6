// `azure` channels (lib/providers/azure/) over real HTTP: the gateway (startGateway) in front of the Azure OpenAI fake
// (tests/fakes/azure.ts, which checks `api-key`, `api-version` and deployments as Azure does), channels made through
// the operator API, clients the official SDKs and the AI SDK. Each call is checked upstream (the key in api-key and no
// Authorization, the API version, the mapped deployment in the path) and in the ledger (the fake's usage at the
// model's seeded prices, cached input at the cache-read price).
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI, { NotFoundError, toFile } from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startAzureFake, type AzureFake } from "../fakes/azure";
import { DEFAULT_AZURE_USAGE, throttled, TINY_PNG_BASE64, type AzureUsage } from "../fakes/azure-wire";

const AZURE_KEY = "9c2e4a71f0b84d3e8a5c6b7d1e2f3a4b";
const VERSION = "2025-04-01-preview";
// Seeded prices, micro-USD per token (lib/server/seed.ts): std-5.5 and msg-sonnet-4-6 read cached input at 0.1x.
const STD = { input: 1.25, output: 10, cacheRead: 0.1 };
const SONNET = { input: 3, output: 15, cacheRead: 0.1 };
const IMAGE = { textInput: 5, imageInput: 8, imageOutput: 30 };

let gateway: Gateway;
let key: string;
let fake: AzureFake;
let mainId: string;

const MAIN = {
  name: "azure main",
  type: "azure",
  apiKey: AZURE_KEY,
  models: ["std-5.5", "msg-sonnet-4-6", "std-image-2"],
  modelMapping: { "std-5.5": "chat-prod", "msg-sonnet-4-6": "chat-prod", "std-image-2": "images-1" },
  settings: { apiVersion: VERSION },
  priority: 50,
};

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 }));
  fake = await startAzureFake({
    apiKey: AZURE_KEY,
    deployments: {
      "chat-prod": { model: "gpt-4o-2024-11-20", kind: "chat" },
      "chat-eu": { model: "gpt-4o-2024-11-20", kind: "chat" },
      "images-1": { model: "gpt-image-1", kind: "images" },
    },
  });
  mainId = await channel({ ...MAIN, baseUrl: fake.url });
});
after(async () => {
  await fake?.close();
  await stopAllGateways();
});
beforeEach(() => {
  fake.received.length = 0;
  fake.answers.length = 0;
});

async function channel(body: Record<string, unknown>): Promise<string> {
  return (await gateway.admin("POST", "/api/admin/channels", body)).id;
}

async function ledgerFor(requestId: string) {
  const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
  assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
  return rows[0];
}

/** What a chat answer with this usage costs: fresh input, cached input at the cache-read price, output. */
function textCost(usage: AzureUsage, price: { input: number; output: number; cacheRead: number }): number {
  const cached = usage.cached_tokens ?? 0;
  return Math.ceil(
    (usage.prompt_tokens - cached) * price.input + cached * price.input * price.cacheRead + usage.completion_tokens * price.output - 1e-9,
  );
}

async function assertLedger(requestId: string, usage: AzureUsage, price: typeof STD, channelName = "azure main") {
  const row = await ledgerFor(requestId);
  const cached = usage.cached_tokens ?? 0;
  assert.equal(row.channelName, channelName);
  assert.equal(row.status, "success");
  assert.deepEqual(
    [row.textInputTokens, row.cacheReadTokens, row.textOutputTokens],
    [usage.prompt_tokens - cached, cached, usage.completion_tokens],
  );
  // The fake's usage does not depend on the request (1,237 input tokens for "Hi"): past the reservation, it is charged
  // in full all the same (docs/billing.md, "Nothing is written off").
  assert.equal(row.cost, textCost(usage, price));
}

/** The request the fake saw went to this deployment and operation, with the key in api-key and this API version. */
function assertAzureCall(seen: AzureFake["received"][number], deployment: string, operation: string, version = VERSION): void {
  assert.equal(seen.path, `/openai/deployments/${deployment}/${operation}`);
  assert.equal(seen.query["api-version"], version);
  assert.equal(seen.headers["api-key"], AZURE_KEY);
  assert.equal(seen.headers.authorization, undefined, "no Authorization header");
  assert.equal(JSON.stringify(seen.headers).includes(key), false, "the caller's key never goes upstream");
  assert.equal(seen.authorized, true);
}

const openai = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });

describe("text through an azure channel", () => {
  test("Chat Completions, whole: deployment, api-version, api-key; the cap as max_completion_tokens; the ledger", async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Hi" }], max_tokens: 50 })
      .withResponse();
    assert.equal(data.choices[0]!.message.content, "Azure says hello.");
    assert.equal(data.model, "std-5.5");
    assert.equal(data.usage?.prompt_tokens, DEFAULT_AZURE_USAGE.prompt_tokens);
    const [seen] = fake.received;
    assertAzureCall(seen!, "chat-prod", "chat/completions");
    assert.equal(seen!.body.model, "chat-prod");
    assert.equal(seen!.body.max_completion_tokens, 50);
    assert.equal(seen!.body.max_tokens, undefined);
    await assertLedger(response.headers.get("x-request-id")!, DEFAULT_AZURE_USAGE, STD);
  });

  test("settings.maxTokensField: max_tokens sends the cap as max_tokens, for Chat and converted Messages", async () => {
    await gateway.admin("PATCH", `/api/admin/channels/${mainId}`, { settings: { apiVersion: VERSION, maxTokensField: "max_tokens" } });
    try {
      await openai().chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Hi" }], max_completion_tokens: 70 });
      await anthropic().messages.create({ model: "msg-sonnet-4-6", max_tokens: 80, messages: [{ role: "user", content: "Hi" }] });
      assert.deepEqual(
        fake.received.map((seen) => [seen.body.max_tokens, seen.body.max_completion_tokens]),
        [
          [70, undefined],
          [80, undefined],
        ],
      );
    } finally {
      await gateway.admin("PATCH", `/api/admin/channels/${mainId}`, { settings: MAIN.settings });
    }
  });

  test("Chat Completions, streamed, with and without the client's usage chunk (always asked for upstream)", async () => {
    const usage = { prompt_tokens: 523, completion_tokens: 47, cached_tokens: 128 };
    fake.answers.push({ text: ["One ", "two ", "three"], usage }, { text: ["Four"], usage });
    const { data: stream, response } = await openai()
      .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Count" }], stream: true })
      .withResponse();
    let text = "";
    let usageChunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usageChunks++;
      assert.equal(chunk.model, "std-5.5");
    }
    assert.equal(text, "One two three");
    assert.equal(usageChunks, 0, "no usage chunk unless asked");
    assert.deepEqual(fake.received[0]!.body.stream_options, { include_usage: true });
    assertAzureCall(fake.received[0]!, "chat-prod", "chat/completions");
    await assertLedger(response.headers.get("x-request-id")!, usage, STD);

    const withUsage = await openai().chat.completions.create({
      model: "std-5.5",
      messages: [{ role: "user", content: "Count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let reported: OpenAI.CompletionUsage | undefined;
    for await (const chunk of withUsage) if (chunk.usage) reported = chunk.usage;
    assert.deepEqual([reported?.prompt_tokens, reported?.completion_tokens], [523, 47]);
  });

  test("Messages, whole and streamed, converted to the deployment's chat", async () => {
    const { data: message, response } = await anthropic()
      .messages.create({ model: "msg-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] })
      .withResponse();
    assert.equal(message.model, "msg-sonnet-4-6");
    assert.equal((message.content[0] as Anthropic.TextBlock).text, "Azure says hello.");
    assert.equal(message.stop_reason, "end_turn");
    assertAzureCall(fake.received[0]!, "chat-prod", "chat/completions");
    assert.equal(fake.received[0]!.body.max_completion_tokens, 64);
    assert.deepEqual(fake.received[0]!.body.messages, [{ role: "user", content: "Hello" }]);
    await assertLedger(response.headers.get("x-request-id")!, DEFAULT_AZURE_USAGE, SONNET);

    const usage = { prompt_tokens: 811, completion_tokens: 93, cached_tokens: 512 };
    fake.answers.push({ text: ["Streamed ", "from ", "Azure."], usage });
    const stream = anthropic().messages.stream({
      model: "msg-sonnet-4-6",
      max_tokens: 64,
      messages: [{ role: "user", content: "Stream" }],
    });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    assert.equal(text, "Streamed from Azure.");
    assert.equal(final.stop_reason, "end_turn");
    assert.equal(fake.received[1]!.body.stream, true);
    const requestId = (await stream.withResponse()).response.headers.get("x-request-id")!;
    await assertLedger(requestId, usage, SONNET);
  });

  test("a tool round trip through the openai SDK (whole) and the Anthropic SDK (streamed)", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      },
    ];
    fake.answers.push({ toolCalls: [{ id: "call_az_1", name: "weather", arguments: '{"city":"Paris"}' }] }, { text: ["Sunny in Paris."] });
    const user = { role: "user" as const, content: "Weather in Paris?" };
    const first = await openai().chat.completions.create({ model: "std-5.5", messages: [user], tools });
    assert.equal(first.choices[0]!.finish_reason, "tool_calls");
    const call = first.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.deepEqual([call.id, call.function.name, call.function.arguments], ["call_az_1", "weather", '{"city":"Paris"}']);
    const second = await openai().chat.completions.create({
      model: "std-5.5",
      messages: [user, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "sunny" }],
      tools,
    });
    assert.equal(second.choices[0]!.message.content, "Sunny in Paris.");
    assert.equal(fake.received[0]!.body.tools[0].function.name, "weather");
    assert.deepEqual(fake.received[1]!.body.messages[2], { role: "tool", tool_call_id: "call_az_1", content: "sunny" });

    const anthropicTools: Anthropic.Tool[] = [
      { name: "weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
    ];
    fake.answers.push({ toolCalls: [{ id: "call_az_2", name: "weather", arguments: '{"city":"Oslo"}' }] }, { text: ["Snow in Oslo."] });
    const question = { role: "user" as const, content: "Weather in Oslo?" };
    const streamed = await anthropic()
      .messages.stream({ model: "msg-sonnet-4-6", max_tokens: 200, tools: anthropicTools, messages: [question] })
      .finalMessage();
    assert.equal(streamed.stop_reason, "tool_use");
    const use = streamed.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    assert.deepEqual([use.name, use.input], ["weather", { city: "Oslo" }]);
    const answer = await anthropic().messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 200,
      tools: anthropicTools,
      messages: [
        question,
        { role: "assistant", content: streamed.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "snow" }] },
      ],
    });
    assert.equal((answer.content[0] as Anthropic.TextBlock).text, "Snow in Oslo.");
    assert.equal(fake.received[2]!.body.tools[0].function.name, "weather");
    const toolMessage = fake.received[3]!.body.messages.find((entry: { role: string }) => entry.role === "tool");
    assert.equal(toolMessage.tool_call_id, use.id);
    assertAzureCall(fake.received[3]!, "chat-prod", "chat/completions");
  });

  test("the AI SDK (@ai-sdk/openai .chat()): generateText with a tool, streamText", async () => {
    const provider = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const weather = tool({
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    fake.answers.push(
      { toolCalls: [{ id: "call_az_3", name: "weather", arguments: '{"city":"Rome"}' }] },
      { text: ["The tool said: ", "sunny in Rome"] },
    );
    const result = await generateText({
      model: provider.chat("std-5.5"),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: "Weather in Rome?",
    });
    assert.equal(result.steps.length, 2);
    assert.deepEqual(
      result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input]),
      [["weather", { city: "Rome" }]],
    );
    assert.equal(result.text, "The tool said: sunny in Rome");
    assert.equal(result.steps[0]!.usage.inputTokens, DEFAULT_AZURE_USAGE.prompt_tokens);
    const toolMessage = fake.received[1]!.body.messages.find((entry: { role: string }) => entry.role === "tool");
    assert.match(JSON.stringify(toolMessage.content), /sunny in Rome/);
    assertAzureCall(fake.received[1]!, "chat-prod", "chat/completions");

    const stream = streamText({ model: provider.chat("std-5.5"), prompt: "Stream a greeting" });
    let streamed = "";
    for await (const delta of stream.textStream) streamed += delta;
    assert.equal(streamed, "Azure says hello.");
    assert.equal((await stream.usage).outputTokens, DEFAULT_AZURE_USAGE.completion_tokens);
  });

  test("a filtered completion: finish_reason content_filter for Chat, stop_reason refusal for Messages", async () => {
    const usage = { prompt_tokens: 61, completion_tokens: 13 };
    fake.answers.push({ filterCompletion: true, usage }, { filterCompletion: true, usage });
    const { data, response } = await openai()
      .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    assert.equal(data.choices[0]!.finish_reason, "content_filter");
    await assertLedger(response.headers.get("x-request-id")!, usage, STD);
    const message = await anthropic().messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 32,
      messages: [{ role: "user", content: "Hi" }],
    });
    assert.equal(message.stop_reason, "refusal");
  });
});

describe("Azure's errors", () => {
  async function post(path: string, body: unknown, anthropicClient = false): Promise<{ status: number; body: any; requestId: string }> {
    const headers: Record<string, string> = anthropicClient
      ? { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" }
      : { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id")! };
  }
  const chatBody = (model: string) => ({ model, messages: [{ role: "user", content: "Hi" }], max_tokens: 16 });

  test("DeploymentNotFound: a 404 in the client's dialect, nothing charged", async () => {
    const id = await channel({
      ...MAIN,
      name: "azure, gone deployment",
      baseUrl: fake.url,
      models: ["msg-opus-4-6"],
      modelMapping: { "msg-opus-4-6": "retired-deployment" },
    });
    try {
      const chat = await post("/v1/chat/completions", chatBody("msg-opus-4-6"));
      assert.equal(chat.status, 404);
      assert.equal(chat.body.error.code, "DeploymentNotFound");
      assert.match(chat.body.error.message, /The API deployment for this resource does not exist/);
      assertAzureCall(fake.received[0]!, "retired-deployment", "chat/completions");
      const row = await ledgerFor(chat.requestId);
      assert.deepEqual([row.status, row.cost], ["error", 0]);
      const refusal = await openai()
        .chat.completions.create({ model: "msg-opus-4-6", messages: [{ role: "user", content: "Hi" }] })
        .catch((error) => error);
      assert.ok(refusal instanceof NotFoundError);

      const messages = await post("/v1/messages", chatBody("msg-opus-4-6"), true);
      assert.equal(messages.status, 404);
      assert.equal(messages.body.type, "error");
      assert.equal(messages.body.error.type, "not_found_error");
      assert.match(messages.body.error.message, /deployment for this resource does not exist/);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });

  test("a filtered prompt: the 400 with code content_filter, in each dialect", async () => {
    fake.answers.push({ filterPrompt: true }, { filterPrompt: true });
    const chat = await post("/v1/chat/completions", chatBody("std-5.5"));
    assert.equal(chat.status, 400);
    assert.equal(chat.body.error.code, "content_filter");
    assert.match(chat.body.error.message, /content management policy/);
    assert.equal((await ledgerFor(chat.requestId)).cost, 0);
    const messages = await post("/v1/messages", chatBody("msg-sonnet-4-6"), true);
    assert.equal(messages.status, 400);
    assert.deepEqual(Object.keys(messages.body).sort(), ["error", "type"]);
    assert.equal(messages.body.error.type, "invalid_request_error");
    assert.match(messages.body.error.message, /content management policy/);
  });

  test("a refused key (Azure's 401) disables the channel with Azure's reason; the request fails over", async () => {
    const id = await channel({
      ...MAIN,
      name: "azure, wrong key",
      baseUrl: fake.url,
      apiKey: "not-the-key",
      models: ["std-5.5"],
      priority: 90,
    });
    try {
      const { data, response } = await openai()
        .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Hi" }] })
        .withResponse();
      assert.equal(data.choices[0]!.message.content, "Azure says hello.");
      assert.equal((await ledgerFor(response.headers.get("x-request-id")!)).channelName, "azure main");
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; status: string; disabledReason: string }[];
      const disabled = channels.find((row) => row.id === id)!;
      assert.equal(disabled.status, "disabled");
      assert.match(disabled.disabledReason, /401: Access denied due to invalid subscription key/);
      await openai().chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "again" }] });
      assert.equal(fake.received.filter((seen) => seen.headers["api-key"] === "not-the-key").length, 1, "a disabled channel is skipped");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });

  test("a 429 with retry-after fails over to the next channel, which stays enabled", async () => {
    const id = await channel({
      ...MAIN,
      name: "azure, throttled",
      baseUrl: fake.url,
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "chat-eu" },
      settings: {},
      priority: 90,
    });
    try {
      fake.answers.push({ error: throttled() });
      const { data, response } = await openai()
        .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "Hi" }] })
        .withResponse();
      assert.equal(data.choices[0]!.message.content, "Azure says hello.");
      assertAzureCall(fake.received[0]!, "chat-eu", "chat/completions", "2024-10-21");
      assertAzureCall(fake.received[1]!, "chat-prod", "chat/completions");
      await assertLedger(response.headers.get("x-request-id")!, DEFAULT_AZURE_USAGE, STD);
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; status: string }[];
      assert.equal(channels.find((row) => row.id === id)!.status, "enabled");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });
});

describe("images through an azure deployment", () => {
  async function imageLedger(requestId: string, usage: { text: number; output: number }) {
    const row = await ledgerFor(requestId);
    assert.equal(row.channelName, "azure main");
    assert.deepEqual([row.textInputTokens, row.imageInputTokens, row.imageOutputTokens], [usage.text, 0, usage.output]);
    assert.equal(row.cost, Math.ceil(usage.text * IMAGE.textInput + usage.output * IMAGE.imageOutput));
    assert.equal(row.detail.usageSource, "upstream");
    assert.equal(row.overReservation, 0);
  }

  test("a generation: the deployment's images/generations, the image unchanged, the fake's usage charged", async () => {
    const { data, response } = await openai()
      .images.generate({ model: "std-image-2", prompt: "A red square", size: "1024x1024", quality: "high" })
      .withResponse();
    assert.equal(data.data![0]!.b64_json, TINY_PNG_BASE64);
    const [seen] = fake.received;
    assertAzureCall(seen!, "images-1", "images/generations");
    assert.deepEqual(seen!.body, { model: "images-1", prompt: "A red square", size: "1024x1024", quality: "high" });
    await imageLedger(response.headers.get("x-request-id")!, { text: 37, output: 4160 });
  });

  test("an edit, sent as it is uploaded and (streamUploads: false) once stored", async () => {
    const png = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: "#2050a0" } })
      .png()
      .toBuffer();
    const edit = async () => {
      const image = await toFile(png, "square.png", { type: "image/png" });
      return openai()
        .images.edit({ model: "std-image-2", image, prompt: "Make it green", size: "1024x1024", quality: "high" })
        .withResponse();
    };
    const live = await edit();
    assert.equal(live.data.data![0]!.b64_json, TINY_PNG_BASE64);
    assertAzureCall(fake.received[0]!, "images-1", "images/edits");
    assert.equal(fake.received[0]!.form?.model, "images-1");
    assert.equal(fake.received[0]!.form?.prompt, "Make it green");
    assert.deepEqual(
      fake.received[0]!.files?.map((file) => [file.field, file.bytes]),
      [["image", png.length]],
    );
    await imageLedger(live.response.headers.get("x-request-id")!, { text: 1093, output: 4160 });

    await gateway.admin("PATCH", `/api/admin/channels/${mainId}`, { settings: { apiVersion: VERSION, streamUploads: false } });
    try {
      const stored = await edit();
      assert.equal(stored.data.data![0]!.b64_json, TINY_PNG_BASE64);
      assertAzureCall(fake.received[1]!, "images-1", "images/edits");
      assert.ok(fake.received[1]!.headers["content-length"], "the stored upload is sent with its length");
      await imageLedger(stored.response.headers.get("x-request-id")!, { text: 1093, output: 4160 });
    } finally {
      await gateway.admin("PATCH", `/api/admin/channels/${mainId}`, { settings: MAIN.settings });
    }
  });
});

describe("the operator's API for azure channels", () => {
  async function createRaw(body: Record<string, unknown>, method = "POST", path = "/api/admin/channels") {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  test("a bad configuration is a 400 naming the field", async () => {
    const base = { ...MAIN, name: "azure, misconfigured", baseUrl: fake.url };
    for (const [change, field] of [
      [{ settings: { apiVersion: "2024-13-45" } }, "settings.apiVersion"],
      [{ settings: { apiVersion: "latest" } }, "settings.apiVersion"],
      [{ settings: { apiVersion: 20241021 } }, "settings.apiVersion"],
      [{ settings: { apiVersion: "2024-06-01" } }, "settings.apiVersion"],
      [{ settings: { maxTokensField: "max_output_tokens" } }, "settings.maxTokensField"],
      [{ apiKey: "" }, "apiKey"],
      [{ baseUrl: "http://myresource.openai.azure.com" }, "baseUrl"],
      [{ baseUrl: "https://myresource.openai.azure.com/openai/deployments/chat-prod" }, "baseUrl"],
    ] as const) {
      const { status, body } = await createRaw({ ...base, ...change });
      assert.equal(status, 400, JSON.stringify(change));
      assert.equal(body.error.param, field, JSON.stringify(change));
    }
    const missing = await createRaw({ ...base, baseUrl: undefined });
    assert.equal(missing.status, 400);
    const patched = await createRaw({ settings: { apiVersion: "2024-10-21-beta" } }, "PATCH", `/api/admin/channels/${mainId}`);
    assert.equal(patched.status, 400);
    assert.equal(patched.body.error.param, "settings.apiVersion");
    // A preview version and the https resource URL are taken.
    const good = await createRaw({
      ...base,
      baseUrl: "https://myresource.openai.azure.com",
      settings: { apiVersion: "2025-03-01-preview" },
    });
    assert.equal(good.status, 201);
    await gateway.admin("DELETE", `/api/admin/channels/${good.body.id}`);
  });

  test("the channel test asks the deployment (text, then the image model); fetch-models answers the catalog", async () => {
    const text = await gateway.admin("POST", `/api/admin/channels/${mainId}/test`);
    assert.equal(text.ok, true, JSON.stringify(text));
    assert.deepEqual([text.kind, text.model, text.status], ["chat", "std-5.5", 200]);
    assertAzureCall(fake.received[0]!, "chat-prod", "chat/completions");
    const image = await gateway.admin("POST", `/api/admin/channels/${mainId}/test`, { model: "std-image-2" });
    assert.equal(image.ok, true, JSON.stringify(image));
    assert.equal(image.kind, "image");
    assertAzureCall(fake.received[1]!, "images-1", "images/generations");

    const wrong = await channel({ ...MAIN, name: "azure, test wrong key", baseUrl: fake.url, apiKey: "not-the-key", priority: -10 });
    try {
      const refused = await gateway.admin("POST", `/api/admin/channels/${wrong}/test`);
      assert.equal(refused.ok, false);
      assert.equal(refused.status, 401);
      assert.match(refused.error, /Access denied/);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${wrong}`);
    }

    const fetched = await gateway.admin("POST", `/api/admin/channels/${mainId}/fetch-models`);
    const catalog = (await gateway.admin("GET", "/api/admin/catalog")).data.map((entry: { id: string }) => entry.id).sort();
    assert.deepEqual(fetched.models, catalog);
    assert.ok(fetched.models.includes("std-5.5"));
    assert.equal(fake.received.length, 3, "nothing asked upstream for the model list");
  });
});
