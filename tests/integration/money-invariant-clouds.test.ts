// The money invariant (docs/billing.md) over the cloud upstreams (docs/api.md, "Channel types"): what the ledger
// charges equals what the vendor bills, nothing is written off, the balance never goes below zero and pays exactly
// what the ledger says, and every upstream request carries the output cap that was reserved for; a stream the vendor
// cuts is charged by the delivered-output meter, at least what reached the client and never past the cap.
//
// One gateway with one channel of each type that is not `openai` or `anthropic`: azure, gemini, vertex (Gemini and
// Claude) and bedrock (Claude by InvokeModel, Nova by Converse), each in front of its vendor's fake
// (tests/helpers/vendor-channels.ts) and serving a public model of its own, priced here through the operator API (a
// priced model needs no catalog entry: it is served as a generic text model, 4,096 output tokens by default). One user
// sends many requests at once across all of them: chat and messages, streamed and not, with and without a cap, tool
// calls, the vendors' refusals and rate limits, then streams the vendors cut. On SQLite and PostgreSQL.
//
// The fakes' answer queues are first in, first out and shared by every request to the vendor, so no expectation here
// depends on which request got which queued answer: every answer that is not an error or a cut bills the vendor's
// fixed default usage (a tool call too), errors are counted per vendor, and cuts are queued only while every request
// to the vendor streams. Each client answer is paired with its ledger row by its x-request-id.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import {
  azureChannel,
  bedrockConverseChannel,
  bedrockInvokeChannel,
  geminiChannel,
  sharedVertexFake,
  vertexClaudeChannel,
  vertexGeminiChannel,
  type Billed,
  type VendorChannel,
} from "../helpers/vendor-channels";

const vendors: VendorChannel[] = [];
after(async () => {
  await Promise.all(vendors.map((vendor) => vendor.close()));
  await (await sharedVertexFake()).close();
  await stopAllGateways();
});

/** Prices set here, USD per 1M tokens (= micro-USD per token), each model its own, so a row priced as another shows. */
type Price = { textInput: number; textOutput: number; cacheReadMultiplier: number; cacheWriteMultiplier: number };

const CLOUDS: { model: string; price: Price; setup: () => Promise<VendorChannel> }[] = [
  {
    model: "cloud-azure-4o",
    price: { textInput: 2.5, textOutput: 10, cacheReadMultiplier: 0.5, cacheWriteMultiplier: 1 },
    setup: azureChannel,
  },
  {
    model: "cloud-gemini-pro",
    price: { textInput: 1.25, textOutput: 10, cacheReadMultiplier: 0.25, cacheWriteMultiplier: 1 },
    setup: geminiChannel,
  },
  {
    model: "cloud-vertex-flash",
    price: { textInput: 0.3, textOutput: 2.5, cacheReadMultiplier: 0.25, cacheWriteMultiplier: 1 },
    setup: vertexGeminiChannel,
  },
  {
    model: "cloud-vertex-sonnet",
    price: { textInput: 3, textOutput: 15, cacheReadMultiplier: 0.1, cacheWriteMultiplier: 1.25 },
    setup: vertexClaudeChannel,
  },
  {
    model: "cloud-bedrock-sonnet",
    price: { textInput: 3.3, textOutput: 16.5, cacheReadMultiplier: 0.1, cacheWriteMultiplier: 1.25 },
    setup: bedrockInvokeChannel,
  },
  {
    model: "cloud-bedrock-nova",
    price: { textInput: 0.8, textOutput: 3.2, cacheReadMultiplier: 1, cacheWriteMultiplier: 1 },
    setup: bedrockConverseChannel,
  },
];
const PRICES = Object.fromEntries(CLOUDS.map((cloud) => [cloud.model, cloud.price]));

