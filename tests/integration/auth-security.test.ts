// Keys and auth on every endpoint (security items 3, 7, 8, 9, 11, 20, 21): the matrix of schemes and key states on the
// image and Responses endpoints (Chat Completions and Messages: gateway-auth.test.ts), injection strings, 60 KB
// headers, the timing of unknown against known keys, a flood of invalid keys, no full key in logs, bodies or usage
// rows, request bodies that cannot redirect the upstream, and no URL a caller supplies is ever fetched.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { median } from "../helpers/user-api";

let gateway: Gateway;
const keys: Record<string, string> = {};
let valid: Awaited<ReturnType<typeof createUserWithKey>>;
let png: Buffer;
const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway({ env: { GATEWAY_LOG: "debug" } });
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { settings: { responsesThinkMs: 5, responsesImageMs: 10 } });
  await gateway.admin("POST", "/api/admin/groups", { name: "haiku-only", models: ["msg-haiku-4-5-20251001"] });
  valid = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 });
  keys.valid = valid.key;
  keys.expired = (await createUserWithKey(gateway, { expiresAt: "2020-01-01T00:00:00Z" })).key;
  const disabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/keys/${disabled.keyId}`, { status: "disabled" });
  keys.disabled = disabled.key;
  const deleted = await createUserWithKey(gateway);
  await gateway.admin("DELETE", `/api/admin/keys/${deleted.keyId}`);
  keys.deleted = deleted.key;
  keys.otherGroup = (await createUserWithKey(gateway, { group: "haiku-only" })).key;
  keys.noQuota = (await createUserWithKey(gateway, { quota: 0 })).key;
  keys.noBalance = (await createUserWithKey(gateway, { balance: 0, unlimited: true })).key;
  const ownerDisabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/users/${ownerDisabled.userId}`, { status: "disabled" });
  keys.ownerDisabled = ownerDisabled.key;
  png = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#3366cc" } }).png().toBuffer();
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

// ------------------------------------------------------------------------------------------ the auth matrix

type Endpoint = "generations" | "edits" | "responses";
const MODEL_OF: Record<Endpoint, string> = { generations: "std-image-2", edits: "std-image-2", responses: "std-5.5" };

function bodyFor(endpoint: Endpoint): { path: string; body: BodyInit; contentType?: string } {
  if (endpoint === "generations") return { path: "/v1/images/generations", body: JSON.stringify({ model: "std-image-2", prompt: "a red kite", size: "1024x1024", quality: "low" }), contentType: "application/json" };
  if (endpoint === "edits") {
    const form = new FormData();
    form.append("model", "std-image-2");
    form.append("prompt", "make it green");
    form.append("size", "1024x1024");
    form.append("quality", "low");
    form.append("image[]", new Blob([new Uint8Array(png)], { type: "image/png" }), "base.png");
    return { path: "/v1/images/edits", body: form };
  }
  return {
    path: "/v1/responses",
    body: JSON.stringify({ model: "std-5.5", stream: true, instructions: "Draw what is asked", input: [{ role: "user", content: [{ type: "input_text", text: "a red kite" }] }], tools: [{ type: "image_generation", quality: "low", size: "1024x1024" }] }),
    contentType: "application/json",
  };
}

async function callEndpoint(endpoint: Endpoint, headers: Record<string, string>): Promise<{ status: number; body: any; requestId: string | null }> {
  const { path, body, contentType } = bodyFor(endpoint);
  const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers: { ...(contentType ? { "content-type": contentType } : {}), ...headers }, body });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a stream: kept as text
  }
  return { status: response.status, body: parsed, requestId: response.headers.get("x-request-id") };
}

type Case = { cause: string; headers: () => Record<string, string>; status: number; code: string; message: (endpoint: Endpoint) => string | RegExp };
const BEARER = "'Authorization: Bearer sk-...'";
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const MALFORMED = "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces";

