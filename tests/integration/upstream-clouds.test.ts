// The cloud upstreams (docs/api.md, "Channel types"): Gemini, Vertex AI (Gemini and Claude) and Bedrock (Claude by
// InvokeModel, another model by Converse), each behind its vendor's fake (tests/fakes/, proven with the vendor's own
// SDK). For each: chat and messages, streaming and not, through the official `openai` and `@anthropic-ai/sdk`
// clients and the AI SDK; a tool round trip; the fake saw an authenticated request for the mapped model; the ledger
// charges the vendor's usage at the model's prices to the unit; a vendor's refusal and its rate limit reach the client
// in the client's dialect; a cut stream is not a success and is charged by the meter.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, streamText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import {
  bedrockConverseChannel,
  bedrockInvokeChannel,
  geminiChannel,
  sharedVertexFake,
  vertexClaudeChannel,
  vertexGeminiChannel,
  type Billed,
  type VendorChannel,
} from "../helpers/vendor-channels";

// Seeded prices, USD per 1M tokens (= micro-USD per token), written out here rather than read from the code.
const PRICES: Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> = {
  "std-5.5": { input: 1.25, output: 10, cacheRead: 0.1, cacheWrite: 1 },
  "msg-sonnet-4-6": { input: 3, output: 15, cacheRead: 0.1, cacheWrite: 1.25 },
};

function costOf(model: string, billed: Billed): number {
  const price = PRICES[model]!;
  const exact =
    billed.input * price.input +
    billed.cacheRead * price.input * price.cacheRead +
    billed.cacheWrite * price.input * price.cacheWrite +
    billed.output * price.output;
  return Math.ceil(exact - 1e-9);
}

let gateway: Gateway;
let key: string;
const SETUPS = [geminiChannel, vertexGeminiChannel, vertexClaudeChannel, bedrockInvokeChannel, bedrockConverseChannel].filter(
  (setup) => !process.env.ONLY_SETUP || setup.name === process.env.ONLY_SETUP,
);
const vendors: VendorChannel[] = [];
const channelIds: string[] = [];

before(async () => {
  gateway = await startGateway();
  // Only the vendors' channels serve the models under test: the simulator steps aside.
  for (const channel of (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[])
    if (channel.type === "simulator") await gateway.admin("PATCH", `/api/admin/channels/${channel.id}`, { status: "disabled" });
  ({ key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 }));
});
after(async () => {
  await Promise.all(vendors.map((vendor) => vendor.close()));
  await (await sharedVertexFake()).close();
  await stopAllGateways();
});