/** What these tokens cost at the model's price, rounded up to a whole micro-dollar as the gateway rounds. */
function costOf(model: string, tokens: Billed): number {
  const price = PRICES[model]!;
  const exact =
    tokens.input * price.textInput +
    tokens.cacheRead * price.textInput * price.cacheReadMultiplier +
    tokens.cacheWrite * price.textInput * price.cacheWriteMultiplier +
    tokens.output * price.textOutput;
  return Math.max(0, Math.ceil(exact - 1e-9));
}

type Row = {
  requestId: string;
  model: string;
  status: string;
  cost: number;
  reserved: number;
  overReservation: number;
  textInputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  detail: any;
};

const tokensOf = (row: Row): Billed => ({
  input: row.textInputTokens,
  cacheRead: row.cacheReadTokens,
  cacheWrite: row.cacheWriteTokens,
  output: row.textOutputTokens,
});

// The vendors bill a fixed prompt (1,237 tokens, some of them cached) whatever they are sent; a prompt of some 2,000
// tokens keeps the reservation's input bound above that bill, so a row over its reservation is the gateway's doing.
const PROMPT = Array.from(
  { length: 120 },
  (_, index) => `Note ${index}: the tide rises twice a day as the moon pulls the sea toward it, then it ebbs.`,
).join("\n");

// A cut answer: the vendor stops after every piece but the last (queueCut in tests/helpers/vendor-channels.ts).
const CUT_PIECES = Array.from({ length: 40 }, (_, index) => `Wave ${index} breaks on the shingle and draws back. `);

type Call = {
  endpoint: "chat" | "messages";
  stream: boolean;
  /** The cap asked for; null: none (chat only), the catalog's default is sent. */
  cap: number | null;
  capField?: "max_tokens" | "max_completion_tokens";
  tools?: boolean;
  system?: boolean;
};

/** The cap the vendor should receive: the one asked for, else the generic model's default. */
const DEFAULT_CAP = 4096;
const capSent = (call: Call) => call.cap ?? DEFAULT_CAP;

// Per vendor, all at once: two tool answers, a refusal and a rate limit are queued first, so the first four requests
// to reach the vendor get them, whichever they are; the others get the default answer.
const MIXED: Call[] = [
  { endpoint: "chat", stream: false, cap: 750, capField: "max_tokens", tools: true },
  { endpoint: "messages", stream: true, cap: 850, tools: true },
  { endpoint: "chat", stream: true, cap: 910, capField: "max_completion_tokens", tools: true },
  { endpoint: "messages", stream: false, cap: 820, tools: true },
  { endpoint: "chat", stream: false, cap: 700, capField: "max_tokens", system: true },
  { endpoint: "chat", stream: false, cap: 720, capField: "max_completion_tokens" },
  { endpoint: "chat", stream: true, cap: 900, capField: "max_tokens" },
  { endpoint: "messages", stream: false, cap: 800, system: true },
  { endpoint: "messages", stream: true, cap: 1000, system: true },
  { endpoint: "messages", stream: true, cap: 1010 },
  { endpoint: "chat", stream: false, cap: null },
  { endpoint: "chat", stream: true, cap: null },
];

// Per vendor, all streamed: three cut answers queued, four streams. Exactly three are cut, whichever they are.
const CUTS = 3;
const STREAMS: Call[] = [
  { endpoint: "chat", stream: true, cap: 800, capField: "max_tokens" },
  { endpoint: "chat", stream: true, cap: 810, capField: "max_completion_tokens", tools: true },
  { endpoint: "messages", stream: true, cap: 820 },
  { endpoint: "messages", stream: true, cap: 830, system: true },
];

const chatTool = {
  type: "function",
  function: {
    name: "get_tide",
    description: "The next high tide at a harbour",
    parameters: { type: "object", properties: { harbour: { type: "string" } }, required: ["harbour"] },
  },
};
const messagesTool = {
  name: "get_tide",
  description: "The next high tide at a harbour",
  input_schema: { type: "object", properties: { harbour: { type: "string" } }, required: ["harbour"] },
};