const CASES: Case[] = [
  { cause: "no key at all", headers: () => ({}), status: 401, code: "missing_api_key", message: () => `Missing API key; send ${BEARER}` },
  { cause: "x-api-key alone (the Messages form) is refused", headers: () => ({ "x-api-key": keys.valid! }), status: 401, code: "wrong_auth_scheme", message: () => `This endpoint takes the key as a Bearer token, not in x-api-key; send ${BEARER}` },
  { cause: "a Basic authorization header", headers: () => ({ authorization: `Basic ${Buffer.from("user:pass").toString("base64")}` }), status: 401, code: "wrong_auth_scheme", message: () => `Authorization must use the Bearer scheme; send ${BEARER}` },
  // A lowercase "bearer" is the same scheme (RFC 9110); tests/clients/sdk-models-and-counting.test.ts serves it.
  { cause: "another scheme's name", headers: () => ({ authorization: `Token ${keys.valid}` }), status: 401, code: "wrong_auth_scheme", message: () => `Authorization must use the Bearer scheme; send ${BEARER}` },
  { cause: "a key with an extra space", headers: () => ({ authorization: `Bearer  ${keys.valid}` }), status: 401, code: "invalid_api_key", message: () => MALFORMED },
  { cause: "a key with a space inside", headers: () => bearer(keys.valid!.replace("sk-", "sk- ")), status: 401, code: "invalid_api_key", message: () => MALFORMED },
  { cause: "a key with characters missing", headers: () => bearer(keys.valid!.slice(0, -3)), status: 401, code: "invalid_api_key", message: () => "Invalid API key: no such key" },
  { cause: "an injection string", headers: () => bearer("' OR 1=1--"), status: 401, code: "invalid_api_key", message: () => MALFORMED },
  { cause: "an injection string shaped like a key", headers: () => bearer(`sk-${"a".repeat(30)}' OR '1'='1`), status: 401, code: "invalid_api_key", message: () => MALFORMED },
  { cause: "an expired key", headers: () => bearer(keys.expired!), status: 401, code: "expired_api_key", message: () => "This API key expired at 2020-01-01T00:00:00.000Z" },
  { cause: "a disabled key", headers: () => bearer(keys.disabled!), status: 401, code: "disabled_api_key", message: () => "This API key is disabled" },
  { cause: "a deleted key", headers: () => bearer(keys.deleted!), status: 401, code: "invalid_api_key", message: () => "This API key was deleted" },
  { cause: "a key whose owner is disabled", headers: () => bearer(keys.ownerDisabled!), status: 401, code: "disabled_api_key", message: () => "The account that owns this API key is disabled" },
  { cause: "a group without the model", headers: () => bearer(keys.otherGroup!), status: 403, code: "model_not_allowed", message: (endpoint) => `This key's group 'haiku-only' does not include the model '${MODEL_OF[endpoint]}'; GET /v1/models lists the models this key may use` },
  { cause: "a used-up key quota", headers: () => bearer(keys.noQuota!), status: 403, code: "quota_exhausted", message: () => /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and this API key has \$0\.000000 of quota left\.( [^.]+\.)? An operator can raise the key's quota\.$/ },
  { cause: "a used-up balance", headers: () => bearer(keys.noBalance!), status: 403, code: "insufficient_balance", message: () => /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and the account's balance is \$0\.000000\.( [^.]+\.)? Redeem a code or ask an operator to top it up\.$/ },
];

const refusedIds: string[] = [];

for (const endpoint of ["generations", "edits", "responses"] as const) {
  describe(`auth failures on ${bodyFor(endpoint).path}`, () => {
    for (const kase of CASES) {
      test(kase.cause, async () => {
        const answer = await callEndpoint(endpoint, kase.headers());
        assert.equal(answer.status, kase.status, JSON.stringify(answer.body));
        assert.match(answer.requestId ?? "", /^req_/);
        refusedIds.push(answer.requestId!);
        assert.deepEqual(Object.keys(answer.body.error).sort(), ["code", "message", "param", "type"]);
        assert.equal(answer.body.error.code, kase.code);
        const message = kase.message(endpoint);
        if (typeof message === "string") assert.equal(answer.body.error.message, message);
        else assert.match(answer.body.error.message, message);
      });
    }
  });
}

test("a valid key passes on the image and Responses endpoints (the table's control case)", async () => {
  for (const endpoint of ["generations", "edits", "responses"] as const) {
    const answer = await callEndpoint(endpoint, bearer(keys.valid!));
    assert.equal(answer.status, 200, `${endpoint}: ${String(JSON.stringify(answer.body)).slice(0, 300)}`);
    if (endpoint === "responses") assert.match(answer.body, /event: response\.completed/);
    else assert.ok(answer.body.data[0].b64_json.length > 100);
  }
});

test("refused requests on every endpoint cost nothing and leave no ledger row", async () => {
  assert.equal(refusedIds.length, CASES.length * 3);
  const rows = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data as { requestId: string }[];
  const logged = new Set(rows.map((row) => row.requestId));
  assert.deepEqual(refusedIds.filter((id) => logged.has(id)), []);
});

// ----------------------------------------------------------------------------------------------- long headers

/** One request with raw node:http (so any header size can be sent); resolves with the status and the time taken. */
function rawRequest(path: string, headers: Record<string, string>, body = "{}"): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...headers }, agent: false }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, ms: performance.now() - started, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("very long headers", () => {
  const long = `sk-${"A".repeat(60 * 1024)}`;
  const targets: [string, Record<string, string>, number][] = [
    ["/v1/chat/completions", { authorization: `Bearer ${long}` }, 401],
    ["/v1/messages", { "x-api-key": long }, 401],
    ["/v1/images/generations", { authorization: `Bearer ${long}` }, 401],
    ["/v1/images/edits", { authorization: `Bearer ${long}` }, 401],
    ["/v1/responses", { authorization: `Bearer ${long}` }, 401],
    ["/api/admin/users", { authorization: `Bearer ${long}` }, 401],
    ["/api/user/topup", { authorization: `Bearer ${long}` }, 401],
    ["/api/user/password", { cookie: `next-auth.session-token=${"B".repeat(60 * 1024)}` }, 401],
  ];

  test("a 60 KB key or cookie on every kind of endpoint gets a fast 401 (median under 50 ms, none over 1 s)", async () => {
    for (const [path, headers, status] of targets) {
      const times: number[] = [];
      for (let round = 0; round < 7; round++) {
        const answer = await rawRequest(path, headers);
        assert.equal(answer.status, status, `${path}: ${answer.body.slice(0, 200)}`);
        assert.ok(answer.body.length < 1000, `${path}: the 60 KB value is not echoed (${answer.body.length} bytes)`);
        times.push(answer.ms);
      }
      assert.ok(median(times) < 50, `${path}: median ${median(times).toFixed(1)} ms`);
      assert.ok(Math.max(...times) < 1000, `${path}: slowest ${Math.max(...times).toFixed(0)} ms`);
    }
  });

  test("headers over the 64 KB server limit are refused by the HTTP server (431), and the gateway keeps serving", async () => {
    const answer = await rawRequest("/v1/chat/completions", { authorization: `Bearer sk-${"A".repeat(70 * 1024)}` });
    assert.equal(answer.status, 431);
    assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
    const ok = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }) });
    assert.equal(ok.status, 200);
  });
});