async function ledgerRow(requestId: string) {
  for (let attempt = 0; ; attempt++) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    if (rows.length) return rows[0];
    if (attempt > 100) assert.fail(`no ledger row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const openai = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

for (const setup of SETUPS) {
  describe(setup.name.replace(/Channel$/, ""), () => {
    let vendor: VendorChannel;
    let channelId: string;

    before(async () => {
      vendor = await setup();
      vendors.push(vendor);
      // Several vendors serve one public model: only this one's channel is on while its tests run.
      for (const id of channelIds) await gateway.admin("PATCH", `/api/admin/channels/${id}`, { status: "disabled" });
      channelId = (await gateway.admin("POST", "/api/admin/channels", vendor.channel)).id;
      channelIds.push(channelId);
    });
    // Each test leaves the channel enabled for the next.
    const enable = () => gateway.admin("PATCH", `/api/admin/channels/${channelId}`, { status: "enabled" });

    function lastReceived(stream: boolean) {
      const request = vendor.received().at(-1)!;
      assert.ok(request, "the vendor was called");
      assert.match(request.path.split("?")[0]!, vendor.path(stream), `${vendor.name}: the mapped model's method`);
      assert.equal(request.authorized, true, `${vendor.name}: the vendor accepted the credential`);
      return request;
    }

    test("chat, not streamed, through the openai SDK: the vendor's usage charged to the unit", async () => {
      vendor.queueText(["Rayleigh ", "scattering."]);
      const { data, response } = await openai()
        .chat.completions.create({
          model: vendor.model,
          messages: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Why is the sky blue?" },
          ],
          max_tokens: 700,
        })
        .withResponse();
      assert.equal(data.choices[0]!.message.content, "Rayleigh scattering.");
      assert.equal(data.choices[0]!.finish_reason, "stop");
      assert.equal(data.model, vendor.model);
      const received = lastReceived(false);
      assert.equal(JSON.stringify(received.body).includes("Be brief."), true, "the system prompt went upstream");
      const row = await ledgerRow(response.headers.get("x-request-id")!);
      assert.equal(row.status, "success");
      assert.equal(row.textOutputTokens, vendor.billed.output);
      assert.equal(row.cost, costOf(vendor.model, vendor.billed), `${vendor.name}: ${JSON.stringify(row)}`);
    });

    test("chat, streamed with include_usage, through the openai SDK", async () => {
      vendor.queueText(["Blue ", "light ", "scatters."]);
      const stream = await openai().chat.completions.create({
        model: vendor.model,
        messages: [{ role: "user", content: "Why is the sky blue?" }],
        max_tokens: 700,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, "Blue light scatters.");
      assert.equal(finish, "stop");
      assert.equal(usage?.completion_tokens, vendor.billed.output);
      lastReceived(true);
    });

    test("messages, not streamed and streamed, through the Anthropic SDK", async () => {
      vendor.queueText(["Short ", "answer."]);
      const { data, response } = await anthropic()
        .messages.create({
          model: vendor.model,
          max_tokens: 700,
          system: "Be brief.",
          messages: [{ role: "user", content: "Why is the sky blue?" }],
        })
        .withResponse();
      assert.deepEqual(data.content, [{ type: "text", text: "Short answer.", ...(data.content[0] as object) }]);
      assert.equal((data.content[0] as { text: string }).text, "Short answer.");
      assert.equal(data.stop_reason, "end_turn");
      lastReceived(false);
      const row = await ledgerRow(response.headers.get("x-request-id")!);
      assert.equal(row.cost, costOf(vendor.model, vendor.billed));

      vendor.queueText(["Streamed ", "answer."]);
      const stream = anthropic().messages.stream({ model: vendor.model, max_tokens: 700, messages: [{ role: "user", content: "Again" }] });
      const message = await stream.finalMessage();
      assert.equal((message.content[0] as { text: string }).text, "Streamed answer.");
      assert.equal(message.usage.output_tokens, vendor.billed.output);
      lastReceived(true);
    });

    test("a tool round trip through the openai SDK: the call comes back, the result goes up", async () => {
      vendor.queueTool("get_weather", { city: "Paris" });
      const first = await openai().chat.completions.create({
        model: vendor.model,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools: [weatherTool],
        max_tokens: 500,
      });
      const call = first.choices[0]!.message.tool_calls?.[0];
      assert.ok(call && call.type === "function", JSON.stringify(first.choices[0]));
      assert.equal(call.function.name, "get_weather");
      assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris" });
      assert.equal(first.choices[0]!.finish_reason, "tool_calls");
      const sent = lastReceived(false).body;
      assert.match(JSON.stringify(sent), /get_weather/, "the tool was declared upstream");

      vendor.queueText(["It is sunny."]);
      const second = await openai().chat.completions.create({
        model: vendor.model,
        messages: [
          { role: "user", content: "Weather in Paris?" },
          first.choices[0]!.message,
          { role: "tool", tool_call_id: call.id, content: '{"forecast":"sunny"}' },
        ],
        tools: [weatherTool],
        max_tokens: 500,
      });
      assert.equal(second.choices[0]!.message.content, "It is sunny.");
      assert.match(JSON.stringify(vendor.toolResultOf(lastReceived(false).body)), /sunny/, "the tool result went upstream");
    });

    test("a tool call streamed to a Messages client (the Anthropic SDK)", async () => {
      vendor.queueTool("get_weather", { city: "Oslo" });
      const message = await anthropic()
        .messages.stream({
          model: vendor.model,
          max_tokens: 500,
          tools: [
            {
              name: "get_weather",
              description: "The weather in a city",
              input_schema: { type: "object", properties: { city: { type: "string" } } },
            },
          ],
          messages: [{ role: "user", content: "Weather in Oslo?" }],
        })
        .finalMessage();
      const use = message.content.find((block) => block.type === "tool_use");
      assert.ok(use && use.type === "tool_use", JSON.stringify(message.content));
      assert.equal(use.name, "get_weather");
      assert.deepEqual(use.input, { city: "Oslo" });
      assert.equal(message.stop_reason, "tool_use");
    });

    test("the AI SDK: generateText with @ai-sdk/openai's chat model, streamText with @ai-sdk/anthropic", async () => {
      vendor.queueText(["From ", "the AI SDK."]);
      const { text } = await generateText({
        model: createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key }).chat(vendor.model),
        prompt: "Hello",
      });
      assert.equal(text, "From the AI SDK.");
      vendor.queueText(["Streamed ", "by the AI SDK."]);
      const stream = streamText({ model: createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: key })(vendor.model), prompt: "Hello" });
      let streamed = "";
      for await (const delta of stream.textStream) streamed += delta;
      assert.equal(streamed, "Streamed by the AI SDK.");
    });

    test("the vendor's refusal arrives in each client's dialect with its status; its rate limit as a 429", async () => {
      const message = vendor.queueBadRequest();
      await assert.rejects(
        openai().chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "x" }], max_tokens: 50 }),
        (error: unknown) => error instanceof OpenAI.BadRequestError && error.message.includes(message.slice(0, 40)),
      );
      vendor.queueBadRequest();
      await assert.rejects(
        anthropic().messages.create({ model: vendor.model, max_tokens: 50, messages: [{ role: "user", content: "x" }] }),
        (error: unknown) =>
          error instanceof Anthropic.BadRequestError &&
          (error.error as { type?: string }).type === "error" &&
          error.message.includes(message.slice(0, 40)),
      );
      vendor.queueRateLimit();
      await assert.rejects(
        openai().chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "x" }], max_tokens: 50 }),
        (error: unknown) => error instanceof OpenAI.RateLimitError,
      );
      await enable();
    });

    test("a stream the vendor cuts: an error event, not a success, charged at least what was delivered", async () => {
      vendor.queueCut();
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: vendor.model, max_tokens: 600, stream: true, messages: [{ role: "user", content: "Count" }] }),
      });
      const text = await response.text();
      assert.equal(response.status, 200);
      assert.doesNotMatch(text, /\[DONE\]/);
      assert.match(text, /data: \{"error"/);
      const row = await ledgerRow(response.headers.get("x-request-id")!);
      assert.notEqual(row.status, "success");
      assert.equal(row.detail?.rule, "meter");
      assert.ok(row.textOutputTokens > 0 && row.textOutputTokens <= 600, JSON.stringify(row));
      await enable();
    });

    test("/v1/responses (text and a function tool) through the gateway's own Responses over this channel", async (t) => {
      if (vendor.model !== "std-5.5") return t.skip("Responses serves the std text model");
      vendor.queueText(["Responses ", "over the hub."]);
      const stream = await openai().responses.create({
        model: vendor.model,
        stream: true,
        instructions: "Be brief.",
        input: [{ role: "user", content: [{ type: "input_text", text: "Hello" }] }],
      });
      let text = "";
      let completed = false;
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed") completed = true;
      }
      assert.equal(text, "Responses over the hub.");
      assert.ok(completed);
      assert.match(JSON.stringify(lastReceived(true).body), /Be brief\./, "the instructions went upstream");

      vendor.queueTool("get_weather", { city: "Lima" });
      const withTool = await openai().responses.create({
        model: vendor.model,
        stream: true,
        instructions: "Use the tool.",
        input: [{ role: "user", content: [{ type: "input_text", text: "Weather in Lima?" }] }],
        tools: [{ type: "function", name: "get_weather", parameters: weatherTool.function.parameters, strict: false }],
      });
      const calls: { name: string; arguments: string }[] = [];
      for await (const event of withTool)
        if (event.type === "response.output_item.done" && event.item.type === "function_call") calls.push(event.item);
      assert.deepEqual(
        calls.map((call) => [call.name, JSON.parse(call.arguments)]),
        [["get_weather", { city: "Lima" }]],
      );
    });

    test("count_tokens answers for the channel's model", async () => {
      const counted = await anthropic().messages.countTokens({
        model: vendor.model,
        messages: [{ role: "user", content: "How many tokens is this?" }],
      });
      assert.ok(counted.input_tokens > 0);
    });

    test("the output cap reserved is the cap sent", async () => {
      vendor.queueText(["ok"]);
      await openai().chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "x" }], max_tokens: 321 });
      const body = lastReceived(false).body;
      const cap = body.generationConfig?.maxOutputTokens ?? body.inferenceConfig?.maxTokens ?? body.max_tokens;
      assert.equal(cap, 321);
    });
  });
}

