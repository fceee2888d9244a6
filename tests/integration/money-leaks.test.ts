// The ways money leaked before (docs/billing.md), one test each, against a fake vendor that bills like one
// (tests/helpers/billing-upstream.ts): a 1 MB response schema, a big tool list, a client's 1M-context beta on a base
// model, server tools, a zero-balance key sending large images, the long-context tier, refusals that say how to fit,
// and an upstream that bills past the cap it was sent (charged in full, flagged, never written off).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startBillingUpstream, type BillingUpstream } from "../helpers/billing-upstream";

const upstreams: BillingUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function billing(options: Parameters<typeof startBillingUpstream>[0] = {}): Promise<BillingUpstream> {
  const upstream = await startBillingUpstream(options);
  upstreams.push(upstream);
  return upstream;
}

async function post(gateway: Gateway, path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const auth: Record<string, string> =
    path === "/v1/messages" ? { "x-api-key": key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key}` };
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, json, text, requestId: response.headers.get("x-request-id")! };
}

async function row(gateway: Gateway, requestId: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    if (rows.length) return rows[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ledger row for ${requestId}`);
}

async function balanceOf(gateway: Gateway, userId: string): Promise<number> {
  return ((await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[]).find(
    (user) => user.id === userId,
  )!.balance;
}

async function metric(gateway: Gateway, name: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].reduce((total, match) => total + Number(match[1]), 0);
}