// ------------------------------------------------------------------------------------------------------ timing

describe("timing of unknown and known keys", () => {
  // What is compared, as medians over 150 rounds that interleave the kinds of key (so load on the machine hits all
  // alike), and the bounds asserted:
  // - a near miss (a real key with its last characters changed) against a random unknown key, both new each time:
  //   the same work (a SHA-256, one indexed lookup by the hash, no match), so within 1 ms or 30%. Nothing in the
  //   time says how close a guess was: keys are never compared character by character.
  // - an unknown key sent again (answered from the negative cache) against a real key that is refused (disabled,
  //   answered from the key cache): within 1 ms or 30%.
  // - a new unknown key (a database lookup) against the real refused key (cached): within 5 ms, the price of that
  //   one indexed query. This tells at most whether a key exists, and with ~286 random bits per key existence is
  //   worth nothing to a guesser.
  test("unknown keys are neither much slower nor much faster than known-but-refused ones", async (t) => {
    const samples = { nearMiss: [] as number[], unknown: [] as number[], repeated: [] as number[], known: [] as number[] };
    const body = JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    const time = async (key: string) => {
      const answer = await rawRequest("/v1/chat/completions", bearer(key), body);
      assert.equal(answer.status, 401);
      return answer.ms;
    };
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const random = (length: number) => Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    const repeated = `sk-${random(48)}`;
    for (let round = 0; round < 40; round++) await time(keys.disabled!); // warm up
    for (let round = 0; round < 150; round++) {
      samples.nearMiss.push(await time(`${keys.valid!.slice(0, -4)}${random(4)}`));
      samples.unknown.push(await time(`sk-${random(48)}`));
      samples.repeated.push(await time(repeated));
      samples.known.push(await time(keys.disabled!));
    }
    const [nearMiss, unknown, again, known] = [median(samples.nearMiss), median(samples.unknown), median(samples.repeated), median(samples.known)];
    t.diagnostic(`median to a 401: near miss ${nearMiss.toFixed(2)} ms, new unknown ${unknown.toFixed(2)} ms, repeated unknown ${again.toFixed(2)} ms, known but disabled ${known.toFixed(2)} ms`);
    const close = (a: number, b: number) => Math.abs(a - b) <= Math.max(1, 0.3 * Math.min(a, b));
    assert.ok(close(nearMiss, unknown), `near miss ${nearMiss.toFixed(2)} ms vs unknown ${unknown.toFixed(2)} ms`);
    assert.ok(close(again, known), `repeated unknown ${again.toFixed(2)} ms vs known ${known.toFixed(2)} ms`);
    assert.ok(Math.abs(unknown - known) <= 5, `new unknown ${unknown.toFixed(2)} ms vs known ${known.toFixed(2)} ms`);
  });
});