describe("channel tools over the cloud types", () => {
  test("channel test and fetch-models answer for each type", async () => {
    const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string; name: string }[];
    for (const channel of channels.filter((entry) => ["gemini", "vertex", "bedrock"].includes(entry.type))) {
      for (const vendor of vendors) if (vendor.channel.name === channel.name) vendor.queueText(["ok"]);
      const tested = await gateway.admin("POST", `/api/admin/channels/${channel.id}/test`);
      assert.equal(tested.ok, true, `${channel.name}: ${JSON.stringify(tested)}`);
      const listed = await gateway.admin("POST", `/api/admin/channels/${channel.id}/fetch-models`);
      assert.ok(Array.isArray(listed.models) && listed.models.length > 0, `${channel.name}: ${JSON.stringify(listed)}`);
      if (channel.type === "gemini") assert.ok(listed.models.includes("gemini-2.5-pro"), "the Gemini API's own list");
    }
  });

  test("a Vertex service account's tokens are fetched once and reused", async () => {
    const fake = await sharedVertexFake();
    assert.equal(fake.tokens.issued.length, 1, `tokens issued: ${fake.tokens.issued.length}`);
  });

  test("configuration errors are field errors, not 500s", async () => {
    const refused = async (body: Record<string, unknown>, field: string) => {
      const response = await fetch(`${gateway.url}/api/admin/channels`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bad", models: ["std-5.5"], ...body }),
      });
      const answer = await response.json();
      assert.equal(response.status, 400, JSON.stringify(answer));
      assert.equal(answer.error.param, field, JSON.stringify(answer));
    };
    const account = { ...(await sharedVertexFake()).serviceAccount } as Record<string, unknown>;
    delete account.private_key;
    await refused({ type: "vertex", apiKey: JSON.stringify(account), settings: { region: "us-east5" } }, "apiKey");
    await refused({ type: "vertex", apiKey: "not json", settings: { region: "us-east5" } }, "apiKey");
    await refused({ type: "vertex", apiKey: JSON.stringify((await sharedVertexFake()).serviceAccount), settings: {} }, "settings.region");
    await refused(
      { type: "bedrock", apiKey: "AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG", settings: { region: "moon-1" } },
      "settings.region",
    );
    await refused({ type: "bedrock", apiKey: "AKIA:secret:token:more", settings: { region: "us-east-1" } }, "apiKey");
    await refused({ type: "gemini", apiKey: "" }, "apiKey");
  });
});