type Sent = {
  vendor: string;
  model: string;
  call: Call;
  status: number;
  requestId: string;
  /** A whole answer arrived, or the stream's terminal event ([DONE], message_stop). */
  complete: boolean;
  /** The stream ended with an error event in the client's dialect. */
  errorEvent: boolean;
  /** The output the client received: text, tool names and arguments. */
  delivered: string;
  toolCall: boolean;
  body: string;
};

/** Reads what the client got from a stream in its dialect: the output, a tool call, an error event, the end. */
function readStream(endpoint: Call["endpoint"], text: string): Pick<Sent, "complete" | "errorEvent" | "delivered" | "toolCall"> {
  let delivered = "";
  let toolCall = false;
  let errorEvent = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const event = JSON.parse(line.slice(6));
    if (endpoint === "chat") {
      if (event.error) errorEvent = true;
      const delta = event.choices?.[0]?.delta ?? {};
      delivered += (delta.content ?? "") + (delta.reasoning_content ?? "");
      for (const call of delta.tool_calls ?? []) {
        toolCall = true;
        delivered += (call.function?.name ?? "") + (call.function?.arguments ?? "");
      }
    } else {
      if (event.type === "error") errorEvent = true;
      if (event.type === "content_block_start" && event.content_block?.type === "tool_use") {
        toolCall = true;
        delivered += event.content_block.name;
      }
      if (event.type === "content_block_delta") delivered += event.delta.text ?? event.delta.partial_json ?? event.delta.thinking ?? "";
    }
  }
  const complete = endpoint === "chat" ? /^data: \[DONE\]$/m.test(text) : /^event: message_stop$/m.test(text);
  return { complete, errorEvent, delivered, toolCall };
}