// ------------------------------------------------------------------------------------------------------- flood

describe("a flood of invalid keys", () => {
  test("2,000 distinct invalid keys on every endpoint: all 401, no upstream call, the gateway keeps serving", async () => {
    const upstream = await fake((_request, response) => sendJson(response, 200, chatCompletion("should never be called", "m")));
    const channel = await gateway.admin("POST", "/api/admin/channels", { name: "flood target", type: "openai", baseUrl: `${upstream.url}/v1`, apiKey: "x", models: ["std-5.5", "msg-sonnet-4-6", "std-image-2"], priority: 500 });
    try {
      const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gateway.process.pid}/status`, "utf8"))![1]) / 1024;
      const startRss = rss();
      const paths = ["/v1/chat/completions", "/v1/messages", "/v1/images/generations", "/v1/images/edits", "/v1/responses"];
      const keyFor = (index: number) =>
        index % 2 === 0
          ? `sk-${index.toString(36).padStart(8, "0")}${"q".repeat(40)}` // well-formed, unknown: one lookup each
          : ["' OR 1=1--", `sk-${index}`, `sk-${"x".repeat(120)}`, `sk- ${index}${"y".repeat(30)}`, `Robert'); DROP TABLE "ApiKey";--`][index % 5]!; // refused by shape
      const started = performance.now();
      const statuses = new Map<number, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < 2000) {
            const index = next++;
            const path = paths[index % paths.length]!;
            const headers = path === "/v1/messages" ? { "x-api-key": keyFor(index) } : bearer(keyFor(index));
            const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "x" }], prompt: "x" }) });
            await response.arrayBuffer();
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      assert.deepEqual([...statuses], [[401, 2000]]);
      assert.equal(upstream.received.length, 0, "no upstream call");
      assert.ok(seconds < 30, `the flood took ${seconds.toFixed(1)} s`);
      assert.ok(rss() - startRss < 150, `memory grew by ${(rss() - startRss).toFixed(0)} MB`);
      // Still serving, and the first valid request after the flood goes where it should.
      const ok = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }) });
      assert.equal(ok.status, 200);
      assert.equal(upstream.received.length, 1);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
  });
});

// ------------------------------------------------------------------------------------ no secret leaves the gateway