describe("what only some vendors do", () => {
  async function only(setupName: string): Promise<{ vendor: VendorChannel; id: string }> {
    const vendor = vendors.find((entry) => entry.name === setupName)!;
    const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; name: string }[];
    const id = channels.find((channel) => channel.name === vendor.channel.name)!.id;
    for (const other of channelIds)
      await gateway.admin("PATCH", `/api/admin/channels/${other}`, { status: other === id ? "enabled" : "disabled" });
    return { vendor, id };
  }

  test("Gemini's SAFETY stop and a blocked prompt: content_filter for Chat, refusal for Messages, the vendor's usage charged", async () => {
    const { vendor } = await only("gemini");
    const fake = vendor as VendorChannel & { raw: { answers: unknown[] } };
    fake.raw.answers.push({ finishReason: "SAFETY" });
    const { data, response } = await openai()
      .chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "something unsafe" }], max_tokens: 500 })
      .withResponse();
    assert.equal(data.choices[0]!.finish_reason, "content_filter");
    const row = await ledgerRow(response.headers.get("x-request-id")!);
    assert.equal(row.status, "success");
    assert.equal(row.textOutputTokens, vendor.billed.output, "what the vendor reported, charged");

    fake.raw.answers.push({ blockPrompt: "PROHIBITED_CONTENT" });
    const message = await anthropic()
      .messages.stream({ model: vendor.model, max_tokens: 500, messages: [{ role: "user", content: "something worse" }] })
      .finalMessage();
    assert.equal(message.stop_reason, "refusal");
  });

  test("/v1/responses with the image tool over a Gemini channel: the gateway's loop calls Gemini, the image comes from the image channel", async () => {
    const { vendor } = await only("gemini");
    const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
      (channel) => channel.type === "simulator",
    )!;
    // The simulator serves the image model only: the text model's turns go to Gemini.
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled", models: ["std-image-2"] });
    try {
      vendor.queueTool("generate_image", { prompt: "A lighthouse at dusk, watercolour", action: "generate" });
      vendor.queueText(["Here is your lighthouse."]);
      const stream = await openai().responses.create({
        model: vendor.model,
        stream: true,
        instructions: "Draw what is asked.",
        input: [{ role: "user", content: [{ type: "input_text", text: "One image of a lighthouse" }] }],
        tools: [{ type: "image_generation", size: "1024x1024", quality: "low" }],
      });
      const types = new Set<string>();
      let images = 0;
      for await (const event of stream) {
        types.add(event.type);
        if (event.type === "response.output_item.done" && event.item.type === "image_generation_call" && event.item.result) images++;
      }
      assert.equal(images, 1, [...types].join(", "));
      assert.ok(types.has("response.completed"));
      const calls = vendor.received().filter((request) => /generateContent/.test(request.path));
      assert.ok(calls.length >= 2, "Gemini was asked before and after the image");
      assert.match(JSON.stringify(calls.at(-2)!.body), /generate_image/, "the image tool was declared to Gemini");
    } finally {
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
    }
  });

  test("Gemini's invalid key (400 API_KEY_INVALID) switches the channel off with Google's reason", async () => {
    const { vendor, id } = await only("gemini");
    await gateway.admin("PATCH", `/api/admin/channels/${id}`, { apiKey: "AIzaSy-not-the-key" });
    await assert.rejects(
      openai().chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "x" }], max_tokens: 20 }),
    );
    const channel = (
      (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; status: string; disabledReason: string }[]
    ).find((entry) => entry.id === id)!;
    assert.equal(channel.status, "disabled");
    assert.match(channel.disabledReason, /API key not valid/);
    await gateway.admin("PATCH", `/api/admin/channels/${id}`, { apiKey: vendor.channel.apiKey, status: "enabled" });
  });

  test("Bedrock's throttlingException mid-stream: an Anthropic client gets rate_limit_error, the row is a cut", async () => {
    const { vendor } = await only("bedrock (Claude by Invoke)");
    const fake = vendor as VendorChannel & { raw: { queue: unknown[] } };
    fake.raw.queue.push({ text: "One two three four five six seven.", streamException: { type: "throttlingException", afterEvents: 4 } });
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: vendor.model, max_tokens: 300, stream: true, messages: [{ role: "user", content: "Count" }] }),
    });
    const text = await response.text();
    assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"rate_limit_error"/);
    assert.doesNotMatch(text, /message_stop/);
    const row = await ledgerRow(response.headers.get("x-request-id")!);
    assert.equal(row.status, "error");
    assert.equal(row.detail?.rule, "meter");
  });

  test("Converse without usage: the answer is charged by the meter, never free", async () => {
    const { vendor } = await only("bedrock (Converse)");
    const fake = vendor as VendorChannel & { raw: { queue: unknown[] } };
    fake.raw.queue.push({ text: "A whole answer whose usage the vendor forgot to send.", usage: null });
    const { data, response } = await openai()
      .chat.completions.create({ model: vendor.model, messages: [{ role: "user", content: "x" }], max_tokens: 200 })
      .withResponse();
    assert.equal(data.usage, undefined, "no usage invented for the client");
    const row = await ledgerRow(response.headers.get("x-request-id")!);
    assert.equal(row.detail?.rule, "meter");
    assert.ok(row.textOutputTokens > 5 && row.textInputTokens > 0, JSON.stringify(row));
  });
});

