// Upstream faults: for every way an upstream can misbehave, what the client gets (status
// and body in the endpoint's dialect, or how its stream ends), whether another channel takes over, what the ledger
// says (nothing charged when nothing was delivered; only what was delivered when a stream is cut), and that the
// gateway keeps serving afterwards. The upstream is tests/helpers/fault-upstream.ts.
//
// Where failover is possible: any failure before the gateway answered the client (an error status, a reset or a
// stall before the headers, and for non-streaming requests also a body that breaks, stalls, is not JSON or is too
// large, since nothing has been sent yet). Once a stream has started, the client has its 200 and the events so far:
// the stream ends with an error event in the endpoint's dialect (OpenAI: `data: {"error": …}`, Anthropic:
// `event: error`), no [DONE], and the usage delivered so far is charged.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startFaultUpstream, TINY_PNG_B64, type FaultMode, type FaultOptions, type FaultUpstream } from "../helpers/fault-upstream";
import { costOf, priceFromRow, type Price } from "@/lib/money/prices";
import { countTextTokens } from "@/lib/money/tokens";

type Kind = "chat" | "messages" | "images";

let gateway: Gateway;
let payer: Awaited<ReturnType<typeof createUserWithKey>>;
let prober: Awaited<ReturnType<typeof createUserWithKey>>;
let healthy: FaultUpstream;
let healthyChannels: string[] = [];
const prices = new Map<string, Price>();
const upstreams: FaultUpstream[] = [];

const MODEL: Record<Kind, string> = { chat: "std-5.5", messages: "msg-sonnet-4-6", images: "std-image-2" };
const PROBE_MODEL = "msg-haiku-4-5-20251001";

before(async () => {
  gateway = await startGateway();
  // The built-in simulator keeps serving one model only, for the "still serving" probe; every other model goes to
  // the channels each test sets up, so a failure is not silently served by the simulator.
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: [PROBE_MODEL] });
  payer = await createUserWithKey(gateway, { balance: 100_000_000, quota: 100_000_000 });
  prober = await createUserWithKey(gateway);
  for (const row of (await gateway.admin("GET", "/api/admin/prices")).data as Parameters<typeof priceFromRow>[0][])
    prices.set(row.model, priceFromRow(row));
  healthy = await startFaultUpstream("ok");
  upstreams.push(healthy);
  healthyChannels = await addChannels(healthy, "healthy", 50, {}, "disabled");
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function addChannels(
  upstream: FaultUpstream,
  name: string,
  priority: number,
  settings: Record<string, unknown>,
  status = "enabled",
): Promise<string[]> {
  const openai = await gateway.admin("POST", "/api/admin/channels", {
    name: `${name} (openai)`,
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "upstream-key",
    models: [MODEL.chat, MODEL.images],
    priority,
    settings,
    status,
  });
  const anthropic = await gateway.admin("POST", "/api/admin/channels", {
    name: `${name} (anthropic)`,
    type: "anthropic",
    baseUrl: upstream.url,
    apiKey: "upstream-key",
    models: [MODEL.messages],
    priority,
    settings,
    status,
  });
  return [openai.id, anthropic.id];
}

async function setStatus(ids: string[], status: "enabled" | "disabled") {
  for (const id of ids) await gateway.admin("PATCH", `/api/admin/channels/${id}`, { status });
}

/** A fault upstream with its two channels (priority 100, above the healthy ones); removed after `work`. */
async function withFault(
  mode: FaultMode,
  options: Partial<FaultOptions>,
  settings: Record<string, unknown>,
  work: (upstream: FaultUpstream) => Promise<void>,
) {
  const upstream = await startFaultUpstream(mode, options);
  upstreams.push(upstream);
  const ids = await addChannels(upstream, `faulty ${mode}`, 100, settings);
  try {
    await work(upstream);
  } finally {
    for (const id of ids) await gateway.admin("DELETE", `/api/admin/channels/${id}`);
  }
}

/** With the healthy channels switched on: failover has somewhere to go. */
async function withFailover(work: () => Promise<void>) {
  await setStatus(healthyChannels, "enabled");
  try {
    await work();
  } finally {
    await setStatus(healthyChannels, "disabled");
  }
}

