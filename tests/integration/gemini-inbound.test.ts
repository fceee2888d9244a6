// Gemini's own API, inbound (/v1beta, docs/api.md "Gemini's API"): Google's @google/genai SDK pointed at the gateway
// with its sk- key alone. generateContent, generateContentStream, countTokens, the model list, a function-calling
// round trip and a system instruction, against the simulator, a recording fake OpenAI-compatible upstream and a fake
// Anthropic upstream: the answer right, the upstream saw the converted request with the cap, the ledger row equals
// the upstream's usage at the model's prices to the unit. Bad input answers in Google's error shape and costs nothing;
// a key sent as `?key=` never reaches the log.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, GoogleGenAI, Type, FunctionCallingConfigMode, type GenerateContentResponse } from "@google/genai";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import {
  anthropicEvents,
  anthropicMessage,
  chatChunks,
  chatCompletion,
  sendJson,
  sendSse,
  startFakeUpstream,
  type FakeUpstream,
} from "../helpers/fake-upstream";
import { geminiRequestToChat } from "@/lib/dialects/gemini/gemini-to-chat-request";
import { countChatRequestInputTokens } from "@/lib/money/tokens";
import { redactQueryKey } from "@/lib/platform/log";

let gateway: Gateway;
let key: string;
const upstreams: FakeUpstream[] = [];

before(async () => {
  // Info level: the request log lines are written, so the test can check that a `?key=` never is.
  gateway = await startGateway({ env: { GATEWAY_LOG: "info" } });
  ({ key } = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 }));
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

const genai = (apiKey = key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url } });

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

async function channel(body: Record<string, unknown>): Promise<string> {
  return (await gateway.admin("POST", "/api/admin/channels", { priority: 50, ...body })).id;
}

async function ledgerRows(
  requestId: string,
): Promise<{ cost: number; status: string; textInputTokens: number; textOutputTokens: number }[]> {
  return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
}

