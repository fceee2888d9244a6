// POST /v1/embeddings over real HTTP (docs/api.md §4, docs/billing.md "Embeddings"), on SQLite and PostgreSQL: the
// simulator through the official openai SDK (both encodings, the same numbers) and the AI SDK; an OpenAI-compatible
// upstream that records what it got; the Azure, Gemini and Vertex fakes (tests/fakes/); a channel type without
// embeddings failing over. Every answered request's ledger row is the upstream's tokens (or the gateway's count where
// the upstream reports none) at the model's price, to the micro-dollar; bad input is refused with a 400 naming the
// field before anything is reserved (no row, the balance untouched).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { embed, embedMany } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { startAzureFake, type AzureFake } from "../fakes/azure";
import { embeddingBase64, embeddingOf } from "../fakes/azure-wire";
import { startGeminiFake, type GeminiFake } from "../fakes/gemini";
import { startVertexFake, type VertexFake } from "../fakes/vertex";
import { vertexTokenCount } from "../fakes/vertex-embeddings";
import { countAllTextTokens } from "@/lib/money/tokens";

const SMALL = "std-embedding-3-small"; // served by the built-in simulator
const LARGE = "std-embedding-3-large"; // taken off the simulator: served by the vendor channel a test adds
const PRICE = { [SMALL]: 0.02, [LARGE]: 0.13 } as Record<string, number>;
const SIMULATOR = "Built-in simulator (offline)";
const AZURE_KEY = "9c2e4a71f0b84d3e8a5c6b7d1e2f3a4b";
const GEMINI_KEY = "AIzaSyD-fake-gemini-key-0123456789abcdef";
// Digits count more o200k tokens than the fakes' bytes / 4: their bills stay within the gateway's reservation.
const DIGITS = ["12345 67890 ".repeat(40), "24680 13579 ".repeat(30), "31415 92653 58979 ".repeat(20)];

const counted = (texts: string[]) => texts.reduce((sum, text) => sum + countAllTextTokens(text), 0);
const cost = (tokens: number, model: string) => Math.ceil(tokens * PRICE[model]! - 1e-9);
const fromBase64 = (text: string) => {
  const bytes = Buffer.from(text, "base64");
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
};
const norm = (values: ArrayLike<number>) => Math.sqrt(Array.from(values).reduce((sum, value) => sum + value * value, 0));

