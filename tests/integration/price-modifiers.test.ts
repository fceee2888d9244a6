// Price modifiers (docs/billing.md, "Price modifiers"): request fields that make the vendor bill more for the same
// tokens (OpenAI's service_tier priority, Anthropic's fast mode and US-only inference, a field or beta the operator
// names on the Settings page) go upstream only when the model's price sets their multiplier, and are then reserved and
// charged at the multiplied rates; unpriced, they are refused with a 400 naming the field, before anything goes
// upstream and without a charge. The values that never cost more pass. Other unknown fields are still passed on.
// Against a fake vendor that bills tokens (tests/helpers/billing-upstream.ts), on SQLite and PostgreSQL.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startBillingUpstream, type BillingUpstream } from "../helpers/billing-upstream";

const upstreams: BillingUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function post(gateway: Gateway, path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const auth: Record<string, string> =
    path === "/v1/messages" ? { "x-api-key": key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key}` };
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const streamed = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  return { status: response.status, json: streamed ? null : JSON.parse(text), requestId: response.headers.get("x-request-id")! };
}

async function rows(gateway: Gateway, requestId: string): Promise<any[]> {
  return (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
}

async function row(gateway: Gateway, requestId: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = await rows(gateway, requestId);
    if (found.length) return found[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ledger row for ${requestId}`);
}

