// Gemini's embedding methods, inbound (/v1beta/models/{model}:batchEmbedContents and :embedContent, docs/api.md
// "Gemini's API"): @google/genai's `models.embedContent` pointed at the gateway with its sk- key, against the simulator
// (unit vectors of the model's size or `outputDimensionality`, the same as /v1/embeddings makes for the same text) and
// a fake Gemini upstream serving an operator's mapped model (the task type and title passed on). Every answered
// request's ledger row is the gateway's count at the model's price to the micro-dollar; bad input answers with
// Google's INVALID_ARGUMENT naming the field, and costs nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, GoogleGenAI } from "@google/genai";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startGeminiFake, type GeminiFake } from "../fakes/gemini";
import { countAllTextTokens } from "@/lib/money/tokens";

const SMALL = "std-embedding-3-small"; // 1536 values, $0.02 per 1M tokens, on the built-in simulator
const LARGE = "std-embedding-3-large"; // 3072 values, $0.13: served by the Gemini fake in its test
const PRICE = { [SMALL]: 0.02, [LARGE]: 0.13 } as Record<string, number>;
const GEMINI_KEY = "AIzaSyD-fake-gemini-key-0123456789abcdef";

let gateway: Gateway;
let user: Awaited<ReturnType<typeof createUserWithKey>>;
let gemini: GeminiFake;

before(async () => {
  gateway = await startGateway();
  user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  gemini = await startGeminiFake({ apiKey: GEMINI_KEY });
});
after(async () => {
  await gemini?.close();
  await stopAllGateways();
});

const genai = () => new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: gateway.url } });
const counted = (texts: string[]) => texts.reduce((sum, text) => sum + countAllTextTokens(text), 0);
const cost = (tokens: number, model: string) => Math.ceil(tokens * PRICE[model]! - 1e-9);
const norm = (values: number[]) => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));

function requestIdOf(response: { sdkHttpResponse?: { headers?: Record<string, string> } }): string {
  const id = response.sdkHttpResponse?.headers?.["x-request-id"];
  assert.ok(id, "the answer carries x-request-id");
  return id;
}

async function rowsOf(requestId: string): Promise<any[]> {
  return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
}