describe("OpenAI-compatible presets", () => {
  test("DeepSeek's cache hits (prompt_cache_hit_tokens) are charged at the cache-read price", async () => {
    const { startFakeUpstream, sendJson } = await import("../helpers/fake-upstream");
    const usage = {
      prompt_tokens: 1237,
      completion_tokens: 389,
      total_tokens: 1626,
      prompt_cache_hit_tokens: 512,
      prompt_cache_miss_tokens: 725,
    };
    const upstream = await startFakeUpstream((_request, response) =>
      sendJson(response, 200, {
        id: "chatcmpl-deepseek",
        object: "chat.completion",
        created: 1_700_000_000,
        model: "deepseek-chat",
        choices: [{ index: 0, message: { role: "assistant", content: "Cached." }, finish_reason: "stop", logprobs: null }],
        usage,
      }),
    );
    try {
      for (const id of channelIds) await gateway.admin("PATCH", `/api/admin/channels/${id}`, { status: "disabled" });
      const { id } = await gateway.admin("POST", "/api/admin/channels", {
        name: "DeepSeek",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "sk-deepseek",
        models: ["std-5.5"],
        modelMapping: { "std-5.5": "deepseek-chat" },
      });
      channelIds.push(id);
      const { response } = await openai()
        .chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "x" }], max_tokens: 400 })
        .withResponse();
      const row = await ledgerRow(response.headers.get("x-request-id")!);
      assert.deepEqual([row.textInputTokens, row.cacheReadTokens, row.textOutputTokens], [725, 512, 389]);
      assert.equal(row.cost, costOf("std-5.5", { input: 725, cacheRead: 512, cacheWrite: 0, output: 389 }));
    } finally {
      await upstream.close();
    }
  });

  test("Mistral's preset (streamUsage: unasked): no stream_options upstream, the usage it sends unasked is charged", async () => {
    const { startFakeUpstream, sendSse } = await import("../helpers/fake-upstream");
    const chunk = (delta: object, finish: string | null, usage?: object) => ({
      data: {
        id: "cmpl-mistral",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: "mistral-large-latest",
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      },
    });
    const upstream = await startFakeUpstream((_request, response) =>
      sendSse(response, [
        chunk({ role: "assistant", content: "" }, null),
        chunk({ content: "Bonjour." }, null),
        chunk({}, "stop", { prompt_tokens: 1237, completion_tokens: 389, total_tokens: 1626 }),
        { data: "[DONE]" },
      ]),
    );
    try {
      for (const id of channelIds) await gateway.admin("PATCH", `/api/admin/channels/${id}`, { status: "disabled" });
      const preset = (await import("@/lib/portal/channel-presets")).CHANNEL_PRESETS.find((entry) => entry.id === "mistral")!;
      const { id } = await gateway.admin("POST", "/api/admin/channels", {
        name: "Mistral",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "mistral-key",
        models: ["std-5.5"],
        modelMapping: { "std-5.5": "mistral-large-latest" },
        settings: preset.settings,
      });
      channelIds.push(id);
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 400, stream: true, messages: [{ role: "user", content: "x" }] }),
      });
      assert.match(await response.text(), /Bonjour\./);
      const sent = upstream.received.at(-1)!.body as Record<string, unknown>;
      assert.equal("stream_options" in sent, false, "stream_options left out");
      assert.equal(sent.max_tokens, 400, "the cap in max_tokens");
      const row = await ledgerRow(response.headers.get("x-request-id")!);
      assert.deepEqual([row.status, row.detail?.rule, row.textInputTokens, row.textOutputTokens], ["success", "usage", 1237, 389]);
    } finally {
      await upstream.close();
    }
  });
});