async function balanceOf(gateway: Gateway, userId: string): Promise<number> {
  return ((await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[]).find(
    (user) => user.id === userId,
  )!.balance;
}

/** What the ledger must charge for a bill at a model's rates times `multiplier` (lib/money/prices.ts, costOf). */
function costAt(bill: { textInputTokens: number; textOutputTokens: number }, rates: { input: number; output: number }, multiplier = 1) {
  return Math.ceil(bill.textInputTokens * (rates.input * multiplier) + bill.textOutputTokens * (rates.output * multiplier) - 1e-9);
}

const STD = { input: 1.25, output: 10 };
const OPUS = { input: 5, output: 25 };
const chat = (extra: Record<string, unknown> = {}) => ({
  model: "std-5.5",
  max_tokens: 100,
  messages: [{ role: "user", content: "Hello" }],
  ...extra,
});
const message = (extra: Record<string, unknown> = {}, model = "msg-opus-4-6") => ({
  model,
  max_tokens: 100,
  messages: [{ role: "user", content: "Hello" }],
  ...extra,
});

for (const database of ["sqlite", "postgres"] as const) {
  describe(`price modifiers on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    let upstream: BillingUpstream;
    let user: Awaited<ReturnType<typeof createUserWithKey>>;

    before(async () => {
      if (skip) return;
      gateway = await startGateway({ database });
      upstream = await startBillingUpstream();
      upstreams.push(upstream);
      await gateway.admin("POST", "/api/admin/channels", {
        name: "billing openai",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "o",
        models: ["std-5.5"],
        priority: 100,
      });
      await gateway.admin("POST", "/api/admin/channels", {
        name: "billing anthropic",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "a",
        models: ["msg-opus-4-6", "msg-sonnet-4-6"],
        priority: 100,
        settings: { betas: ["premium-lane-2026-01-01"] },
      });
      // msg-sonnet-4-6 is also served, first, by a channel that converts Messages to Chat Completions.
      await gateway.admin("POST", "/api/admin/channels", {
        name: "billing openai for sonnet",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "o",
        models: ["msg-sonnet-4-6"],
        priority: 200,
      });
      // The seeded simulator serves every model; off, so that the channels above are the only ones.
      const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
        (channel) => channel.type === "simulator",
      )!;
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
      user = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true });
    });

    test("service_tier priority without a price: 400 naming the field, nothing upstream, no charge", { skip }, async () => {
      const seeded = (await gateway.admin("GET", "/api/admin/prices")).data.find((row: { model: string }) => row.model === "std-5.5");
      assert.deepEqual(seeded.modifiers, { "service_tier:flex": 0.5 }, "seeded: flex's discount, no dearer modifier");
      const before = upstream.bills.length;
      const balance = await balanceOf(gateway, user.userId);
      const refused = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "priority" }));
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.type, "invalid_request_error");
      assert.equal(refused.json.error.param, "service_tier");
      assert.match(refused.json.error.message, /'service_tier: "priority"' is not available for 'std-5\.5'.*service_tier:priority/);
      const scale = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "scale" }));
      assert.equal(scale.status, 400);
      assert.equal(scale.json.error.param, "service_tier");
      assert.equal(upstream.bills.length, before, "nothing went upstream");
      assert.equal(await balanceOf(gateway, user.userId), balance, "nothing was charged");
      assert.deepEqual(await rows(gateway, refused.requestId), [], "no ledger row");
    });

    test("service_tier priority with the operator's multiplier: forwarded, reserved and charged at the multiplied price", {
      skip,
    }, async () => {
      const standard = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "default" }));
      assert.equal(standard.status, 200);
      const standardRow = await row(gateway, standard.requestId);
      assert.equal(standardRow.cost, costAt(upstream.bills.at(-1)!, STD));

      await gateway.admin("POST", "/api/admin/prices", {
        model: "std-5.5",
        modifiers: { "service_tier:flex": 0.5, "service_tier:priority": 2 },
      });
      const served = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "priority" }));
      assert.equal(served.status, 200);
      const bill = upstream.bills.at(-1)!;
      assert.equal(bill.body.service_tier, "priority", "the tier went upstream");
      const ledger = await row(gateway, served.requestId);
      assert.equal(ledger.cost, costAt(bill, STD, 2), "charged the bill at twice the rates");
      assert.deepEqual(ledger.detail.priceModifiers, { "service_tier:priority": 2 });
      assert.ok(ledger.reserved >= ledger.cost && ledger.overReservation === 0);
      // The same request without the tier reserves half as much (give or take the field's own bytes).
      assert.ok(ledger.reserved > 1.9 * standardRow.reserved, `reserved ${ledger.reserved} vs ${standardRow.reserved} at standard`);

      // A balance that covers the standard reservation but not the multiplied one is refused before anything goes upstream.
      const short = await createUserWithKey(gateway, { balance: Math.ceil(1.5 * standardRow.reserved), unlimited: true });
      const before = upstream.bills.length;
      const refused = await post(gateway, "/v1/chat/completions", short.key, chat({ service_tier: "priority" }));
      assert.equal(refused.status, 403);
      assert.equal(upstream.bills.length, before);
      assert.equal((await post(gateway, "/v1/chat/completions", short.key, chat())).status, 200, "the standard request fits");
    });

    test("flex passes without a price (charged at the standard rate) and at its discount once set (seeded: half)", { skip }, async () => {
      await gateway.admin("POST", "/api/admin/prices", { model: "std-5.5", modifiers: { "service_tier:priority": 2 } });
      const unpriced = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "flex" }));
      assert.equal(unpriced.status, 200);
      const bill = upstream.bills.at(-1)!;
      assert.equal(bill.body.service_tier, "flex");
      assert.equal((await row(gateway, unpriced.requestId)).cost, costAt(bill, STD));

      await gateway.admin("POST", "/api/admin/prices", {
        model: "std-5.5",
        modifiers: { "service_tier:priority": 2, "service_tier:flex": 0.5 },
      });
      const discounted = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: "flex" }));
      assert.equal(discounted.status, 200);
      const flexBill = upstream.bills.at(-1)!;
      const ledger = await row(gateway, discounted.requestId);
      assert.equal(ledger.cost, costAt(flexBill, STD, 0.5), "charged what the vendor bills for flex: half");
      assert.ok(ledger.reserved >= costAt(flexBill, STD), "reserved at the standard rates, an upper bound");
      assert.deepEqual(ledger.detail.priceModifiers, { "service_tier:flex": 0.5 });
      for (const tier of ["auto", null]) {
        const standard = await post(gateway, "/v1/chat/completions", user.key, chat({ service_tier: tier }));
        assert.equal(standard.status, 200, `service_tier ${tier} is the standard price`);
      }
    });

    test("speed fast and inference_geo on /v1/messages: refused unpriced in Anthropic's shape, charged at their multipliers once set", {
      skip,
    }, async () => {
      const before = upstream.bills.length;
      const fast = await post(gateway, "/v1/messages", user.key, message({ speed: "fast" }));
      assert.equal(fast.status, 400);
      assert.equal(fast.json.type, "error");
      assert.equal(fast.json.error.type, "invalid_request_error");
      assert.match(fast.json.error.message, /'speed: "fast"' is not available for 'msg-opus-4-6'.*speed:fast/);
      const geo = await post(gateway, "/v1/messages", user.key, message({ inference_geo: "us" }));
      assert.equal(geo.status, 400);
      assert.match(geo.json.error.message, /'inference_geo: "us"'/);
      assert.equal(upstream.bills.length, before, "nothing went upstream");
      assert.deepEqual(await rows(gateway, fast.requestId), []);

      for (const passing of [
        { service_tier: "standard_only" },
        { service_tier: "auto" },
        { inference_geo: "global" },
        { speed: "standard" },
      ]) {
        const served = await post(gateway, "/v1/messages", user.key, message(passing));
        assert.equal(served.status, 200, JSON.stringify(passing));
        const bill = upstream.bills.at(-1)!;
        assert.equal(bill.body[Object.keys(passing)[0]!], Object.values(passing)[0], "passed on as sent");
        assert.equal((await row(gateway, served.requestId)).cost, costAt(bill, OPUS));
      }

      await gateway.admin("POST", "/api/admin/prices", { model: "msg-opus-4-6", modifiers: { "speed:fast": 6, "inference_geo:us": 1.1 } });
      const served = await post(gateway, "/v1/messages", user.key, message({ speed: "fast" }));
      assert.equal(served.status, 200);
      let bill = upstream.bills.at(-1)!;
      assert.equal(bill.body.speed, "fast");
      let ledger = await row(gateway, served.requestId);
      assert.equal(ledger.cost, costAt(bill, OPUS, 6));
      assert.deepEqual(ledger.detail.priceModifiers, { "speed:fast": 6 });

      const both = await post(gateway, "/v1/messages", user.key, message({ speed: "fast", inference_geo: "us", stream: true }));
      assert.equal(both.status, 200);
      bill = upstream.bills.at(-1)!;
      assert.deepEqual([bill.body.speed, bill.body.inference_geo], ["fast", "us"]);
      ledger = await row(gateway, both.requestId);
      assert.equal(ledger.cost, costAt(bill, OPUS, 6 * 1.1), "the multipliers stack");
      assert.deepEqual(ledger.detail.priceModifiers, { "speed:fast": 6, "inference_geo:us": 1.1 });
      assert.ok(ledger.reserved >= ledger.cost);
    });

    test("a priced modifier is served only by the channels that pass it upstream", { skip }, async () => {
      await gateway.admin("POST", "/api/admin/prices", { model: "msg-sonnet-4-6", modifiers: { "speed:fast": 6 } });
      const plain = await post(gateway, "/v1/messages", user.key, message({}, "msg-sonnet-4-6"));
      assert.equal(plain.status, 200);
      assert.equal(upstream.bills.at(-1)!.endpoint, "chat", "the converting channel comes first");
      const fast = await post(gateway, "/v1/messages", user.key, message({ speed: "fast" }, "msg-sonnet-4-6"));
      assert.equal(fast.status, 200);
      const bill = upstream.bills.at(-1)!;
      assert.equal(bill.endpoint, "messages", "served by the channel that sends `speed` upstream");
      assert.equal((await row(gateway, fast.requestId)).cost, costAt(bill, { input: 3, output: 15 }, 6));
      // Through Chat Completions every channel of the model that would pass it speaks Messages: the conversion drops
      // the field, the vendor bills the standard price, and so does the ledger.
      const converted = await post(gateway, "/v1/chat/completions", user.key, { ...message({ speed: "fast" }, "msg-opus-4-6") });
      assert.equal(converted.status, 200);
      const convertedBill = upstream.bills.at(-1)!;
      assert.equal(convertedBill.body.speed, undefined);
      assert.equal((await row(gateway, converted.requestId)).cost, costAt(convertedBill, OPUS));
    });

    test("a field or beta the operator adds on Settings is refused until priced; other unknown fields still pass", { skip }, async () => {
      const extra = { gateway_test_lane: { boost: true }, another_new_field: [1, 2, 3] };
      const passing = await post(gateway, "/v1/chat/completions", user.key, chat(extra));
      assert.equal(passing.status, 200);
      assert.deepEqual(upstream.bills.at(-1)!.body.gateway_test_lane, { boost: true }, "an unknown field is passed on");

      const settings = await gateway.admin("POST", "/api/admin/settings", {
        priceModifierFields: ["gateway_test_lane", "anthropic-beta:premium-lane-2026-01-01"],
      });
      assert.deepEqual(settings.priceModifierFields, ["gateway_test_lane", "anthropic-beta:premium-lane-2026-01-01"]);
      const before = upstream.bills.length;
      const refused = await post(gateway, "/v1/chat/completions", user.key, chat(extra));
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.param, "gateway_test_lane");
      const beta = await post(gateway, "/v1/messages", user.key, message(), { "anthropic-beta": "premium-lane-2026-01-01" });
      assert.equal(beta.status, 400);
      assert.match(beta.json.error.message, /the beta 'premium-lane-2026-01-01' is not available/);
      assert.equal(upstream.bills.length, before, "nothing went upstream");
      // Absent or null is no modifier.
      assert.equal((await post(gateway, "/v1/chat/completions", user.key, chat({ gateway_test_lane: null }))).status, 200);

      await gateway.admin("POST", "/api/admin/prices", {
        model: "std-5.5",
        modifiers: { "service_tier:priority": 2, gateway_test_lane: 3 },
      });
      await gateway.admin("POST", "/api/admin/prices", {
        model: "msg-opus-4-6",
        modifiers: { "anthropic-beta:premium-lane-2026-01-01": 1.5 },
      });
      const served = await post(gateway, "/v1/chat/completions", user.key, chat(extra));
      assert.equal(served.status, 200);
      let bill = upstream.bills.at(-1)!;
      assert.deepEqual(bill.body.another_new_field, [1, 2, 3]);
      assert.equal((await row(gateway, served.requestId)).cost, costAt(bill, STD, 3));
      const betaServed = await post(gateway, "/v1/messages", user.key, message(), { "anthropic-beta": "premium-lane-2026-01-01" });
      assert.equal(betaServed.status, 200);
      bill = upstream.bills.at(-1)!;
      assert.equal(bill.headers["anthropic-beta"], "premium-lane-2026-01-01");
      const ledger = await row(gateway, betaServed.requestId);
      assert.equal(ledger.cost, costAt(bill, OPUS, 1.5));
      assert.deepEqual(ledger.detail.priceModifiers, { "anthropic-beta:premium-lane-2026-01-01": 1.5 });

      await gateway.admin("POST", "/api/admin/settings", { priceModifierFields: [] });
    });

    test("the operator API refuses malformed modifiers and names", { skip }, async () => {
      const response = await fetch(`${gateway.url}/api/admin/prices`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", modifiers: { "service_tier:priority": 0 } }),
      });
      assert.equal(response.status, 400);
      const badKey = await fetch(`${gateway.url}/api/admin/prices`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", modifiers: { "bad key!": 2 } }),
      });
      assert.equal(badKey.status, 400);
      const refusal = await badKey.json();
      assert.equal(refusal.error.param, "modifiers.bad key!");
      assert.match(refusal.error.message, /'bad key!' is not a modifier: write field:value/);
      const settings = await fetch(`${gateway.url}/api/admin/settings`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
        body: JSON.stringify({ priceModifierFields: ["messages"] }),
      });
      assert.equal(settings.status, 400);
      assert.match(await settings.text(), /every request carries this field/);
    });
  });
}