async function send(gateway: Gateway, key: string, vendor: string, model: string, call: Call, index: number): Promise<Sent> {
  const question = `${PROMPT}\n\nRequest ${vendor} ${index}: when is the next high tide at Dover?`;
  const chat = call.endpoint === "chat";
  const body: Record<string, unknown> = { model, stream: call.stream };
  if (chat) {
    body.messages = [
      ...(call.system ? [{ role: "system", content: "Answer as a harbour master." }] : []),
      { role: "user", content: question },
    ];
    if (call.cap !== null) body[call.capField ?? "max_tokens"] = call.cap;
    if (call.tools) body.tools = [chatTool];
    if (call.stream && index % 2) body.stream_options = { include_usage: true };
  } else {
    body.messages = [{ role: "user", content: question }];
    body.max_tokens = call.cap;
    if (call.system) body.system = "Answer as a harbour master.";
    if (call.tools) body.tools = [messagesTool];
  }
  const response = await fetch(`${gateway.url}/v1/${chat ? "chat/completions" : "messages"}`, {
    method: "POST",
    headers: chat
      ? { authorization: `Bearer ${key}`, "content-type": "application/json" }
      : { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const requestId = response.headers.get("x-request-id") ?? "";
  const base = { vendor, model, call, status: response.status, requestId, body: text.slice(0, 400) };
  if (response.status !== 200) return { ...base, complete: false, errorEvent: false, delivered: "", toolCall: false };
  if (call.stream) return { ...base, ...readStream(call.endpoint, text) };
  const answer = JSON.parse(text);
  const toolCall = chat
    ? Boolean(answer.choices?.[0]?.message?.tool_calls?.length)
    : answer.content?.some((block: { type: string }) => block.type === "tool_use");
  return { ...base, complete: true, errorEvent: false, delivered: "", toolCall };
}

/** Every request's ledger row (the ledger is written in batches, cut streams settle when they end), by request id. */
async function ledger(gateway: Gateway, userId: string, expected: number): Promise<Map<string, Row>> {
  for (let attempt = 0; ; attempt++) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?userId=${userId}&kind=request&limit=1000`)).data as Row[];
    if (rows.length >= expected || attempt > 100) return new Map(rows.map((row) => [row.requestId, row]));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The output cap in a vendor's request body: Gemini's, Converse's, Chat Completions', Messages'. */
function capIn(body: any): number | undefined {
  return body?.generationConfig?.maxOutputTokens ?? body?.inferenceConfig?.maxTokens ?? body?.max_completion_tokens ?? body?.max_tokens;
}

const START_BALANCE = 50_000_000;

for (const database of ["sqlite", "postgres"] as const) {
  describe(`money invariant over the cloud upstreams on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

    test("azure, gemini, vertex (Gemini, Claude), bedrock (Invoke, Converse) at once: the ledger charges each vendor's bill, cut streams by the meter; errors free; the balance pays the ledger; every request capped", {
      skip,
      timeout: 120_000,
    }, async () => {
      const started = Date.now();
      const gateway = await startGateway({ database });
      const clouds: { model: string; vendor: VendorChannel; seenBefore: number }[] = [];
      for (const cloud of CLOUDS) {
        const vendor = await cloud.setup();
        if (!vendors.includes(vendor)) vendors.push(vendor);
        // The Vertex fake is shared by both of its publishers and by both databases: count only what it sees from now.
        clouds.push({ model: cloud.model, vendor, seenBefore: vendor.received().length });
        await gateway.admin("POST", "/api/admin/prices", {
          model: cloud.model,
          ...cloud.price,
          imageInput: cloud.price.textInput,
          imageOutput: 0,
        });
        await gateway.admin("POST", "/api/admin/channels", {
          ...vendor.channel,
          name: `${vendor.channel.name} (${cloud.model})`,
          models: [cloud.model],
          modelMapping: { [cloud.model]: vendor.upstreamModel },
        });
      }
      await gateway.admin("POST", "/api/admin/groups", { name: "clouds", models: CLOUDS.map((cloud) => cloud.model) });
      const user = await createUserWithKey(gateway, { balance: START_BALANCE, unlimited: true, group: "clouds" });

      // Phase one: everything at once.
      for (const { vendor } of clouds) {
        vendor.queueTool("get_tide", { harbour: "Dover" });
        vendor.queueTool("get_tide", { harbour: "Calais" });
        vendor.queueBadRequest();
        vendor.queueRateLimit();
      }
      const mixed = await Promise.all(
        clouds.flatMap(({ model, vendor }) => MIXED.map((call, index) => send(gateway, user.key, vendor.name, model, call, index))),
      );
      // Phase two: only streams, three of four per vendor cut.
      for (const { vendor } of clouds) for (let cut = 0; cut < CUTS; cut++) vendor.queueCut(CUT_PIECES);
      const streams = await Promise.all(
        clouds.flatMap(({ model, vendor }) => STREAMS.map((call, index) => send(gateway, user.key, vendor.name, model, call, 100 + index))),
      );
      const sent = [...mixed, ...streams];

      const rows = await ledger(gateway, user.userId, sent.length);
      assert.equal(rows.size, sent.length, "one ledger row per request");
      let expectedTotal = 0;
      for (const { model, vendor, seenBefore } of clouds) {
        const mine = sent.filter((item) => item.model === model);
        const name = vendor.name;

        // Phase one: one refusal (400) and one rate limit (429) per vendor, whichever requests got them; the rest 200.
        const statuses = mine.slice(0, MIXED.length).map((item) => item.status);
        assert.deepEqual(
          statuses.filter((status) => status !== 200).sort(),
          [400, 429],
          `${name}: one refusal and one rate limit, the rest served: ${JSON.stringify(mine.filter((item) => item.status !== 200 && item.status !== 400 && item.status !== 429).map((item) => item.body))}`,
        );
        assert.equal(
          mine.slice(0, MIXED.length).filter((item) => item.toolCall).length,
          2,
          `${name}: the two tool calls queued reached their clients`,
        );
        for (const item of mine.slice(0, MIXED.length))
          if (item.status === 200) assert.equal(item.complete, true, `${name} ${JSON.stringify(item.call)}: complete (${item.body})`);
        // Phase two: exactly three streams cut; each shows its client an error event instead of its end.
        const phaseTwo = mine.slice(MIXED.length);
        assert.deepEqual(
          phaseTwo.map((item) => item.status),
          [200, 200, 200, 200],
          `${name}: streams answered`,
        );
        assert.equal(phaseTwo.filter((item) => !item.complete).length, CUTS, `${name}: ${CUTS} streams cut`);
        for (const item of phaseTwo.filter((entry) => !entry.complete)) assert.equal(item.errorEvent, true, `${name}: the cut is told`);

        for (const item of mine) {
          const row = rows.get(item.requestId);
          assert.ok(row, `${name}: a ledger row for ${item.requestId}`);
          const what = `${name} ${item.call.endpoint}${item.call.stream ? " streamed" : ""} cap ${item.call.cap} (${item.requestId})`;
          assert.equal(row.model, model, `${what}: the public model`);
          assert.equal(row.overReservation, 0, `${what}: within its reservation (reserved ${row.reserved}, cost ${row.cost})`);
          assert.ok(row.cost <= row.reserved, `${what}: the reservation was an upper bound`);
          assert.equal(row.detail?.shortfall, undefined, `${what}: nothing written off`);
          assert.equal(row.cost, costOf(model, tokensOf(row)), `${what}: its tokens at the model's price`);
          if (item.status !== 200) {
            assert.deepEqual([row.status, row.cost], ["error", 0], `${what}: the vendor's error costs nothing`);
          } else if (item.complete) {
            assert.equal(row.status, "success", what);
            assert.deepEqual(tokensOf(row), vendor.billed, `${what}: charged the tokens the vendor billed`);
            assert.equal(row.cost, costOf(model, vendor.billed), `${what}: the vendor's bill at the model's price`);
            expectedTotal += costOf(model, vendor.billed);
          } else {
            const delivered = countTokens(item.delivered);
            assert.notEqual(row.status, "success", `${what}: a cut stream is not a success`);
            assert.equal(row.detail?.rule, "meter", `${what}: charged by the delivered-output meter`);
            assert.ok(delivered > 300, `${what}: most of the cut answer reached the client (${delivered} tokens)`);
            assert.ok(
              row.textOutputTokens >= Math.floor(delivered * 0.95),
              `${what}: ${row.textOutputTokens} output tokens charged for ${delivered} delivered`,
            );
            assert.ok(row.textOutputTokens <= capSent(item.call), `${what}: never past the cap (${row.textOutputTokens})`);
            expectedTotal += row.cost;
          }
        }

        // Every request reached the vendor once, authenticated, with the cap that was reserved for.
        const seen = vendor
          .received()
          .slice(seenBefore)
          .filter((request) => vendor.path(true).test(request.path.split("?")[0]!) || vendor.path(false).test(request.path.split("?")[0]!));
        assert.equal(seen.length, mine.length, `${name}: one upstream request per request`);
        assert.ok(
          seen.every((request) => request.authorized),
          `${name}: every request authenticated`,
        );
        assert.deepEqual(
          seen.map((request) => capIn(request.body)).sort(),
          mine.map((item) => capSent(item.call)).sort(),
          `${name}: the caps reserved are the caps sent`,
        );
      }

      const spent = [...rows.values()].reduce((total, row) => total + row.cost, 0);
      assert.equal(spent, expectedTotal, "the ledger's sum is the vendors' bills plus what the meter charged for the cuts");
      const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
      const balance = users.find((row) => row.id === user.userId)!.balance;
      assert.ok(balance >= 0, `balance never below zero (${balance})`);
      assert.equal(balance, START_BALANCE - spent, "the balance paid exactly what the ledger says");
      console.log(`# ${database}: ${sent.length} requests, ${spent} micro-USD charged, ${Date.now() - started} ms`);
    });
  });
}