type SseEvent = { event?: string; data: string };
type Answer = {
  status: number;
  headers: Headers;
  requestId: string;
  body?: any;
  events?: SseEvent[];
  /** Text the client received (chat and messages). */
  text: string;
  /** How the body ended: its end was read ("clean") or the connection broke ("broken"). */
  ended: "clean" | "broken";
  ms: number;
};

function parseEvents(raw: string): SseEvent[] {
  return raw
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const event: SseEvent = { data: "" };
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event.event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      event.data = data.join("\n");
      return event;
    });
}

function textOf(events: SseEvent[]): string {
  let text = "";
  for (const event of events) {
    if (event.data === "[DONE]") continue;
    try {
      const data = JSON.parse(event.data);
      text += data.choices?.[0]?.delta?.content ?? (data.type === "content_block_delta" ? (data.delta?.text ?? "") : "");
    } catch {
      // not JSON: nothing to count
    }
  }
  return text;
}

const PROMPT = "Tell me about fault tolerance";

function requestFor(kind: Kind, stream: boolean, key: string): { path: string; headers: Record<string, string>; body: unknown } {
  if (kind === "chat")
    return {
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${key}` },
      body: { model: MODEL.chat, max_tokens: 200, stream, messages: [{ role: "user", content: PROMPT }] },
    };
  if (kind === "messages")
    return {
      path: "/v1/messages",
      headers: { "x-api-key": key },
      body: { model: MODEL.messages, max_tokens: 200, stream, messages: [{ role: "user", content: PROMPT }] },
    };
  return {
    path: "/v1/images/generations",
    headers: { authorization: `Bearer ${key}` },
    body: { model: MODEL.images, prompt: "a lighthouse in a storm", size: "1024x1024", quality: "low" },
  };
}

async function call(kind: Kind, stream = false, key = payer.key): Promise<Answer> {
  const { path, headers, body } = requestFor(kind, stream, key);
  const started = performance.now();
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const requestId = response.headers.get("x-request-id") ?? "";
  const isStream = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  let raw = "";
  let ended: Answer["ended"] = "clean";
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
  } catch {
    ended = "broken";
  }
  const ms = performance.now() - started;
  if (isStream) {
    const events = parseEvents(raw);
    return { status: response.status, headers: response.headers, requestId, events, text: textOf(events), ended, ms };
  }
  let parsed: any = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // keep the text for the assertion message
  }
  const text =
    kind === "chat" ? (parsed?.choices?.[0]?.message?.content ?? "") : kind === "messages" ? (parsed?.content?.[0]?.text ?? "") : "";
  return { status: response.status, headers: response.headers, requestId, body: parsed, text, ended, ms };
}

async function ledgerRow(requestId: string): Promise<any> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    if (rows.length) {
      assert.equal(rows.length, 1, `one ledger row for ${requestId}`);
      return rows[0];
    }
    if (Date.now() > deadline) assert.fail(`no ledger row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function money(): Promise<{ balance: number; quota: number }> {
  const user = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find((row: { id: string }) => row.id === payer.userId);
  const key = (await gateway.admin("GET", `/api/admin/keys?userId=${payer.userId}`)).data[0];
  return { balance: user.balance, quota: key.quotaRemaining };
}

/** The client's error body in the endpoint's dialect. */
function assertDialectError(kind: Kind, answer: Answer, status: number, code: string, message: RegExp) {
  assert.equal(answer.status, status, `${kind}: ${JSON.stringify(answer.body)}`);
  if (kind === "messages") {
    assert.equal(answer.body.type, "error");
    assert.deepEqual(Object.keys(answer.body.error).sort(), ["message", "type"]);
    assert.equal(answer.body.error.type, status === 429 ? "rate_limit_error" : "api_error");
    assert.match(answer.body.error.message, message);
  } else {
    assert.deepEqual(Object.keys(answer.body.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(answer.body.error.code, code);
    assert.equal(answer.body.error.type, status === 429 ? "rate_limit_error" : "api_error");
    assert.match(answer.body.error.message, message);
  }
}

/** Nothing was delivered: an error row that costs nothing, and the balance and key quota untouched. */
async function assertNothingCharged(answer: Answer, before: { balance: number; quota: number }, status: number) {
  const row = await ledgerRow(answer.requestId);
  assert.equal(row.status, "error");
  assert.equal(row.cost, 0);
  assert.equal(row.httpStatus, status);
  assert.equal(row.textOutputTokens + row.imageOutputTokens, 0);
  assert.deepEqual(await money(), before, "balance and key quota are back where they were");
  return row;
}

/** A failover answer: 200 from the healthy channel, charged what that upstream reported. */
async function assertServedByHealthy(kind: Kind, answer: Answer) {
  assert.equal(answer.status, 200, `${kind}: ${JSON.stringify(answer.body ?? answer.events)}`);
  const row = await ledgerRow(answer.requestId);
  assert.equal(row.status, "success");
  assert.match(row.channelName, /^healthy/);
  if (kind === "images") {
    assert.equal(answer.body.data[0].b64_json, TINY_PNG_B64);
    assert.equal(row.imageOutputTokens, 196);
  } else {
    assert.equal(answer.text, "word0 word1 word2 word3 word4 ");
  }
}

/** The gateway still answers: health, and a normal request on the simulator. */
async function assertStillServing() {
  assert.deepEqual(await (await fetch(`${gateway.url}/healthz`)).json(), { status: "ok" });
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": prober.key, "content-type": "application/json" },
    body: JSON.stringify({ model: PROBE_MODEL, max_tokens: 16, messages: [{ role: "user", content: "still there?" }] }),
  });
  assert.equal(response.status, 200);
  assert.equal((await response.json()).type, "message");
  assert.equal(gateway.process.exitCode, null, "the gateway process is alive");
}

/** A stream cut after its start: 200, the events so far, an error event in the dialect, a clean end, no [DONE]. */
function assertStreamEndsWithError(kind: "chat" | "messages", answer: Answer, message: RegExp) {
  assert.equal(answer.status, 200);
  assert.equal(answer.ended, "clean", "the body ends properly after the error event (the connection stays usable)");
  const events = answer.events!;
  const last = events.at(-1)!;
  assert.equal(
    events.some((event) => event.data === "[DONE]"),
    false,
    "no [DONE]: the stream did not complete",
  );
  if (kind === "chat") {
    assert.equal(last.event, undefined);
    const data = JSON.parse(last.data);
    assert.deepEqual(Object.keys(data), ["error"]);
    assert.equal(data.error.type, "api_error");
    assert.equal(data.error.code, "upstream_error");
    assert.match(data.error.message, message);
  } else {
    assert.equal(last.event, "error");
    const data = JSON.parse(last.data);
    assert.equal(data.type, "error");
    assert.equal(data.error.type, "api_error");
    assert.match(data.error.message, message);
    assert.equal(
      events.some((event) => event.event === "message_stop"),
      false,
    );
  }
}

/** A cut stream's row: the delivered output only, priced; less than reserved; the money moved by exactly that. */
async function assertDeliveredOnly(kind: "chat" | "messages", answer: Answer, before: { balance: number; quota: number }) {
  const row = await ledgerRow(answer.requestId);
  assert.equal(row.status, "error");
  assert.equal(row.httpStatus, 200);
  assert.ok(answer.text.length > 0, "something was delivered before the fault");
  const delivered = countTextTokens(answer.text);
  // Anthropic's message_start already reports 1 output token; the count of what was delivered wins when larger.
  assert.equal(
    row.textOutputTokens,
    kind === "messages" ? Math.max(1, delivered) : delivered,
    `output tokens = what reached the client (${JSON.stringify(answer.text)})`,
  );
  if (kind === "messages") assert.equal(row.textInputTokens, 13, "the input the upstream reported in message_start");
  else assert.ok(row.textInputTokens > 0, "the gateway's own count of the input");
  const expected = costOf(
    { textInputTokens: row.textInputTokens, textOutputTokens: row.textOutputTokens, imageInputTokens: 0, imageOutputTokens: 0 },
    prices.get(MODEL[kind])!,
  );
  assert.equal(row.cost, expected);
  assert.ok(row.cost > 0 && row.cost < row.reserved, `delivered-only cost ${row.cost} < reserved ${row.reserved}`);
  const after = await money();
  assert.deepEqual(after, { balance: before.balance - row.cost, quota: before.quota - row.cost });
  return row;
}

/** Error status before anything was sent: every kind gets the dialect's error and pays nothing; then failover. */
async function errorBeforeHeaders(
  mode: FaultMode,
  options: Partial<FaultOptions>,
  settings: Record<string, unknown>,
  expected: { status: number; code: string; message: RegExp },
  check?: (kind: Kind, answer: Answer, upstream: FaultUpstream) => void,
) {
  await withFault(mode, options, settings, async (upstream) => {
    for (const kind of ["chat", "messages", "images"] as const) {
      for (const stream of kind === "images" ? [false] : [false, true]) {
        const before = await money();
        const answer = await call(kind, stream);
        assertDialectError(kind, answer, expected.status, expected.code, expected.message);
        check?.(kind, answer, upstream);
        await assertNothingCharged(answer, before, expected.status);
      }
    }
    await assertStillServing();
    await withFailover(async () => {
      const seen = upstream.records.length;
      for (const kind of ["chat", "messages", "images"] as const) {
        const answer = await call(kind);
        await assertServedByHealthy(kind, answer);
      }
      assert.equal(upstream.records.length, seen + 3, "each request tried the faulty channel first");
    });
  });
  await assertStillServing();
}

describe("an upstream that fails before its headers", () => {
  test("5xx: 502 in the dialect with the gateway's own reason (the upstream's is logged), nothing charged; the next channel serves it", async () => {
    await errorBeforeHeaders(
      "5xx",
      { status: 503 },
      {},
      { status: 502, code: "upstream_error", message: /^The upstream failed \(503\); try again later$/ },
    );
  });

  test("429 with retry-after: 429 in the dialect with the upstream's Retry-After, nothing charged; the next channel serves it", async () => {
    await errorBeforeHeaders(
      "429",
      { retryAfter: "7" },
      {},
      { status: 429, code: "rate_limited", message: /^The upstream is rate limiting this gateway; try again later$/ },
      (kind, answer) => {
        assert.equal(answer.headers.get("retry-after"), "7", `${kind}: Retry-After is passed on`);
      },
    );
  });

  test("connection reset before the headers: 502, nothing charged; the next channel serves it", async () => {
    await errorBeforeHeaders(
      "reset-before-headers",
      {},
      {},
      { status: 502, code: "upstream_error", message: /^Could not reach the upstream \(\w+\)$/ },
    );
  });

  test("stall with no headers: 504 after the channel's timeoutMs, the upstream connection is closed, nothing charged; the next channel serves it", async () => {
    await errorBeforeHeaders(
      "stall-before-headers",
      {},
      { timeoutMs: 400 },
      { status: 504, code: "upstream_timeout", message: /^The upstream did not answer within 0\.4 s$/ },
      (kind, answer) => {
        assert.ok(answer.ms >= 380 && answer.ms < 3000, `${kind}: answered after the 400 ms deadline (${Math.round(answer.ms)} ms)`);
      },
    );
  });
});

/** Non-streaming requests whose body breaks after the headers: nothing was sent to the client, so it fails over. */
async function brokenBody(mode: FaultMode, options: Partial<FaultOptions>, settings: Record<string, unknown>, expected: RegExp) {
  await withFault(mode, options, settings, async () => {
    for (const kind of ["chat", "messages", "images"] as const) {
      const before = await money();
      const answer = await call(kind, false);
      const status = /within|nothing for/.test(expected.source) ? 504 : 502;
      assertDialectError(kind, answer, status, status === 504 ? "upstream_timeout" : "upstream_error", expected);
      await assertNothingCharged(answer, before, status);
    }
    await assertStillServing();
    await withFailover(async () => {
      for (const kind of ["chat", "messages", "images"] as const) await assertServedByHealthy(kind, await call(kind, false));
    });
  });
  await assertStillServing();
}

/** Streams that break after they started: an error event at the end, the delivered part charged. */
async function brokenStream(mode: FaultMode, options: Partial<FaultOptions>, settings: Record<string, unknown>, expected: RegExp) {
  await withFault(mode, options, settings, async (upstream) => {
    for (const kind of ["chat", "messages"] as const) {
      const before = await money();
      const answer = await call(kind, true);
      assertStreamEndsWithError(kind, answer, expected);
      const row = await assertDeliveredOnly(kind, answer, before);
      assert.match(row.error, expected, "the ledger row says why the stream ended");
      await assertStillServing();
    }
    // Failover is not possible once the client has its 200; the gateway does not pretend otherwise.
    await withFailover(async () => {
      const answer = await call("chat", true);
      assertStreamEndsWithError("chat", answer, expected);
      assert.equal(healthy.records.filter((record) => record.stream).length, 0, "a started stream is not retried elsewhere");
    });
    assert.ok(upstream.records.length >= 3);
  });
  await assertStillServing();
}

describe("an upstream that fails after its headers", () => {
  test("reset mid-body: a non-streaming request gets 502 and fails over; a stream ends with an error event and pays for what was delivered", async () => {
    await brokenBody("reset-after-headers", {}, {}, /^The upstream's answer was cut off before it was complete$/);
    await brokenStream("reset-after-headers", {}, {}, /^The upstream connection broke mid-stream/);
  });

  test("stall after the headers: the channel's idleTimeoutMs ends it (504 before any output, an error event mid-stream)", async () => {
    await brokenBody("stall-after-headers", {}, { idleTimeoutMs: 400 }, /^The upstream sent nothing for 0\.4 s$/);
    const started = performance.now();
    await brokenStream("stall-after-headers", {}, { idleTimeoutMs: 400 }, /^The upstream sent nothing for 0\.4 s$/);
    assert.ok(performance.now() - started < 15_000);
  });

  test("truncated: a body or stream that ends cleanly in the middle of the JSON or of an event", async () => {
    await brokenBody("truncated", {}, {}, /^The upstream's answer is not valid JSON$/);
    await brokenStream("truncated", {}, {}, /^The upstream stream was cut in the middle of an event$/);
  });

  test("malformed JSON: a body that is not JSON fails over; an event that is not JSON ends the stream", async () => {
    await brokenBody("malformed-json", {}, {}, /^The upstream's answer is not valid JSON$/);
    await brokenStream("malformed-json", {}, {}, /^The upstream sent an event that is not valid JSON$/);
  });

  test("the official SDKs see a mid-stream failure as an error, not as a quiet end", async () => {
    await withFault("reset-after-headers", {}, {}, async () => {
      const openai = new OpenAI({ apiKey: payer.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      let text = "";
      await assert.rejects(
        (async () => {
          const stream = await openai.chat.completions.create({
            model: MODEL.chat,
            messages: [{ role: "user", content: PROMPT }],
            stream: true,
          });
          for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
        })(),
        (error: Error) => {
          assert.ok(error instanceof OpenAI.APIError, `an APIError, got ${error.constructor.name}: ${error.message}`);
          assert.match(error.message, /The upstream connection broke mid-stream/);
          return true;
        },
      );
      assert.equal(text, "word0 word1 word2 ");
      const anthropic = new Anthropic({ apiKey: payer.key, baseURL: gateway.url, maxRetries: 0 });
      await assert.rejects(
        anthropic.messages.stream({ model: MODEL.messages, max_tokens: 50, messages: [{ role: "user", content: PROMPT }] }).finalMessage(),
        (error: Error) => {
          assert.ok(error instanceof Anthropic.APIError, `an APIError, got ${error.constructor.name}: ${error.message}`);
          assert.match(error.message, /The upstream connection broke mid-stream/);
          return true;
        },
      );
    });
  });
});

describe("slow and oversized upstreams", () => {
  test("slow drip (one byte at a time): the answer arrives whole and is charged as reported; other requests are not held up", async () => {
    await withFault("slow-drip", { dripMs: 1, words: 5 }, { idleTimeoutMs: 2000 }, async () => {
      const before = await money();
      const dripping = Promise.all([call("chat", true), call("messages", false)]);
      // While both drip, the gateway answers others at once.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const probeStarted = performance.now();
      await assertStillServing();
      const probeMs = performance.now() - probeStarted;
      const [stream, message] = await dripping;
      assert.ok(stream.ms > probeMs, `the drip (${Math.round(stream.ms)} ms) outlasted the probe (${Math.round(probeMs)} ms)`);
      assert.ok(probeMs < 1000, `a probe during the drip took ${Math.round(probeMs)} ms`);
      assert.equal(stream.status, 200);
      assert.equal(stream.text, "word0 word1 word2 word3 word4 ");
      assert.equal(stream.events!.at(-1)!.data, "[DONE]");
      assert.equal(message.status, 200);
      assert.equal(message.text, "word0 word1 word2 word3 word4 ");
      const streamRow = await ledgerRow(stream.requestId);
      const messageRow = await ledgerRow(message.requestId);
      assert.equal(streamRow.status, "success");
      assert.deepEqual([streamRow.textInputTokens, streamRow.textOutputTokens], [11, 7], "the usage the upstream reported");
      assert.deepEqual([messageRow.textInputTokens, messageRow.textOutputTokens], [13, 9]);
      const after = await money();
      assert.equal(before.balance - after.balance, streamRow.cost + messageRow.cost);
    });
  });

  test("oversized: a 40 MB answer is refused (502, fails over), a 70 MB event ends the stream, a 300 MB non-image is refused unread; memory stays bounded", async () => {
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gateway.process.pid}/status`, "utf8"))![1]) * 1024;
    const startRss = rss();
    await withFault("oversized", { oversizeBytes: 40 * 1024 * 1024 }, {}, async (upstream) => {
      for (const kind of ["chat", "messages"] as const) {
        const before = await money();
        const answer = await call(kind, false);
        assertDialectError(kind, answer, 502, "upstream_error", /^The upstream's answer is larger than 32 MB$/);
        await assertNothingCharged(answer, before, 502);
      }
      await withFailover(async () => assertServedByHealthy("chat", await call("chat", false)));
      upstream.options.oversizeBytes = 70 * 1024 * 1024;
      const before = await money();
      const stream = await call("chat", true);
      assertStreamEndsWithError("chat", stream, /^An upstream event is larger than 64 MB$/);
      const row = await ledgerRow(stream.requestId);
      assert.equal(row.status, "error");
      assert.equal(row.textOutputTokens, 0, "nothing but the role chunk was delivered");
      assert.equal(before.balance - (await money()).balance, row.cost);
      upstream.options.oversizeBytes = 300 * 1024 * 1024;
      // Not an image: refused from its first megabyte (lib/providers/image-stream.ts), the rest never read.
      const image = await call("images", false);
      assertDialectError("images", image, 502, "upstream_error", /^The upstream's image is not PNG, JPEG or WebP data$/);
      assert.ok(image.ms < 5000, `refused without reading 300 MB (${Math.round(image.ms)} ms)`);
    });
    const grown = rss() - startRss;
    assert.ok(grown < 400 * 1024 * 1024, `the gateway's memory grew by ${Math.round(grown / 1024 / 1024)} MB over 40 MB and 70 MB answers`);
    await assertStillServing();
  });
});

describe("refusals inside an attempt", () => {
  test("a request the adapter refuses (400 from the conversion) gives the reservation back", async () => {
    await withFault("ok", {}, {}, async (upstream) => {
      const before = await money();
      // Chat Completions served by an anthropic channel: an audio part cannot be converted.
      const id = await gateway.admin("POST", "/api/admin/channels", {
        name: "anthropic for chat",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "k",
        models: ["msg-opus-4-6"],
        priority: 100,
      });
      try {
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${payer.key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "msg-opus-4-6",
            max_tokens: 100,
            messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }],
          }),
        });
        assert.equal(response.status, 400);
        const body = await response.json();
        assert.equal(body.error.code, "invalid_request");
        assert.deepEqual(await money(), before, "nothing stays reserved");
        assert.equal(upstream.records.length, 0, "nothing went upstream");
      } finally {
        await gateway.admin("DELETE", `/api/admin/channels/${id.id}`);
      }
    });
  });
});

test("after every fault: no crash, no unhandled error in the gateway's output", async () => {
  await assertStillServing();
  const output = gateway.output();
  assert.doesNotMatch(output, /unhandled|uncaught|gateway handler failed|TypeError|ReferenceError/i, output.slice(-3000));
});