/** The one ledger row of a request, once written (a stream settles as it ends). */
async function ledgerRow(requestId: string) {
  for (let attempt = 0; ; attempt++) {
    const rows = await ledgerRows(requestId);
    if (rows.length) {
      assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
      return rows[0]!;
    }
    if (attempt > 100) assert.fail(`no ledger row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function requestIdOf(response: { sdkHttpResponse?: { headers?: Record<string, string> } }): string {
  const id = response.sdkHttpResponse?.headers?.["x-request-id"];
  assert.ok(id, "the answer carries x-request-id");
  return id;
}

/** USD per 1M tokens = micro-USD per token; std-5.5 $1.25 / $10, msg-sonnet-4-6 $3 / $15 (seeded). */
const cost = (input: number, inputPrice: number, output: number, outputPrice: number) =>
  Math.ceil(input * inputPrice + output * outputPrice - 1e-9);

async function collect(stream: AsyncGenerator<GenerateContentResponse>) {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, text: chunks.map((chunk) => chunk.text ?? "").join(""), last: chunks.at(-1)! };
}

/** The ApiError a call raised: its HTTP status and Google's error object. */
async function googleError(
  run: () => Promise<unknown>,
): Promise<{ status: number; error: { code: number; message: string; status: string } }> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    const body = JSON.parse(error.message.replace(/^got status: \w+\. /, "")) as {
      error: { code: number; message: string; status: string };
    };
    return { status: error.status, error: body.error };
  }
  assert.fail("the call did not fail");
}

const weather = {
  functionDeclarations: [
    {
      name: "get_weather",
      description: "The weather in a city",
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
    },
  ],
};

describe("against the built-in simulator", () => {
  test("generateContent: the answer, its usage, and the ledger at std-5.5's prices", async () => {
    const response = await genai().models.generateContent({
      model: "std-5.5",
      contents: "Say hello to the gateway",
      config: { maxOutputTokens: 60, systemInstruction: "Be brief." },
    });
    assert.match(response.text ?? "", /^\(simulated\) /);
    // The simulator writes more than 60 tokens: it stops at the cap it was sent, as a model does.
    assert.equal(response.candidates?.[0]?.finishReason, "MAX_TOKENS");
    assert.equal(response.modelVersion, "std-5.5");
    const usage = response.usageMetadata!;
    assert.ok(usage.promptTokenCount! > 0 && usage.candidatesTokenCount! > 0 && usage.candidatesTokenCount! <= 60);
    const row = await ledgerRow(requestIdOf(response));
    assert.equal(row.status, "success");
    assert.equal(row.textInputTokens, usage.promptTokenCount);
    assert.equal(row.textOutputTokens, usage.candidatesTokenCount);
    assert.equal(row.cost, cost(usage.promptTokenCount!, 1.25, usage.candidatesTokenCount!, 10));
  });

  test("generateContentStream: text in pieces, finishReason and usageMetadata on the last chunk", async () => {
    const { chunks, text, last } = await collect(
      await genai().models.generateContentStream({ model: "msg-sonnet-4-6", contents: "Count to five", config: { maxOutputTokens: 4000 } }),
    );
    assert.ok(chunks.length > 2, `${chunks.length} chunks`);
    assert.match(text, /^\(simulated\) /);
    assert.equal(last.candidates?.[0]?.finishReason, "STOP");
    for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.candidates?.[0]?.finishReason, undefined);
    const usage = last.usageMetadata!;
    const row = await ledgerRow(requestIdOf(last));
    assert.equal(row.status, "success");
    assert.equal(row.textOutputTokens, usage.candidatesTokenCount);
    assert.equal(row.cost, cost(usage.promptTokenCount!, 3, usage.candidatesTokenCount!, 15));
  });

  test("a function-calling round trip", async () => {
    const ai = genai();
    const first = await ai.models.generateContent({
      model: "std-5.5",
      contents: "What is the weather in Paris?",
      config: { tools: [weather], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } },
    });
    const call = first.functionCalls?.[0];
    assert.ok(call, JSON.stringify(first.candidates));
    assert.equal(call.name, "get_weather");
    assert.equal(typeof call.args?.city, "string");
    const second = await ai.models.generateContent({
      model: "std-5.5",
      contents: [
        { role: "user", parts: [{ text: "What is the weather in Paris?" }] },
        first.candidates![0]!.content!,
        { role: "user", parts: [{ functionResponse: { id: call.id, name: "get_weather", response: { celsius: 18 } } }] },
      ],
      config: { tools: [weather] },
    });
    assert.match(second.text ?? "", /^\(simulated\) /);
    assert.equal(second.functionCalls, undefined);
  });

  test("countTokens: the gateway's count of the request as served, free", async () => {
    const contents = [{ role: "user", parts: [{ text: "How many tokens is this sentence, give or take?" }] }];
    const counted = await genai().models.countTokens({ model: "std-5.5", contents });
    const expected = countChatRequestInputTokens(geminiRequestToChat({ contents }, "") as never);
    assert.equal(counted.totalTokens, expected);
    assert.deepEqual(await ledgerRows(requestIdOf(counted as never)), [], "no ledger row: counting is free");
  });

  test("models.list and models.get: the key's text models, as models/<id>", async () => {
    const names: string[] = [];
    for await (const model of await genai().models.list({ config: { pageSize: 3 } })) names.push(model.name!);
    assert.ok(names.includes("models/std-5.5") && names.includes("models/msg-sonnet-4-6"), names.join(", "));
    assert.ok(!names.includes("models/std-image-2"), "image models are not listed");
    assert.equal(new Set(names).size, names.length, "pages do not repeat");
    const model = await genai().models.get({ model: "std-5.5" });
    assert.equal(model.name, "models/std-5.5");
    assert.ok(model.inputTokenLimit! > 0 && model.outputTokenLimit! > 0);
    assert.deepEqual(model.supportedActions, ["generateContent", "streamGenerateContent", "countTokens"]);
    const missing = await googleError(() => genai().models.get({ model: "std-image-2" }));
    assert.equal(missing.status, 404);
    assert.equal(missing.error.status, "NOT_FOUND");
  });
});

describe("against recording fake upstreams", () => {
  test("an openai channel: the converted request with the cap, the answer, the ledger to the unit", async () => {
    const upstream = await fake(async (request, response) => {
      const messages = request.body.messages as { role: string }[];
      if (messages.at(-1)!.role === "tool")
        return sendJson(response, 200, chatCompletion("It is 18 degrees.", "real-model", { prompt_tokens: 40, completion_tokens: 6 }));
      if (request.body.tools) {
        return sendJson(response, 200, {
          ...chatCompletion("", "real-model", { prompt_tokens: 30, completion_tokens: 12 }),
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "call_up1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
              },
              finish_reason: "tool_calls",
            },
          ],
        });
      }
      if (request.body.stream) return sendSse(response, chatChunks(["Hel", "lo"], "real-model"));
      sendJson(response, 200, chatCompletion("Hello from upstream", "real-model"));
    });
    const channelId = await channel({
      name: "fake openai",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-secret-1",
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "real-model" },
    });
    try {
      const ai = genai();
      const response = await ai.models.generateContent({
        model: "std-5.5",
        contents: "Hi",
        config: { systemInstruction: "Be brief", temperature: 0.2, topP: 0.9, stopSequences: ["###"], maxOutputTokens: 300 },
      });
      assert.equal(response.text, "Hello from upstream");
      assert.deepEqual(response.usageMetadata, { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 });
      let sent = upstream.received.at(-1)!;
      assert.equal(sent.path, "/v1/chat/completions");
      assert.equal(sent.headers.authorization, "Bearer upstream-secret-1");
      assert.equal(JSON.stringify(sent.headers).includes(key), false, "the caller's key never goes upstream");
      assert.deepEqual(sent.body.messages, [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Hi" },
      ]);
      assert.equal(sent.body.model, "real-model");
      assert.equal(sent.body.max_completion_tokens, 300, "the cap reserved is the cap sent");
      assert.equal(sent.body.temperature, 0.2);
      assert.equal(sent.body.top_p, 0.9);
      assert.deepEqual(sent.body.stop, ["###"]);
      let row = await ledgerRow(requestIdOf(response));
      assert.equal(row.textInputTokens, 11);
      assert.equal(row.textOutputTokens, 7);
      assert.equal(row.cost, cost(11, 1.25, 7, 10));

      // Streamed with ?alt=sse, as the SDK asks; no cap sent by the client: the model's default goes.
      const catalog = (await gateway.admin("GET", "/api/admin/catalog")).data as { id: string; defaultOutputTokens: number }[];
      const { text, last } = await collect(await ai.models.generateContentStream({ model: "std-5.5", contents: "Hi" }));
      assert.equal(text, "Hello");
      assert.equal(last.candidates?.[0]?.finishReason, "STOP");
      assert.equal(last.usageMetadata?.promptTokenCount, 11);
      assert.equal(last.usageMetadata?.candidatesTokenCount, 7);
      sent = upstream.received.at(-1)!;
      assert.equal(sent.body.stream, true);
      assert.deepEqual(sent.body.stream_options, { include_usage: true });
      assert.equal(sent.body.max_completion_tokens, catalog.find((entry) => entry.id === "std-5.5")!.defaultOutputTokens);
      row = await ledgerRow(requestIdOf(last));
      assert.equal(row.status, "success");
      assert.equal(row.cost, cost(11, 1.25, 7, 10));

      // A function-calling round trip: Google's Schema converted to JSON Schema, the call's id carried both ways.
      const first = await ai.models.generateContent({ model: "std-5.5", contents: "Weather in Paris?", config: { tools: [weather] } });
      assert.deepEqual(first.functionCalls, [{ id: "call_up1", name: "get_weather", args: { city: "Paris" } }]);
      assert.deepEqual(upstream.received.at(-1)!.body.tools, [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "The weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        },
      ]);
      const second = await ai.models.generateContent({
        model: "std-5.5",
        contents: [
          { role: "user", parts: [{ text: "Weather in Paris?" }] },
          first.candidates![0]!.content!,
          { role: "user", parts: [{ functionResponse: { id: "call_up1", name: "get_weather", response: { celsius: 18 } } }] },
        ],
        config: { tools: [weather] },
      });
      assert.equal(second.text, "It is 18 degrees.");
      sent = upstream.received.at(-1)!;
      assert.deepEqual(sent.body.messages.slice(1), [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_up1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "call_up1", content: '{"celsius":18}' },
      ]);
      row = await ledgerRow(requestIdOf(second));
      assert.equal(row.cost, cost(40, 1.25, 6, 10));

      // Without ?alt=sse the stream is one JSON array, written as it goes (the key in ?key= this time).
      const raw = await fetch(`${gateway.url}/v1beta/models/std-5.5:streamGenerateContent?key=${key}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }] }),
      });
      assert.equal(raw.status, 200);
      assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
      const array = (await raw.json()) as {
        candidates: { content: { parts: { text: string }[] }; finishReason?: string }[];
        usageMetadata?: unknown;
      }[];
      assert.equal(array.map((chunk) => chunk.candidates[0]!.content.parts.map((part) => part.text).join("")).join(""), "Hello");
      assert.equal(array.at(-1)!.candidates[0]!.finishReason, "STOP");
      assert.ok(array.at(-1)!.usageMetadata);
      assert.equal(gateway.output().includes(key), false, "a key sent as ?key= is never logged");
      assert.match(gateway.output(), /"path":"\/v1beta\/models\/std-5\.5:streamGenerateContent"/);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("a stream the upstream cuts ends in Google's error, raised by the SDK; the row is not a success", async () => {
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of chatChunks(["Par", "tial"], "real-model").slice(0, 3)) response.write(`data: ${JSON.stringify(event.data)}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 25));
      response.destroy();
    });
    const channelId = await channel({
      name: "cutting openai",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "k",
      models: ["std-5.5"],
    });
    try {
      const seen: GenerateContentResponse[] = [];
      const failure = await googleError(async () => {
        for await (const chunk of await genai().models.generateContentStream({ model: "std-5.5", contents: "Hi" })) seen.push(chunk);
      });
      assert.equal(seen.map((chunk) => chunk.text).join(""), "Partial");
      assert.equal(failure.status, 502);
      assert.equal(failure.error.status, "UNAVAILABLE");
      const row = await ledgerRow(requestIdOf(seen[0]!));
      assert.equal(row.status, "error");
      assert.ok(row.textOutputTokens >= 1, "the cut stream is charged what was delivered");

      // Without ?alt=sse the error object is the array's last element, and the array is still closed.
      const raw = await fetch(`${gateway.url}/v1beta/models/std-5.5:streamGenerateContent`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": key },
        body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }] }),
      });
      const array = (await raw.json()) as { candidates?: unknown[]; error?: { code: number; status: string } }[];
      assert.ok(array.length >= 2 && array[0]!.candidates);
      assert.deepEqual(array.at(-1)!.error && [array.at(-1)!.error!.code, array.at(-1)!.error!.status], [502, "UNAVAILABLE"]);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("an anthropic channel: the system instruction and the cap in Messages, the answer back, the ledger to the unit", async () => {
    const upstream = await fake(async (request, response) => {
      if (request.body.stream) await sendSse(response, anthropicEvents(["Hi ", "there"], "real-sonnet"));
      else sendJson(response, 200, anthropicMessage("Hi from upstream", "real-sonnet"));
    });
    const channelId = await channel({
      name: "fake anthropic",
      type: "anthropic",
      baseUrl: upstream.url,
      apiKey: "upstream-secret-2",
      models: ["msg-sonnet-4-6"],
      modelMapping: { "msg-sonnet-4-6": "real-sonnet" },
    });
    try {
      const response = await genai().models.generateContent({
        model: "msg-sonnet-4-6",
        contents: "Hello",
        config: { systemInstruction: "Answer in English.", maxOutputTokens: 200 },
      });
      assert.equal(response.text, "Hi from upstream");
      assert.equal(response.usageMetadata?.promptTokenCount, 13);
      assert.equal(response.usageMetadata?.candidatesTokenCount, 9);
      let sent = upstream.received.at(-1)!;
      assert.equal(sent.path, "/v1/messages");
      assert.equal(sent.headers["x-api-key"], "upstream-secret-2");
      assert.equal(sent.body.model, "real-sonnet");
      assert.equal(sent.body.max_tokens, 200, "the cap reserved is the cap sent");
      assert.equal(JSON.stringify(sent.body.system).includes("Answer in English."), true);
      assert.deepEqual(sent.body.messages, [{ role: "user", content: "Hello" }]);
      let row = await ledgerRow(requestIdOf(response));
      assert.equal(row.cost, cost(13, 3, 9, 15));

      const { text, last } = await collect(
        await genai().models.generateContentStream({ model: "msg-sonnet-4-6", contents: "Stream", config: { maxOutputTokens: 50 } }),
      );
      assert.equal(text, "Hi there");
      assert.equal(last.usageMetadata?.promptTokenCount, 13);
      assert.equal(last.usageMetadata?.candidatesTokenCount, 9);
      sent = upstream.received.at(-1)!;
      assert.equal(sent.body.max_tokens, 50);
      row = await ledgerRow(requestIdOf(last));
      assert.equal(row.status, "success");
      assert.equal(row.cost, cost(13, 3, 9, 15));
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });

  test("an operator's gemini-2.5-pro, named with the models/ prefix as the SDK may send it", async () => {
    const upstream = await fake((_request, response) =>
      sendJson(response, 200, chatCompletion("From the operator's model", "gemini-2.5-pro", { prompt_tokens: 20, completion_tokens: 5 })),
    );
    await gateway.admin("POST", "/api/admin/prices", { model: "gemini-2.5-pro", textInput: 2, textOutput: 12 });
    await gateway.admin("POST", "/api/admin/groups", { name: "gemini-users", models: ["gemini-2.5-pro"] });
    const user = await createUserWithKey(gateway, { group: "gemini-users" });
    const channelId = await channel({
      name: "operator gemini",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "k",
      models: ["gemini-2.5-pro"],
    });
    try {
      const response = await genai(user.key).models.generateContent({ model: "models/gemini-2.5-pro", contents: "Hello" });
      assert.equal(response.text, "From the operator's model");
      assert.equal(upstream.received.at(-1)!.body.model, "gemini-2.5-pro");
      assert.equal((await ledgerRow(requestIdOf(response))).cost, cost(20, 2, 5, 12));
      const names: string[] = [];
      for await (const model of await genai(user.key).models.list()) names.push(model.name!);
      assert.deepEqual(names, ["models/gemini-2.5-pro"]);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channelId}`);
    }
  });
});