describe("money leaks, closed", () => {
  let gateway: Gateway;
  let upstream: BillingUpstream;
  before(async () => {
    gateway = await startGateway();
    upstream = await billing();
    await gateway.admin("POST", "/api/admin/channels", {
      name: "billing openai",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "o",
      models: ["std-5.5", "std-image-2"],
      priority: 100,
    });
    await gateway.admin("POST", "/api/admin/channels", {
      name: "billing anthropic",
      type: "anthropic",
      baseUrl: upstream.url,
      apiKey: "a",
      priority: 100,
      models: ["msg-sonnet-4-6", "msg-sonnet-4-6[1m]", "msg-haiku-4-5-20251001"],
      settings: { betas: ["operator-extra-2026-01-01"] },
    });
    await gateway.admin("POST", "/api/admin/groups", { name: "base-only", models: ["msg-sonnet-4-6", "std-5.5", "std-image-2"] });
  });

  test("a 1 MB response schema is reserved for: refused with the amount when the balance cannot cover it, billed within the reservation when it can", async () => {
    const schema = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 12_000 }, (_, index) => [
          `field_${index}`,
          { type: "string", description: `Field ${index} of the form, in full words.` },
        ]),
      ),
    };
    const body = {
      model: "std-5.5",
      max_tokens: 50,
      messages: [{ role: "user", content: "Fill it." }],
      response_format: { type: "json_schema", json_schema: { name: "big", schema } },
    };
    assert.ok(JSON.stringify(body).length > 1_000_000);
    const poor = await createUserWithKey(gateway, { balance: 100_000, unlimited: true });
    const before = upstream.bills.length;
    const refused = await post(gateway, "/v1/chat/completions", poor.key, body);
    assert.equal(refused.status, 403);
    assert.match(refused.json.error.message, /reserves up to \$0\.\d+ .* balance is \$0\.1000\./);
    assert.equal(upstream.bills.length, before, "nothing went upstream");

    const rich = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    const served = await post(gateway, "/v1/chat/completions", rich.key, body);
    assert.equal(served.status, 200);
    const bill = upstream.bills.at(-1)!;
    assert.ok(bill.textInputTokens > 250_000, `the upstream billed the schema (${bill.textInputTokens} tokens)`);
    const ledger = await row(gateway, served.requestId);
    assert.equal(ledger.textInputTokens, bill.textInputTokens);
    assert.equal(ledger.cost, Math.ceil(bill.textInputTokens * 1.25 + bill.textOutputTokens * 10 - 1e-9));
    assert.ok(ledger.reserved >= ledger.cost && ledger.overReservation === 0, `reserved ${ledger.reserved} >= cost ${ledger.cost}`);
  });

  test("a big tool list is counted: 300 tools on messages billed within the reservation", async () => {
    const user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    const tools = Array.from({ length: 300 }, (_, index) => ({
      name: `tool_${index}`,
      description: `Does thing number ${index} to the repository.`,
      input_schema: { type: "object", properties: { path: { type: "string" }, depth: { type: "integer" } } },
    }));
    const served = await post(gateway, "/v1/messages", user.key, {
      model: "msg-sonnet-4-6",
      max_tokens: 100,
      tools,
      messages: [{ role: "user", content: "Pick a tool." }],
    });
    assert.equal(served.status, 200);
    const ledger = await row(gateway, served.requestId);
    assert.equal(ledger.textInputTokens, upstream.bills.at(-1)!.textInputTokens);
    assert.ok(ledger.reserved >= ledger.cost && ledger.overReservation === 0);
  });

  test("a client's 1M-context beta on a base model is the [1m] model: refused without it in the group, billed as it with; betas pass by allowlist", async () => {
    const base = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true, group: "base-only" });
    const headers = {
      "anthropic-beta": "context-1m-2025-08-07,interleaved-thinking-2025-05-14,files-api-2025-04-14,operator-extra-2026-01-01",
    };
    const body = { model: "msg-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] };
    const before = upstream.bills.length;
    const refused = await post(gateway, "/v1/messages", base.key, body, headers);
    assert.equal(refused.status, 403);
    assert.match(refused.json.error.message, /msg-sonnet-4-6\[1m\]/);
    assert.equal(upstream.bills.length, before);

    const full = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    const served = await post(gateway, "/v1/messages", full.key, body, headers);
    assert.equal(served.status, 200);
    const sent = String(upstream.bills.at(-1)!.headers["anthropic-beta"]).split(",");
    assert.deepEqual(
      sent.sort(),
      ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14", "operator-extra-2026-01-01"].sort(),
      "allowlisted betas pass (the channel's extra too), others are dropped, the 1M beta once",
    );
    const ledger = await row(gateway, served.requestId);
    assert.equal(ledger.model, "msg-sonnet-4-6[1m]", "billed as the [1m] model");

    const plain = await post(gateway, "/v1/messages", full.key, body, { "anthropic-beta": "files-api-2025-04-14" });
    assert.equal(plain.status, 200);
    assert.equal(upstream.bills.at(-1)!.headers["anthropic-beta"], undefined, "a beta off the list never goes upstream");
  });

  test("server tools: web search priced per use with max_uses sent; a tool with no per-use price is refused before anything goes upstream", async () => {
    const user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    const served = await post(gateway, "/v1/messages", user.key, {
      model: "msg-sonnet-4-6",
      max_tokens: 200,
      tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }],
      messages: [{ role: "user", content: "Search." }],
    });
    assert.equal(served.status, 200);
    const bill = upstream.bills.at(-1)!;
    assert.equal(bill.body.tools[0].max_uses, 3);
    const ledger = await row(gateway, served.requestId);
    assert.deepEqual(ledger.detail.toolUses, { web_search: 3 });
    assert.equal(
      ledger.cost,
      Math.ceil(bill.textInputTokens * 3 + bill.textOutputTokens * 15 + 3 * 10_000 - 1e-9),
      "three searches at $0.01 each",
    );
    assert.ok(ledger.reserved >= ledger.cost);

    const before = upstream.bills.length;
    const refused = await post(gateway, "/v1/messages", user.key, {
      model: "msg-sonnet-4-6",
      max_tokens: 200,
      tools: [{ type: "code_execution_20250825", name: "code_execution" }],
      messages: [{ role: "user", content: "Run code." }],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.type, "error");
    assert.match(refused.json.error.message, /server tool 'code_execution_20250825' .* no per-use price/);
    assert.equal(upstream.bills.length, before);
  });

  test("the long-context tier: past 200,000 input tokens the whole request is billed at the tier's rates", async () => {
    const user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    const words = Array.from({ length: 120_000 }, (_, index) => `word${index % 1000}`).join(" ");
    const served = await post(gateway, "/v1/messages", user.key, {
      model: "msg-sonnet-4-6[1m]",
      max_tokens: 100,
      messages: [{ role: "user", content: words }],
    });
    assert.equal(served.status, 200);
    const bill = upstream.bills.at(-1)!;
    assert.ok(bill.textInputTokens > 200_000, `over the threshold (${bill.textInputTokens})`);
    const ledger = await row(gateway, served.requestId);
    // msg-sonnet-4-6[1m] above 200K input: $6 input, $22.50 output per 1M tokens, for every token of the request.
    assert.equal(ledger.cost, Math.ceil(bill.textInputTokens * 6 + bill.textOutputTokens * 22.5 - 1e-9));
    assert.ok(ledger.reserved >= ledger.cost && ledger.overReservation === 0);
  });

  test("a refusal for money says what the request reserves, what is left, and the largest max_tokens that fits; that cap is then served", async () => {
    const user = await createUserWithKey(gateway, { balance: 50_000, unlimited: true });
    const body = { model: "msg-sonnet-4-6", max_tokens: 60_000, messages: [{ role: "user", content: "Write a book." }] };
    const refused = await post(gateway, "/v1/messages", user.key, body);
    assert.equal(refused.status, 403);
    const message = refused.json.error.message as string;
    assert.match(message, /reserves up to \$0\.9\d+ .* balance is \$0\.0500/);
    const fits = Number(/Set max_tokens to (\d+) or less/.exec(message)?.[1]);
    assert.ok(fits > 1000 && fits < 3400, `a cap that fits $0.05 at $15/1M output (${fits})`);
    const served = await post(gateway, "/v1/messages", user.key, { ...body, max_tokens: fits });
    assert.equal(served.status, 200, served.text);
    assert.equal(upstream.bills.at(-1)!.cap, fits);
    assert.ok((await balanceOf(gateway, user.userId)) >= 0);
  });

  test("the catalog's caps: the default is sent when a request sets none (an operator may change it); a cap above the model's largest is refused", async () => {
    const user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    await gateway.admin("PUT", "/api/admin/catalog/std-5.5", { override: { defaultOutputTokens: 777, maxOutputTokens: 5_000 } });
    try {
      const served = await post(gateway, "/v1/chat/completions", user.key, {
        model: "std-5.5",
        messages: [{ role: "user", content: "Go on." }],
      });
      assert.equal(served.status, 200);
      assert.equal(upstream.bills.at(-1)!.body.max_completion_tokens, 777);
      assert.equal((await row(gateway, served.requestId)).reserved >= 777 * 10, true);
      const tooBig = await post(gateway, "/v1/chat/completions", user.key, {
        model: "std-5.5",
        max_tokens: 6_000,
        messages: [{ role: "user", content: "Go on." }],
      });
      assert.equal(tooBig.status, 400);
      assert.match(tooBig.json.error.message, /'std-5\.5' writes at most 5000 output tokens; got 6000/);
    } finally {
      await gateway.admin("PUT", "/api/admin/catalog/std-5.5", { override: null });
    }
    const catalog = (await gateway.admin("GET", "/api/admin/catalog")).data as { id: string; defaultOutputTokens: number }[];
    assert.equal(catalog.find((entry) => entry.id === "std-5.5")!.defaultOutputTokens, 4_096, "the override is gone");
    const wrongKind = await post(gateway, "/v1/chat/completions", user.key, {
      model: "std-image-2",
      messages: [{ role: "user", content: "Draw." }],
    });
    assert.equal(wrongKind.status, 400);
    assert.match(wrongKind.json.error.message, /image model: it is served by \/v1\/images\/generations/);
  });

  test("money before work: a zero-balance key sending 16 large images is refused before the body is read; a short balance before any image is decoded", async () => {
    const noise = await sharp(randomBytes(768 * 768 * 3), { raw: { width: 768, height: 768, channels: 3 } })
      .png()
      .toBuffer();
    const uri = `data:image/png;base64,${noise.toString("base64")}`;
    const body = JSON.stringify({
      model: "std-5.5",
      instructions: "Edit.",
      stream: true,
      tools: [{ type: "image_generation", action: "edit" }],
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Combine these" },
            ...Array.from({ length: 16 }, () => ({ type: "input_image", image_url: uri })),
          ],
        },
      ],
    });
    assert.ok(body.length > 16 * 1024 * 1024, `${(body.length / 1024 / 1024).toFixed(0)} MB of images`);
    const decodes = await metric(gateway, "gateway_image_decodes_total");

    const empty = await createUserWithKey(gateway, { balance: 0, unlimited: true });
    const refused = await post(gateway, "/v1/responses", empty.key, body);
    assert.equal(refused.status, 403);
    assert.match(
      refused.json.error.message,
      /balance is \$0\.000000 and any request here reserves at least \$0\.\d+; the request was not read/,
    );

    // Less than any request reserves: not read either.
    const short = await createUserWithKey(gateway, { balance: 1_000, unlimited: true });
    const tooLittle = await post(gateway, "/v1/responses", short.key, body);
    assert.equal(tooLittle.status, 403);
    assert.match(tooLittle.json.error.message, /balance is \$0\.001000 and any request here reserves at least/);
    // Enough for some request but not this one: refused at the reservation, sized from the images' headers only.
    const some = await createUserWithKey(gateway, { balance: 300_000, unlimited: true });
    const notEnough = await post(gateway, "/v1/responses", some.key, body);
    assert.equal(notEnough.status, 403);
    assert.match(notEnough.json.error.message, /reserves up to \$\d+\.\d+ .* balance is \$0\.3000/);
    assert.equal(await metric(gateway, "gateway_image_decodes_total"), decodes, "no image was decoded for either refusal");
  });
});