for (const database of ["sqlite", "postgres"] as const) {
  describe(`/v1/embeddings on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    let user: Awaited<ReturnType<typeof createUserWithKey>>;
    let client: OpenAI;

    before(async () => {
      if (skip) return;
      gateway = await startGateway({ database });
      user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
      client = new OpenAI({ apiKey: user.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string; models: string[] }[];
      const simulator = channels.find((channel) => channel.type === "simulator")!;
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: simulator.models.filter((model) => model !== LARGE) });
    });
    after(() => stopAllGateways());

    async function post(body: unknown, key = user.key) {
      const response = await fetch(`${gateway.url}/v1/embeddings`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as any, requestId: response.headers.get("x-request-id")! };
    }

    async function rowsOf(requestId: string): Promise<any[]> {
      return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    }

    async function row(requestId: string) {
      for (let attempt = 0; attempt < 100; attempt++) {
        const found = await rowsOf(requestId);
        if (found.length) return found[0];
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ledger row for ${requestId}`);
    }

    async function balance(): Promise<number> {
      const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
      return users.find((candidate) => candidate.id === user.userId)!.balance;
    }

    /** The row of an answered request: its tokens at the model's price, within the reservation. */
    async function assertCharged(requestId: string, model: string, tokens: number, channelName: string) {
      const charged = await row(requestId);
      assert.equal(charged.endpoint, "/v1/embeddings");
      assert.equal(charged.model, model);
      assert.equal(charged.status, "success");
      assert.equal(charged.channelName, channelName);
      assert.equal(charged.textInputTokens, tokens);
      assert.equal(charged.textOutputTokens, 0);
      assert.equal(charged.cost, cost(tokens, model));
      assert.equal(charged.overReservation, 0);
      return charged;
    }

    /** A channel serving LARGE ahead of everything, for the length of `work`. */
    async function withChannel(body: Record<string, unknown>, work: () => Promise<void>) {
      const { id } = await gateway.admin("POST", "/api/admin/channels", { models: [LARGE], priority: 100, ...body });
      try {
        await work();
      } finally {
        await gateway.admin("DELETE", `/api/admin/channels/${id}`);
      }
    }

    describe("the simulator", { skip }, () => {
      test("the openai SDK: base64 (its default, decoded) and float give the same unit vectors; the ledger row", async () => {
        const texts = ["The quick brown fox", "jumps over the lazy dog"];
        const { data: asked, response } = await client.embeddings.create({ model: SMALL, input: texts }).withResponse();
        assert.equal(asked.object, "list");
        assert.equal(asked.model, SMALL);
        assert.deepEqual(
          asked.data.map((item) => [item.object, item.index, item.embedding.length]),
          [
            ["embedding", 0, 1536],
            ["embedding", 1, 1536],
          ],
        );
        assert.ok(Math.abs(norm(asked.data[0]!.embedding) - 1) < 1e-5);
        assert.notDeepEqual(asked.data[0]!.embedding, asked.data[1]!.embedding);
        assert.deepEqual(asked.usage, { prompt_tokens: counted(texts), total_tokens: counted(texts) });
        const float = await client.embeddings.create({ model: SMALL, input: texts, encoding_format: "float" });
        assert.deepEqual(
          float.data.map((item) => item.embedding),
          asked.data.map((item) => item.embedding),
        );
        const charged = await assertCharged(response.headers.get("x-request-id")!, SMALL, counted(texts), SIMULATOR);
        assert.equal(charged.reserved, Math.max(1, cost(counted(texts), SMALL)));
        assert.deepEqual(charged.detail.inputs, 2);
      });

      test("the answer's shape as sent; the same text, the same vector; dimensions cut and rescale it; token arrays", async () => {
        const whole = await post({ model: SMALL, input: "Hello there", encoding_format: "float" });
        assert.equal(whole.status, 200);
        assert.deepEqual(Object.keys(whole.json), ["object", "data", "model", "usage"]);
        assert.deepEqual(Object.keys(whole.json.data[0]), ["object", "index", "embedding"]);
        const again = await post({ model: SMALL, input: ["Hello there"], encoding_format: "float" });
        assert.deepEqual(again.json.data[0].embedding, whole.json.data[0].embedding);
        const short = await client.embeddings.create({ model: SMALL, input: "Hello there", dimensions: 256, encoding_format: "float" });
        const cut = short.data[0]!.embedding;
        assert.equal(cut.length, 256);
        assert.ok(Math.abs(norm(cut) - 1) < 1e-5);
        const start = whole.json.data[0].embedding.slice(0, 256) as number[];
        for (const [index, value] of cut.entries()) assert.ok(Math.abs(value - start[index]! / norm(start)) < 1e-6);

        const tokens = await client.embeddings.create({
          model: SMALL,
          input: [
            [9906, 1070],
            [9906, 1070, 13],
          ],
        });
        assert.equal(tokens.usage.prompt_tokens, 5);
        assert.notDeepEqual(tokens.data[0]!.embedding, tokens.data[1]!.embedding);
        const single = await post({ model: SMALL, input: [9906, 1070] });
        assert.equal(single.status, 200);
        assert.equal(single.json.data.length, 1);
        assert.equal(single.json.usage.prompt_tokens, 2);
      });

      test("a large request: read on a body worker, answered a few vectors at a time, every index in order", async () => {
        const texts = Array.from({ length: 300 }, (_, index) => `Document ${index}: ${"lorem ipsum dolor sit amet ".repeat(4)}`);
        assert.ok(JSON.stringify(texts).length > 16 * 1024);
        const { data: answer, response } = await client.embeddings.create({ model: SMALL, input: texts }).withResponse();
        assert.deepEqual(
          answer.data.map((item) => item.index),
          texts.map((_, index) => index),
        );
        assert.ok(answer.data.every((item) => item.embedding.length === 1536));
        await assertCharged(response.headers.get("x-request-id")!, SMALL, counted(texts), SIMULATOR);
      });

      test("the AI SDK's embed and embedMany", async () => {
        const provider = createOpenAI({ apiKey: user.key, baseURL: `${gateway.url}/v1` });
        const one = await embed({ model: provider.embedding(SMALL), value: "sunny day at the beach" });
        assert.equal(one.embedding.length, 1536);
        assert.equal(one.usage.tokens, counted(["sunny day at the beach"]));
        const many = await embedMany({ model: provider.embedding(SMALL), values: ["rain", "snow", "sun"] });
        assert.equal(many.embeddings.length, 3);
        assert.deepEqual(many.embeddings[2], (await embed({ model: provider.embedding(SMALL), value: "sun" })).embedding);
      });

      test("GET /v1/models lists the embedding models for a key whose group has them, and only then", async () => {
        const listed = (await client.models.list()).data.map((model) => model.id);
        assert.ok(listed.includes(SMALL) && listed.includes(LARGE));
        await gateway.admin("POST", "/api/admin/groups", { name: "text-only", models: ["std-5.5"] });
        const other = await createUserWithKey(gateway, { group: "text-only" });
        const theirs = await new OpenAI({ apiKey: other.key, baseURL: `${gateway.url}/v1` }).models.list();
        assert.deepEqual(
          theirs.data.map((model) => model.id),
          ["std-5.5"],
        );
        const refused = await post({ model: SMALL, input: "hi" }, other.key);
        assert.equal(refused.status, 403);
        assert.match(refused.json.error.message, /GET \/v1\/models/);
      });
    });

    describe("bad input: a clear 4xx naming the field, nothing reserved, no row", { skip }, () => {
      test("each refusal", async () => {
        const start = await balance();
        const cases: [unknown, number, string | null, RegExp][] = [
          [{ model: SMALL }, 400, "input", /Missing 'input'/],
          [{ input: "hi" }, 400, "model", /Missing 'model'/],
          [{ model: "std-embedding-9", input: "hi" }, 404, "model", /does not exist/],
          [{ model: "std-5.5", input: "hi" }, 400, "model", /'std-5\.5' is a text model: it is served by \/v1\/chat\/completions/],
          [{ model: SMALL, input: Array.from({ length: 2049 }, () => "x") }, 400, "input", /at most 2048 inputs/],
          [{ model: SMALL, input: ["a", "b", "c", ""] }, 400, "input[3]", /empty string/],
          [{ model: SMALL, input: "" }, 400, "input", /empty string/],
          [{ model: SMALL, input: [] }, 400, "input", /empty array/],
          [{ model: SMALL, input: ["a", 7] }, 400, "input[1]", /expected a string/],
          [
            {
              model: SMALL,
              input: [
                [1, 2],
                [3, -1],
              ],
            },
            400,
            "input[1]",
            /whole numbers/,
          ],
          [{ model: SMALL, input: { text: "hi" } }, 400, "input", /got an object/],
          [{ model: SMALL, input: ["ok", "word ".repeat(9000)] }, 400, "input[1]", /at most 8,192 tokens/],
          [{ model: SMALL, input: "hi", dimensions: 1537 }, 400, "dimensions", /at most 1536 values; got 1537/],
          [{ model: SMALL, input: "hi", dimensions: 0 }, 400, "dimensions", /whole number/],
          [{ model: SMALL, input: "hi", encoding_format: "int8" }, 400, "encoding_format", /'float' or 'base64'/],
          [{ model: SMALL, input: "hi", truncate: "END" }, 400, "truncate", /Unknown field 'truncate'/],
        ];
        const ids: string[] = [];
        for (const [body, status, param, message] of cases) {
          const answer = await post(body);
          assert.equal(answer.status, status, JSON.stringify(answer.json));
          assert.equal(answer.json.error.param, param);
          assert.match(answer.json.error.message, message);
          ids.push(answer.requestId);
        }
        // 40 inputs of ~8,000 tokens: past 300,000 in all (a 1.6 MB body, read on a worker).
        const total = await post({ model: SMALL, input: Array.from({ length: 40 }, (_, index) => `${index} ${"word ".repeat(7990)}`) });
        assert.equal(total.status, 400);
        assert.equal(total.json.error.param, "input");
        assert.match(total.json.error.message, /at most 300,000 tokens in all/);
        ids.push(total.requestId);

        // Past the 8 MB body limit: 413, saying what the limit holds.
        const large = await post({ model: SMALL, input: "x".repeat(9 * 1024 * 1024) });
        assert.equal(large.status, 413);
        assert.match(large.json.error.message, /8 MB limit of \/v1\/embeddings/);

        assert.equal(await balance(), start);
        // A request after them is written; none of theirs is.
        const later = await post({ model: SMALL, input: "after the refusals" });
        await row(later.requestId);
        for (const id of ids) assert.deepEqual(await rowsOf(id), []);
        // No channel serves LARGE here: 503, the reservation given back.
        const unserved = await post({ model: LARGE, input: "hi" });
        assert.equal(unserved.status, 503);
      });
    });

    describe("upstreams", { skip }, () => {
      let recorder: FakeUpstream;
      let azure: AzureFake;
      let gemini: GeminiFake;
      let vertex: VertexFake;
      before(async () => {
        if (skip) return;
        recorder = await startFakeUpstream((request, response) => {
          const inputs = request.body.input as string[];
          const size = request.body.dimensions ?? 3072;
          // Out of order, as an upstream may send them: the gateway places each by its index.
          const data = inputs
            .map((text, index) => ({ object: "embedding", index, embedding: embeddingBase64(embeddingOf(text, size)) }))
            .reverse();
          sendJson(response, 200, {
            object: "list",
            data,
            model: "text-embedding-3-large",
            usage: { prompt_tokens: 1237, total_tokens: 1237 },
          });
        });
        azure = await startAzureFake({
          apiKey: AZURE_KEY,
          deployments: { "embed-large": { model: "text-embedding-3-large", kind: "embeddings" } },
        });
        gemini = await startGeminiFake({ apiKey: GEMINI_KEY });
        vertex = await startVertexFake({ project: "gateway-tests-417203" });
      });
      after(async () => {
        await Promise.all([recorder?.close(), azure?.close(), gemini?.close(), vertex?.close()]);
      });

      test("an OpenAI-compatible upstream: the mapped model, dimensions, user, base64 asked; charged its prompt_tokens", async () => {
        const channel = { name: "openai embeddings", type: "openai", baseUrl: `${recorder.url}/v1`, apiKey: "sk-upstream-0123456789" };
        await withChannel({ ...channel, modelMapping: { [LARGE]: "text-embedding-3-large" } }, async () => {
          // Long enough that the gateway's count passes the fake's 1,237 tokens: the bill stays within the reservation.
          const texts = ["alpha beta gamma delta ".repeat(200), "epsilon zeta eta theta ".repeat(200)];
          assert.ok(counted(texts) >= 1237);
          for (const encoding_format of ["float", "base64"] as const) {
            recorder.received.length = 0;
            const { data: answer, response } = await client.embeddings
              .create({ model: LARGE, input: texts, dimensions: 256, user: "user-42", encoding_format })
              .withResponse();
            const [seen] = recorder.received;
            assert.equal(seen!.path, "/v1/embeddings");
            assert.equal(seen!.headers.authorization, "Bearer sk-upstream-0123456789");
            assert.deepEqual(seen!.body, {
              model: "text-embedding-3-large",
              input: texts,
              encoding_format: "base64",
              dimensions: 256,
              user: "user-42",
            });
            // The fake's float32 values, in the inputs' order, in the encoding asked for (the SDK leaves a base64 it
            // was asked for as it came).
            assert.deepEqual(
              answer.data.map((item) => (typeof item.embedding === "string" ? fromBase64(item.embedding) : item.embedding)),
              texts.map((text) => embeddingOf(text, 256)),
            );
            if (encoding_format === "base64") assert.equal(typeof answer.data[0]!.embedding, "string");
            assert.equal(answer.model, LARGE);
            assert.equal(answer.usage.prompt_tokens, 1237);
            const charged = await assertCharged(response.headers.get("x-request-id")!, LARGE, 1237, "openai embeddings");
            assert.equal(charged.cost, 161); // 1,237 × $0.13 per 1M = 160.81 micro-USD, rounded up
            assert.equal(charged.reserved, cost(counted(texts), LARGE));
            assert.equal(charged.detail.usageSource, "upstream");
          }
        });
      });

      test("Azure OpenAI: the deployment's embeddings operation with api-key and api-version", async () => {
        await withChannel(
          {
            name: "azure embeddings",
            type: "azure",
            baseUrl: azure.url,
            apiKey: AZURE_KEY,
            modelMapping: { [LARGE]: "embed-large" },
            settings: { apiVersion: "2024-10-21" },
          },
          async () => {
            const { data: answer, response } = await client.embeddings
              .create({ model: LARGE, input: DIGITS, dimensions: 64 })
              .withResponse();
            const [seen] = azure.received;
            assert.equal(seen!.path, "/openai/deployments/embed-large/embeddings");
            assert.equal(seen!.query["api-version"], "2024-10-21");
            assert.equal(seen!.headers["api-key"], AZURE_KEY);
            assert.equal(seen!.headers.authorization, undefined);
            assert.deepEqual(
              answer.data.map((item) => item.embedding),
              DIGITS.map((text) => embeddingOf(text, 64)),
            );
            const billed = DIGITS.reduce((sum, text) => sum + Math.ceil(text.length / 4) + 3, 0);
            assert.equal(answer.usage.prompt_tokens, billed);
            await assertCharged(response.headers.get("x-request-id")!, LARGE, billed, "azure embeddings");
          },
        );
      });

      test("Gemini: batchEmbedContents in calls of 100, unit vectors, charged the gateway's count; token arrays refused", async () => {
        await withChannel(
          {
            name: "gemini embeddings",
            type: "gemini",
            baseUrl: gemini.url,
            apiKey: GEMINI_KEY,
            modelMapping: { [LARGE]: "gemini-embedding-001" },
          },
          async () => {
            const texts = Array.from({ length: 150 }, (_, index) => `note number ${index}`);
            const { data: answer, response } = await client.embeddings
              .create({ model: LARGE, input: texts, encoding_format: "float" })
              .withResponse();
            assert.deepEqual(
              gemini.received.map((request) => [request.path, request.body.requests.length]),
              [
                ["/v1beta/models/gemini-embedding-001:batchEmbedContents", 100],
                ["/v1beta/models/gemini-embedding-001:batchEmbedContents", 50],
              ],
            );
            const first = gemini.received[0]!.body.requests[0];
            assert.deepEqual(first, {
              model: "models/gemini-embedding-001",
              content: { parts: [{ text: "note number 0" }] },
              outputDimensionality: 3072,
            });
            assert.deepEqual(
              answer.data.map((item) => item.index),
              texts.map((_, index) => index),
            );
            assert.ok(answer.data.every((item) => item.embedding.length === 3072 && Math.abs(norm(item.embedding) - 1) < 1e-5));
            assert.notDeepEqual(answer.data[0]!.embedding, answer.data[1]!.embedding);
            assert.equal(answer.usage.prompt_tokens, counted(texts));
            const charged = await assertCharged(response.headers.get("x-request-id")!, LARGE, counted(texts), "gemini embeddings");
            assert.equal(charged.detail.usageSource, "gateway");

            gemini.received.length = 0;
            const tokens = await post({ model: LARGE, input: [[1, 2, 3]] });
            assert.equal(tokens.status, 400);
            assert.equal(tokens.json.error.type, "invalid_request_error");
            assert.match(tokens.json.error.message, /a 'gemini' channel embeds text only; send the inputs as strings/);
            assert.equal(gemini.received.length, 0);
            // Refused after the reservation, by the channel: a row with nothing charged, as for a channel's refusal.
            const refused = await row(tokens.requestId);
            assert.deepEqual([refused.status, refused.cost, refused.httpStatus], ["error", 0, 400]);
          },
        );
      });

      test("Vertex AI: :predict one instance at a time for gemini-embedding-001, batched for text-embedding-005; token counts charged", async () => {
        const base = {
          type: "vertex",
          baseUrl: vertex.url,
          apiKey: JSON.stringify(vertex.serviceAccount),
          settings: { project: "gateway-tests-417203", region: "us-east5" },
        };
        const prefix = "/v1/projects/gateway-tests-417203/locations/us-east5/publishers/google/models";
        const calls = () => vertex.received.filter((request) => request.path !== "/token");
        await withChannel({ ...base, name: "vertex gemini embeddings", modelMapping: { [LARGE]: "gemini-embedding-001" } }, async () => {
          const { data: answer, response } = await client.embeddings
            .create({ model: LARGE, input: DIGITS, dimensions: 768 })
            .withResponse();
          assert.deepEqual(
            calls().map((request) => [request.path, request.body.instances.length, request.body.parameters.outputDimensionality]),
            DIGITS.map(() => [`${prefix}/gemini-embedding-001:predict`, 1, 768]),
          );
          assert.deepEqual(
            calls()
              .map((request) => request.body.instances[0].content)
              .sort(),
            [...DIGITS].sort(),
          );
          assert.ok(answer.data.every((item) => item.embedding.length === 768 && Math.abs(norm(item.embedding) - 1) < 1e-5));
          const billed = DIGITS.reduce((sum, text) => sum + vertexTokenCount(text), 0);
          assert.equal(answer.usage.prompt_tokens, billed);
          await assertCharged(response.headers.get("x-request-id")!, LARGE, billed, "vertex gemini embeddings");
        });
        vertex.received.length = 0;
        await withChannel({ ...base, name: "vertex text embeddings", modelMapping: { [LARGE]: "text-embedding-005" } }, async () => {
          const answer = await client.embeddings.create({ model: LARGE, input: DIGITS, dimensions: 256 });
          assert.deepEqual(
            calls().map((request) => [request.path, request.body.instances.length]),
            [[`${prefix}/text-embedding-005:predict`, 3]],
          );
          assert.equal(answer.data[2]!.embedding.length, 256);
        });
      });

      test("no upstream's bill passed its reservation", () => {
        assert.doesNotMatch(gateway.output(), /passed the reservation/);
      });

      test("Gemini split in calls of 100, the second failing: the first call's inputs, billed upstream, are charged", async () => {
        let calls = 0;
        const flaky = await startFakeUpstream((request, response) => {
          calls++;
          if (calls > 1) return sendJson(response, 500, { error: { code: 500, message: "Internal error", status: "INTERNAL" } });
          const requests = request.body.requests as unknown[];
          sendJson(response, 200, { embeddings: requests.map((_, index) => ({ values: [1, index, 0.5] })) });
        });
        try {
          await withChannel(
            {
              name: "flaky gemini",
              type: "gemini",
              baseUrl: flaky.url,
              apiKey: GEMINI_KEY,
              modelMapping: { [LARGE]: "gemini-embedding-001" },
            },
            async () => {
              const texts = Array.from({ length: 150 }, (_, index) => `text number ${index} of a long list`);
              const before = await balance();
              const refused = await post({ model: LARGE, input: texts });
              assert.equal(refused.status, 502, JSON.stringify(refused.json));
              assert.equal(calls, 2, "the second call failed; nothing was sent after it");
              const charged = await row(refused.requestId);
              assert.equal(charged.status, "error");
              assert.equal(charged.textInputTokens, counted(texts.slice(0, 100)), "the first call's 100 inputs");
              assert.equal(charged.cost, cost(counted(texts.slice(0, 100)), LARGE));
              assert.equal(await balance(), before - charged.cost);
            },
          );
        } finally {
          await flaky.close();
        }
      });

      test("a channel type without embeddings (bedrock) fails over to the next channel", async () => {
        const bedrock = {
          name: "bedrock first",
          type: "bedrock",
          apiKey: "AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
          settings: { region: "us-east-1" },
          models: [SMALL],
        };
        await withChannel(bedrock, async () => {
          const { response } = await client.embeddings.create({ model: SMALL, input: "served elsewhere" }).withResponse();
          await assertCharged(response.headers.get("x-request-id")!, SMALL, counted(["served elsewhere"]), SIMULATOR);
        });
      });
    });
  });
}