/** The ledger row of an answered request: the count at the model's price, on the endpoint it came to. */
async function assertCharged(requestId: string, model: string, tokens: number, method: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const [row] = await rowsOf(requestId);
    if (row) {
      assert.equal(row.endpoint, `/v1beta/models/{model}:${method}`);
      assert.equal(row.model, model);
      assert.equal(row.status, "success");
      assert.equal(row.textInputTokens, tokens);
      assert.equal(row.textOutputTokens, 0);
      assert.equal(row.cost, cost(tokens, model));
      assert.equal(row.reserved, Math.max(1, cost(tokens, model)));
      return row;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no ledger row for ${requestId}`);
}

async function balance(): Promise<number> {
  const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
  return users.find((candidate) => candidate.id === user.userId)!.balance;
}

async function post(path: string, body: unknown) {
  const response = await fetch(`${gateway.url}/v1beta/models/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": user.key },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any, requestId: response.headers.get("x-request-id")! };
}

describe("against the built-in simulator", () => {
  test("embedContent, one text: a unit vector of the model's size, the same as /v1/embeddings makes; the ledger row", async () => {
    const text = "The quick brown fox";
    const response = await genai().models.embedContent({ model: SMALL, contents: text });
    assert.equal(response.embeddings?.length, 1);
    const values = response.embeddings![0]!.values!;
    assert.equal(values.length, 1536);
    assert.ok(Math.abs(norm(values) - 1) < 1e-5);
    const row = await assertCharged(requestIdOf(response), SMALL, counted([text]), "batchEmbedContents");
    assert.equal(row.detail.inputs, 1);

    const openai = await fetch(`${gateway.url}/v1/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: SMALL, input: text, encoding_format: "float" }),
    });
    const same = (await openai.json()) as { data: { embedding: number[] }[] };
    assert.deepEqual(values, same.data[0]!.embedding);
  });

  test("embedContent, several texts with outputDimensionality and a task type: a vector each, of that size", async () => {
    const texts = ["alpha beta", "gamma delta epsilon", "zeta"];
    const response = await genai().models.embedContent({
      model: `models/${SMALL}`,
      contents: texts,
      config: { outputDimensionality: 256, taskType: "RETRIEVAL_DOCUMENT", title: "Greek letters" },
    });
    const vectors = response.embeddings!.map((embedding) => embedding.values!);
    assert.deepEqual(
      vectors.map((values) => values.length),
      [256, 256, 256],
    );
    assert.ok(vectors.every((values) => Math.abs(norm(values) - 1) < 1e-5));
    assert.notDeepEqual(vectors[0], vectors[1]);
    const row = await assertCharged(requestIdOf(response), SMALL, counted(texts), "batchEmbedContents");
    assert.deepEqual([row.detail.inputs, row.detail.dimensions], [3, 256]);
  });

  test("a large batch, prepared on a body worker: 600 vectors in order, charged the count", async () => {
    const texts = Array.from({ length: 600 }, (_, index) => `note number ${index} about the weather in several cities`);
    const response = await genai().models.embedContent({ model: SMALL, contents: texts, config: { outputDimensionality: 32 } });
    assert.equal(response.embeddings!.length, 600);
    const again = await genai().models.embedContent({ model: SMALL, contents: texts[599]!, config: { outputDimensionality: 32 } });
    assert.deepEqual(response.embeddings![599]!.values, again.embeddings![0]!.values);
    await assertCharged(requestIdOf(response), SMALL, counted(texts), "batchEmbedContents");
  });

  test(":embedContent, one content as sent: {embedding: {values}}; text parts embedded as one text", async () => {
    const answer = await post(`${SMALL}:embedContent`, {
      model: `models/${SMALL}`,
      content: { role: "user", parts: [{ text: "first part" }, { text: "second part" }] },
      outputDimensionality: 64,
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.json), ["embedding"]);
    assert.equal(answer.json.embedding.values.length, 64);
    await assertCharged(answer.requestId, SMALL, counted(["first part\nsecond part"]), "embedContent");
    const batch = await post(`${SMALL}:batchEmbedContents`, {
      requests: [{ model: `models/${SMALL}`, content: { parts: [{ text: "first part\nsecond part" }] }, output_dimensionality: 64 }],
    });
    assert.deepEqual(batch.json.embeddings[0].values, answer.json.embedding.values);
  });
});

describe("an operator's model on a Gemini channel", () => {
  test("the task type and title go on with each text; the vectors come back in order; charged the count", async () => {
    const { id } = await gateway.admin("POST", "/api/admin/channels", {
      name: "gemini embeddings",
      type: "gemini",
      baseUrl: gemini.url,
      apiKey: GEMINI_KEY,
      models: [LARGE],
      priority: 100,
      modelMapping: { [LARGE]: "gemini-embedding-001" },
    });
    try {
      const texts = ["a document about foxes", "a document about dogs"];
      const response = await genai().models.embedContent({
        model: LARGE,
        contents: texts,
        config: { taskType: "RETRIEVAL_DOCUMENT", title: "Animals", outputDimensionality: 512 },
      });
      assert.deepEqual(
        gemini.received.map((request) => request.path),
        ["/v1beta/models/gemini-embedding-001:batchEmbedContents"],
      );
      assert.deepEqual(gemini.received[0]!.body.requests[1], {
        model: "models/gemini-embedding-001",
        content: { parts: [{ text: texts[1] }] },
        taskType: "RETRIEVAL_DOCUMENT",
        title: "Animals",
        outputDimensionality: 512,
      });
      const vectors = response.embeddings!.map((embedding) => embedding.values!);
      assert.deepEqual(
        vectors.map((values) => values.length),
        [512, 512],
      );
      assert.ok(vectors.every((values) => Math.abs(norm(values) - 1) < 1e-5));
      const row = await assertCharged(requestIdOf(response), LARGE, counted(texts), "batchEmbedContents");
      assert.equal(row.channelName, "gemini embeddings");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  });
});

describe("refusals in Google's shape, free", () => {
  /** Google's error from the SDK's ApiError. */
  async function sdkError(run: () => Promise<unknown>) {
    try {
      await run();
    } catch (error) {
      assert.ok(error instanceof ApiError, String(error));
      return { status: error.status, error: JSON.parse(error.message.replace(/^got status: \w+\. /, "")).error };
    }
    assert.fail("the call did not fail");
  }

  test("bad requests, a text model, another model in the body, sizes and limits: 400s naming the field, no charge", async () => {
    const before = await balance();
    const text = { parts: [{ text: "Hi" }] };
    const cases: [string, unknown, RegExp][] = [
      [`${SMALL}:batchEmbedContents`, {}, /Missing 'requests'/],
      [`${SMALL}:batchEmbedContents`, { requests: [] }, /'requests': an empty list/],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ model: `models/${SMALL}`, content: text }, { model: `models/${SMALL}` }] },
        /'requests\[1\]\.content'/,
      ],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ content: { parts: [{ inlineData: { data: "AAAA" } }] } }] },
        /'requests\[0\]\.content\.parts\[0\]': only text parts/,
      ],
      [`${SMALL}:batchEmbedContents`, { requests: [{ content: { parts: [{ text: "" }] } }] }, /'requests\[0\]\.content': an empty text/],
      [`${SMALL}:batchEmbedContents`, { requests: [{ content: text, taskType: "GUESSING" }] }, /'requests\[0\]\.taskType'/],
      [`${SMALL}:batchEmbedContents`, { requests: [{ content: text, colour: "red" }] }, /Unknown field 'requests\[0\]\.colour'/],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ model: "models/std-embedding-3-large", content: text }] },
        /'requests\[0\]\.model'.*must match the model in the URL \(models\/std-embedding-3-small\)/,
      ],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ content: text, outputDimensionality: 2000 }] },
        /'requests\[0\]\.outputDimensionality'.* at most 1536/,
      ],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ content: text }, { content: text, outputDimensionality: 8 }] },
        /'requests\[1\]\.outputDimensionality': every request of a batch/,
      ],
      [`${SMALL}:batchEmbedContents`, { requests: Array.from({ length: 2049 }, () => ({ content: text })) }, /at most 2048 requests/],
      [
        `${SMALL}:batchEmbedContents`,
        { requests: [{ content: text }, { content: { parts: [{ text: "word ".repeat(9000) }] } }] },
        /'requests\[1\]\.content': an input may hold at most 8,192 tokens/,
      ],
      [`${SMALL}:embedContent`, { content: text, outputDimensionality: 0 }, /'outputDimensionality'/],
      [`${SMALL}:embedContent`, { model: "models/other", content: text }, /'model'.*must match/],
      [`${SMALL}:embedContent`, { requests: [{ content: text }] }, /Unknown field 'requests'/],
      [
        "std-5.5:batchEmbedContents",
        { requests: [{ content: text }] },
        /'std-5\.5' is a text model: it is served by \/v1beta\/models\/std-5\.5:generateContent/,
      ],
      [
        `${SMALL}:generateContent`,
        { contents: [text] },
        /embedding model: it is served by \/v1beta\/models\/std-embedding-3-small:batchEmbedContents/,
      ],
    ];
    for (const [path, body, message] of cases) {
      const refused = await post(path, body);
      assert.deepEqual([refused.status, refused.json.error.code, refused.json.error.status], [400, 400, "INVALID_ARGUMENT"], path);
      assert.match(refused.json.error.message, message);
      assert.ok(
        (await rowsOf(refused.requestId)).every((row) => row.cost === 0),
        "no charge",
      );
    }

    const text_ = await sdkError(() => genai().models.embedContent({ model: "std-5.5", contents: "Hi" }));
    assert.deepEqual([text_.status, text_.error.status], [400, "INVALID_ARGUMENT"]);
    assert.match(text_.error.message, /text model.*:generateContent.*not by :batchEmbedContents/);
    const unknown = await sdkError(() => genai().models.embedContent({ model: "no-such-embedder", contents: "Hi" }));
    assert.deepEqual([unknown.status, unknown.error.status], [404, "NOT_FOUND"]);
    assert.equal(await balance(), before);
  });
});
