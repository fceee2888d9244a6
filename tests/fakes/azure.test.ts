// Proves the Azure OpenAI fake (tests/fakes/azure.ts) faithful by driving it with `openai`'s AzureOpenAI client.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { AuthenticationError, AzureOpenAI, BadRequestError, NotFoundError, RateLimitError, toFile } from "openai";
import { type AzureFake, startAzureFake } from "./azure.ts";
import { throttled, TINY_PNG_BASE64 } from "./azure-wire.ts";

const KEY = "3f1c0a9e5b7d4c2a8e6f1b3d5c7a9e0f";
const VERSION = "2024-10-21";

describe("Azure OpenAI fake, driven by openai's AzureOpenAI", () => {
  let fake: AzureFake;
  let client: AzureOpenAI;
  before(async () => {
    fake = await startAzureFake({
      apiKey: KEY,
      deployments: {
        "chat-prod": { model: "gpt-4o-2024-11-20", kind: "chat" },
        "embed-small": { model: "text-embedding-3-small", kind: "embeddings" },
        "images-1": { model: "gpt-image-1", kind: "images" },
      },
    });
    client = new AzureOpenAI({ apiKey: KEY, endpoint: fake.url, apiVersion: VERSION, maxRetries: 0 });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.received.length = 0;
    fake.answers.length = 0;
  });

  test("chat: text, usage, filter results, the deployment in the path and the key in api-key", async () => {
    fake.answers.push({ text: ["Hello ", "from Azure."] });
    const completion = await client.chat.completions.create({
      model: "chat-prod",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 317,
    });
    assert.equal(completion.choices[0].message.content, "Hello from Azure.");
    assert.equal(completion.choices[0].finish_reason, "stop");
    assert.equal(completion.model, "gpt-4o-2024-11-20");
    assert.deepEqual(
      [
        completion.usage?.prompt_tokens,
        completion.usage?.completion_tokens,
        completion.usage?.total_tokens,
        completion.usage?.prompt_tokens_details?.cached_tokens,
      ],
      [1237, 389, 1626, 256],
    );
    const raw = completion as any;
    assert.equal(raw.prompt_filter_results[0].content_filter_results.violence.filtered, false);
    assert.equal(raw.choices[0].content_filter_results.hate.severity, "safe");
    const [seen] = fake.received;
    assert.equal(seen.path, "/openai/deployments/chat-prod/chat/completions");
    assert.equal(seen.query["api-version"], VERSION);
    assert.equal(seen.headers["api-key"], KEY);
    assert.equal(seen.headers.authorization, undefined);
    assert.equal(seen.authorized, true);
    assert.equal(seen.body.max_tokens, 317);
  });

  test("chat streaming with include_usage: prompt filter chunk first, usage in the last chunk before [DONE]", async () => {
    fake.answers.push({ text: ["One ", "two ", "three"], usage: { prompt_tokens: 523, completion_tokens: 47 } });
    const stream = await client.chat.completions.create({
      model: "chat-prod",
      messages: [{ role: "user", content: "Count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal((chunks[0] as any).prompt_filter_results.length, 1);
    assert.deepEqual(chunks[0].choices, []);
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join(""), "One two three");
    assert.equal(chunks.at(-2)?.choices[0].finish_reason, "stop");
    assert.deepEqual(chunks.at(-1)?.choices, []);
    assert.deepEqual([chunks.at(-1)?.usage?.prompt_tokens, chunks.at(-1)?.usage?.completion_tokens], [523, 47]);
    assert.deepEqual(fake.received[0].body.stream_options, { include_usage: true });
  });

  test("stream_options is refused by an API version older than its support", async () => {
    const old = new AzureOpenAI({ apiKey: KEY, endpoint: fake.url, apiVersion: "2024-06-01", maxRetries: 0 });
    const refusal = await old.chat.completions
      .create({ model: "chat-prod", messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_usage: true } })
      .catch((error) => error);
    assert.ok(refusal instanceof BadRequestError);
    assert.match(refusal.message, /Unrecognized request argument supplied: stream_options/);
  });

  test("a tool call, plain and streamed, and the tool result sent back", async () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      },
    ];
    const call = { id: "call_Xk29fPq0", name: "get_weather", arguments: '{"city":"Lisbon"}' };
    fake.answers.push({ toolCalls: [call] }, { toolCalls: [call] }, { text: ["21 °C."] });
    const messages: any[] = [{ role: "user", content: "Weather in Lisbon?" }];
    const plain = await client.chat.completions.create({ model: "chat-prod", messages, tools });
    assert.equal(plain.choices[0].finish_reason, "tool_calls");
    const toolCall = plain.choices[0].message.tool_calls?.[0] as any;
    assert.deepEqual([toolCall.id, toolCall.function.name, toolCall.function.arguments], [call.id, call.name, call.arguments]);

    const streamed = client.chat.completions.stream({ model: "chat-prod", messages, tools });
    const final = await streamed.finalChatCompletion();
    assert.deepEqual((final.choices[0].message.tool_calls?.[0] as any)?.function, { name: call.name, arguments: call.arguments });
    assert.equal(final.choices[0].finish_reason, "tool_calls");

    const answer = await client.chat.completions.create({
      model: "chat-prod",
      messages: [...messages, plain.choices[0].message, { role: "tool", tool_call_id: call.id, content: '{"celsius":21}' }],
      tools,
    });
    assert.equal(answer.choices[0].message.content, "21 °C.");
    assert.deepEqual(
      fake.received[2].body.messages.map((message: any) => message.role),
      ["user", "assistant", "tool"],
    );
    assert.equal(fake.received[0].body.tools[0].function.name, "get_weather");
  });

  test("embeddings (the SDK asks for base64 and decodes it)", async () => {
    const embedded = await client.embeddings.create({ model: "embed-small", input: ["first", "second"], dimensions: 32 });
    assert.equal(embedded.data.length, 2);
    assert.equal(embedded.data[0].embedding.length, 32);
    assert.notDeepEqual(embedded.data[0].embedding, embedded.data[1].embedding);
    assert.equal(embedded.usage.prompt_tokens, 10);
    assert.equal(fake.received[0].path, "/openai/deployments/embed-small/embeddings");
    assert.equal(fake.received[0].body.encoding_format, "base64");
  });

  test("images: generations and edits (multipart)", async () => {
    const generated = await client.images.generate({ model: "images-1", prompt: "A red square", n: 1 });
    assert.equal(generated.data?.[0].b64_json, TINY_PNG_BASE64);
    assert.equal(generated.usage?.output_tokens, 4160);
    // A multipart body hides `model` from the SDK's deployment routing: edits need the client's `deployment`.
    const images = new AzureOpenAI({ apiKey: KEY, endpoint: fake.url, apiVersion: VERSION, deployment: "images-1", maxRetries: 0 });
    const image = await toFile(Buffer.from(TINY_PNG_BASE64, "base64"), "square.png", { type: "image/png" });
    const edited = await images.images.edit({ model: "gpt-image-1", image, prompt: "Make it blue" });
    assert.equal(edited.data?.[0].b64_json, TINY_PNG_BASE64);
    assert.equal(fake.received[1].path, "/openai/deployments/images-1/images/edits");
    assert.equal(fake.received[1].form?.prompt, "Make it blue");
    assert.equal(fake.received[1].files?.[0].filename, "square.png");
  });

  test("a wrong key is refused with Azure's 401", async () => {
    const wrong = new AzureOpenAI({ apiKey: "not-the-key", endpoint: fake.url, apiVersion: VERSION, maxRetries: 0 });
    const refusal = await wrong.chat.completions
      .create({ model: "chat-prod", messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof AuthenticationError);
    assert.equal(refusal.status, 401);
    assert.match(refusal.message, /Access denied due to invalid subscription key/);
    assert.equal(fake.received[0].authorized, false);
  });

  test("a filtered prompt is a 400 with code content_filter", async () => {
    fake.answers.push({ filterPrompt: true });
    const refusal = await client.chat.completions
      .create({ model: "chat-prod", messages: [{ role: "user", content: "Something violent" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof BadRequestError);
    assert.equal(refusal.status, 400);
    assert.equal(refusal.code, "content_filter");
    assert.equal((refusal.error as any).innererror.content_filter_result.violence.filtered, true);
  });

  test("a filtered completion ends with finish_reason content_filter", async () => {
    fake.answers.push({ filterCompletion: true, usage: { prompt_tokens: 61, completion_tokens: 13 } });
    const completion = await client.chat.completions.create({ model: "chat-prod", messages: [{ role: "user", content: "Hi" }] });
    assert.equal(completion.choices[0].finish_reason, "content_filter");
    assert.equal((completion.choices[0] as any).content_filter_results.violence.filtered, true);
    assert.equal(completion.usage?.completion_tokens, 13);
  });

  test("unknown deployment 404 DeploymentNotFound, missing api-version 404, unknown api-version 400", async () => {
    const refusal = await client.chat.completions
      .create({ model: "nowhere", messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof NotFoundError);
    assert.equal(refusal.code, "DeploymentNotFound");
    const headers = { "api-key": KEY, "content-type": "application/json" };
    const body = JSON.stringify({ messages: [{ role: "user", content: "Hi" }] });
    const bare = await fetch(`${fake.url}/openai/deployments/chat-prod/chat/completions`, { method: "POST", headers, body });
    assert.equal(bare.status, 404);
    assert.deepEqual(await bare.json(), { error: { code: "404", message: "Resource not found" } });
    const unknown = await fetch(`${fake.url}/openai/deployments/chat-prod/chat/completions?api-version=2019-01-01`, {
      method: "POST",
      headers,
      body,
    });
    assert.equal(unknown.status, 400);
    assert.equal(((await unknown.json()) as any).error.message, "API version not supported");
  });

  test("throttling (429 with retry-after), a missing usage block and a cut stream", async () => {
    fake.answers.push({ error: throttled() });
    const refusal = await client.chat.completions
      .create({ model: "chat-prod", messages: [{ role: "user", content: "Hi" }] })
      .catch((error) => error);
    assert.ok(refusal instanceof RateLimitError);
    assert.equal(refusal.headers.get("retry-after"), "7");

    fake.answers.push({ usage: null });
    const bare = await client.chat.completions.create({ model: "chat-prod", messages: [{ role: "user", content: "Hi" }] });
    assert.equal(bare.usage, undefined);

    fake.answers.push({ text: ["a", "b", "c"], cutAfterChunks: 3 });
    const seen: string[] = [];
    await assert.rejects(async () => {
      const stream = await client.chat.completions.create({
        model: "chat-prod",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      });
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? "");
    });
    assert.deepEqual(seen, ["", "", "a"]);
  });
});