describe("a key's full value appears nowhere but in the answer that created it", () => {
  test("logs (at debug level), error bodies, usage rows and the operator's lists carry at most the display prefix", async () => {
    const user = await createUserWithKey(gateway, { balance: 1_000_000, quota: 200 });
    // An upstream that refuses the request (a 400 is passed on, not failed over to the simulator).
    const failing = await fake((_request, response) => sendJson(response, 400, { error: { message: "upstream refused it" } }));
    const channel = await gateway.admin("POST", "/api/admin/channels", { name: "failing", type: "openai", baseUrl: `${failing.url}/v1`, apiKey: "upstream-secret-value-123", models: ["msg-opus-4-6"], priority: 500 });
    const bodies: string[] = [];
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
      bodies.push(await response.text());
      return response.status;
    };
    try {
      // A success, a refusal for quota, a refusal for the model, an upstream failure, a wrong scheme, a topup try.
      assert.equal(await post("/v1/messages", { "x-api-key": user.key }, { model: "msg-haiku-4-5-20251001", max_tokens: 1, messages: [{ role: "user", content: "a" }] }), 200);
      assert.equal(await post("/v1/chat/completions", bearer(user.key), { model: "std-5.5", max_tokens: 1000, messages: [{ role: "user", content: "a" }] }), 403);
      assert.equal(await post("/v1/chat/completions", bearer(user.key), { model: "no-such-model", messages: [{ role: "user", content: "a" }] }), 404);
      await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { quota: 1_000_000 });
      assert.equal(await post("/v1/chat/completions", bearer(user.key), { model: "msg-opus-4-6", max_tokens: 5, messages: [{ role: "user", content: "a" }] }), 400);
      assert.equal(await post("/v1/messages", bearer(user.key), { model: "msg-opus-4-6", max_tokens: 5, messages: [{ role: "user", content: "a" }] }), 401);
      assert.equal(await post("/api/user/topup", bearer(user.key), { key: "GW-NOT-A-REAL-CODE" }), 400);
      await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { status: "disabled" });
      assert.equal(await post("/v1/chat/completions", bearer(user.key), { model: "std-5.5", messages: [{ role: "user", content: "a" }] }), 401);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const prefix = user.key.slice(0, 10);
      const secretPart = user.key.slice(10);
      for (const body of bodies) assert.equal(body.includes(secretPart), false, `an answer holds the key: ${body.slice(0, 200)}`);
      const output = gateway.output();
      assert.match(output, /"level":"debug"|"level":"info"/, "the log was on");
      assert.equal(output.includes(secretPart), false, "the log never holds the full key");
      assert.equal(output.includes("upstream-secret-value-123"), false, "nor an upstream's key");
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${user.keyId}&limit=100`)).data as { keyPrefix: string }[];
      assert.ok(rows.length >= 2);
      for (const row of rows) assert.equal(row.keyPrefix, prefix);
      assert.equal(JSON.stringify(rows).includes(secretPart), false, "usage rows hold the prefix only");
      const lists = JSON.stringify([await gateway.admin("GET", "/api/admin/keys"), await gateway.admin("GET", "/api/admin/channels"), await gateway.admin("GET", "/api/admin/users")]);
      assert.equal(lists.includes(secretPart), false);
      assert.equal(lists.includes("upstream-secret-value-123"), false);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
  });
});

// ----------------------------------------------------------------------------------------- queries and injection

describe("injection strings in every parameter reach the database only as values", () => {
  test("operator filters, a redeem code, reset and sign-up emails: answers as for any unknown value, other rows never leak", async () => {
    const injections = ["' OR '1'='1", "' OR 1=1--", "\" OR \"\"=\"", "1; DROP TABLE \"UsageLog\";--", "%' OR '%'='", "\\' OR 1=1 #"];
    const before = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.length;
    assert.ok(before > 0, "there are rows that a working injection would return");
    for (const value of injections) {
      for (const filter of ["userId", "keyId", "model", "requestId", "kind"]) {
        const rows = (await gateway.admin("GET", `/api/admin/usage?${filter}=${encodeURIComponent(value)}`)).data;
        assert.deepEqual(rows, [], `${filter}=${value}`);
      }
      assert.deepEqual((await gateway.admin("GET", `/api/admin/keys?userId=${encodeURIComponent(value)}`)).data, []);
      assert.deepEqual((await gateway.admin("GET", `/api/admin/redeem-codes?batch=${encodeURIComponent(value)}`)).data, []);
      assert.deepEqual((await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(value)}`)).data, []);
      const topup = await fetch(`${gateway.url}/api/user/topup`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ key: value }) });
      assert.ok([400, 429].includes(topup.status), `topup ${value}: ${topup.status}`);
      const reset = await fetch(`${gateway.url}/api/user/reset`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "someone@example.com", token: value, password: "a-new-password-123" }) });
      assert.equal(reset.status, 400);
    }
    // The tables are all still there and whole.
    assert.ok((await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.length >= before);
    assert.equal((await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "std-5.5", max_tokens: 4, messages: [{ role: "user", content: "' OR 1=1--" }] }) })).status, 200);
  });
});

// ------------------------------------------------------------------------------------- the upstream is not for callers