for (const database of ["sqlite", "postgres"] as const) {
  describe(`an upstream billing past the cap on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    test("is charged in full (the balance goes below zero), flagged on the row and in the metric, and the next request is refused", {
      skip,
    }, async () => {
      const gateway = await startGateway({ database });
      const liar = await billing({ overbillOutput: 5_000 });
      await gateway.admin("POST", "/api/admin/channels", {
        name: "overbilling",
        type: "openai",
        baseUrl: `${liar.url}/v1`,
        apiKey: "o",
        models: ["std-5.5"],
        priority: 100,
      });
      const user = await createUserWithKey(gateway, { balance: 20_000, quota: 1_000_000 });
      const before = await metric(gateway, "gateway_over_reservation_total");
      const served = await post(gateway, "/v1/chat/completions", user.key, {
        model: "std-5.5",
        max_tokens: 100,
        messages: [{ role: "user", content: "Hi" }],
      });
      assert.equal(served.status, 200);
      const bill = liar.bills.at(-1)!;
      assert.equal(bill.textOutputTokens, 5_100, "the upstream billed 5,000 tokens past the cap of 100");
      const ledger = await row(gateway, served.requestId);
      const cost = Math.ceil(bill.textInputTokens * 1.25 + bill.textOutputTokens * 10 - 1e-9);
      assert.equal(ledger.cost, cost, "charged what the upstream billed");
      assert.equal(ledger.overReservation, cost - ledger.reserved);
      assert.ok(ledger.overReservation > 0);
      assert.equal(await balanceOf(gateway, user.userId), 20_000 - cost, "nothing written off: the balance is below zero by the excess");
      assert.ok(20_000 - cost < 0);
      const key = (await gateway.admin("GET", `/api/admin/keys?userId=${user.userId}`)).data[0];
      assert.equal(key.quotaRemaining, 1_000_000 - cost, "the key's quota paid the same");
      assert.equal(await metric(gateway, "gateway_over_reservation_total"), before + 1);

      const next = await post(gateway, "/v1/chat/completions", user.key, {
        model: "std-5.5",
        max_tokens: 1,
        messages: [{ role: "user", content: "Again" }],
      });
      assert.equal(next.status, 403);
      assert.match(next.json.error.message, /balance is -\$0\.\d+: an earlier request cost more than it reserved/);
      assert.equal(liar.bills.length, 1, "the refused request never went upstream");
    });
  });
}