describe("refusals in Google's shape, free", () => {
  async function raw(path: string, body: unknown, headers: Record<string, string> = { "x-goog-api-key": key }) {
    const response = await fetch(`${gateway.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { error: { code: number; message: string; status: string } };
    const rows = await ledgerRows(response.headers.get("x-request-id")!);
    assert.ok(
      rows.every((row) => row.cost === 0),
      "no charge",
    );
    return { status: response.status, error: answer.error };
  }

  test("missing contents, an unknown part, an unknown model, an image model", async () => {
    let refused = await raw("/v1beta/models/std-5.5:generateContent", { generationConfig: { maxOutputTokens: 10 } });
    assert.deepEqual([refused.status, refused.error.code, refused.error.status], [400, 400, "INVALID_ARGUMENT"]);
    assert.match(refused.error.message, /contents/);

    refused = await raw("/v1beta/models/std-5.5:generateContent", {
      contents: [{ role: "user", parts: [{ executableCode: { code: "1" } }] }],
    });
    assert.deepEqual([refused.status, refused.error.status], [400, "INVALID_ARGUMENT"]);
    assert.match(refused.error.message, /executableCode/);

    refused = await raw("/v1beta/models/std-5.5:generateContent", { contents: "Hi", generationConfig: { maxOutputTokens: 10_000_000 } });
    assert.equal(refused.status, 400);

    const unknown = await googleError(() => genai().models.generateContent({ model: "no-such-model", contents: "Hi" }));
    assert.deepEqual([unknown.status, unknown.error.code, unknown.error.status], [404, 404, "NOT_FOUND"]);

    const image = await googleError(() => genai().models.generateContent({ model: "std-image-2", contents: "Draw a cat" }));
    assert.deepEqual([image.status, image.error.status], [400, "INVALID_ARGUMENT"]);
    assert.match(image.error.message, /image model/);
  });

  test("a key in a query string is redacted from any log line that carries a URL", () => {
    assert.equal(
      redactQueryKey("POST /v1beta/models/x:generateContent?alt=sse&key=sk-secret123&b=1"),
      "POST /v1beta/models/x:generateContent?alt=sse&key=[redacted]&b=1",
    );
    assert.equal(redactQueryKey("https://example.com/?KEY=sk-abc"), "https://example.com/?KEY=[redacted]");
    assert.equal(redactQueryKey("monkey=1 and key=value"), "monkey=1 and key=value", "only a query parameter named key");
  });

  test("a bad key, no key, the wrong header", async () => {
    const bad = await googleError(() =>
      genai("sk-thisisnotakey0000000000000000").models.generateContent({ model: "std-5.5", contents: "Hi" }),
    );
    assert.deepEqual([bad.status, bad.error.code, bad.error.status], [401, 401, "UNAUTHENTICATED"]);

    let refused = await raw("/v1beta/models/std-5.5:generateContent", { contents: [{ parts: [{ text: "Hi" }] }] }, {});
    assert.deepEqual([refused.status, refused.error.status], [401, "UNAUTHENTICATED"]);
    assert.match(refused.error.message, /x-goog-api-key/);

    refused = await raw(
      "/v1beta/models/std-5.5:generateContent",
      { contents: [{ parts: [{ text: "Hi" }] }] },
      { authorization: `Bearer ${key}` },
    );
    assert.deepEqual([refused.status, refused.error.status], [401, "UNAUTHENTICATED"]);

    const list = await fetch(`${gateway.url}/v1beta/models`);
    assert.equal(list.status, 401);
    assert.equal(((await list.json()) as { error: { status: string } }).error.status, "UNAUTHENTICATED");
  });
});