describe("request bodies cannot choose where the gateway connects", () => {
  test("base_url, api_base and similar fields are ignored: the channel's upstream is called, a decoy never", async () => {
    const decoy = await fake((_request, response) => sendJson(response, 200, chatCompletion("decoy", "m")));
    const real = await fake((request, response) => {
      if (request.path.includes("/images/")) sendJson(response, 200, { created: 1, data: [{ b64_json: png.toString("base64") }], usage: { input_tokens: 5, output_tokens: 196 } });
      else sendJson(response, 200, chatCompletion("real", "m"));
    });
    const channel = await gateway.admin("POST", "/api/admin/channels", { name: "the real one", type: "openai", baseUrl: `${real.url}/v1`, apiKey: "x", models: ["std-5.5", "std-image-2"], priority: 500 });
    try {
      const redirect = { base_url: `${decoy.url}/v1`, api_base: `${decoy.url}/v1`, baseURL: `${decoy.url}/v1`, baseUrl: `${decoy.url}/v1`, endpoint: `${decoy.url}/v1/chat/completions`, url: decoy.url };
      const chatAnswer = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }], ...redirect }) });
      assert.equal(chatAnswer.status, 200);
      assert.equal((await chatAnswer.json()).choices[0].message.content, "real");
      const image = await fetch(`${gateway.url}/v1/images/generations`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "std-image-2", prompt: "a kite", size: "1024x1024", quality: "low", ...redirect }) });
      assert.equal(image.status, 200, await image.clone().text());
      assert.equal(real.received.length, 2);
      assert.equal(decoy.received.length, 0, "the decoy was never called");
      // The image upstream gets the fields the gateway knows, nothing else.
      const sent = real.received.find((request) => request.path.includes("/images/"))!.body;
      for (const field of Object.keys(redirect)) assert.equal(field in sent, false, `${field} is not forwarded to the image upstream`);
      // A header cannot do it either.
      const viaHeader = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json", "x-upstream-url": decoy.url, "x-forwarded-host": new URL(decoy.url).host, host: new URL(decoy.url).host }, body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }) });
      assert.equal(viaHeader.status, 200);
      assert.equal(decoy.received.length, 0);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
  });
});

describe("the gateway fetches no URL a caller supplies", () => {
  test("image URLs in Responses input, edit fields and chat content, in every form (loopback, numeric, IPv6-mapped, redirects): never fetched", async () => {
    const decoy = await fake((_request, response) => {
      // If anything ever fetched from here, it would get a redirect to another loopback address.
      response.writeHead(302, { location: "http://127.0.0.1:9/next" }).end();
    });
    const port = new URL(decoy.url).port;
    const urls = [
      `http://127.0.0.1:${port}/cat.png`,
      `http://2130706433:${port}/cat.png`, // 127.0.0.1 as one number
      `http://0x7f000001:${port}/cat.png`,
      `http://[::ffff:127.0.0.1]:${port}/cat.png`,
      `http://localhost:${port}/cat.png`,
      `http://169.254.169.254/latest/meta-data/`,
      `https://127.0.0.1:${port}/redirect-me`,
    ];
    for (const url of urls) {
      const responses = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", stream: true, instructions: "edit", input: [{ role: "user", content: [{ type: "input_text", text: "edit" }, { type: "input_image", image_url: url }] }], tools: [{ type: "image_generation" }] }),
      });
      assert.equal(responses.status, 400, url);
      assert.match((await responses.json()).error.message, /does not fetch image URLs|data URI/);
      const form = new FormData();
      form.append("prompt", "edit it");
      form.append("image_url", url);
      form.append("image", url);
      const edit = await fetch(`${gateway.url}/v1/images/edits`, { method: "POST", headers: bearer(keys.valid!), body: form });
      assert.equal(edit.status, 400, url);
      // Chat content with an image link is the upstream's to fetch (here the simulator, which fetches nothing).
      const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url } }] }] }),
      });
      assert.equal(chat.status, 200);
    }
    // An upstream that answers with an image link, or with a redirect to the decoy: neither is followed.
    const linking = await fake((request, response) => {
      if (request.path.includes("generations")) sendJson(response, 200, { created: 1, data: [{ url: `http://2130706433:${port}/generated.png` }] });
      else response.writeHead(307, { location: `${decoy.url}/v1/chat/completions` }).end();
    });
    const channel = await gateway.admin("POST", "/api/admin/channels", { name: "linking", type: "openai", baseUrl: `${linking.url}/v1`, apiKey: "x", models: ["std-image-2", "msg-opus-4-6"], priority: 500 });
    try {
      const image = await fetch(`${gateway.url}/v1/images/generations`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ prompt: "a kite", size: "1024x1024", quality: "low" }) });
      const imageBody = await image.json();
      // The simulator (lower priority) may serve it after the link was refused; either way the link was not fetched.
      assert.ok(image.status === 200 || image.status === 502, JSON.stringify(imageBody));
      const redirected = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { ...bearer(keys.valid!), "content-type": "application/json" }, body: JSON.stringify({ model: "msg-opus-4-6", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }) });
      await redirected.arrayBuffer();
      assert.equal(linking.received.length, 2);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
    assert.equal(decoy.received.length, 0, "nothing was ever fetched from a caller's or an upstream's URL");
  });
});
