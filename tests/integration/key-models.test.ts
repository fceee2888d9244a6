// Keys: what each key has spent, shown with the key, and a key kept to some of its group's
// models: enforced on every endpoint, reflected by GET /v1/models, refused when a model is outside the group.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

let gateway: Gateway;
let owner: Awaited<ReturnType<typeof createUserWithKey>>;
let browser: Browser;

before(async () => {
  gateway = await startGateway({ portal: true });
  owner = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  browser = await signedIn(gateway.url, owner.email, owner.password);
});
after(stopAllGateways);

const client = () => new OpenAI({ apiKey: owner.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

describe("a key's spend and its own model list", () => {
  test("the key list shows what each key spent: the sum of its ledger rows", async () => {
    await client().chat.completions.create({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hello" }] });
    await client().chat.completions.create({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "again" }] });
    const keys = await browser.call("GET", "/api/user/keys");
    assert.equal(keys.status, 200);
    const row = keys.body.data.find((key: { id: string }) => key.id === owner.keyId);
    const ledger = (await gateway.admin("GET", `/api/admin/usage?keyId=${owner.keyId}&limit=100`)).data as { cost: number; kind: string }[];
    const charged = ledger.filter((entry) => entry.kind === "request").reduce((sum, entry) => sum + entry.cost, 0);
    assert.ok(charged > 0);
    assert.equal(row.spent, charged);
    assert.deepEqual(row.models, []);
  });

  test("kept to std-5.5: that model works, another of the group is refused with the reason, /v1/models lists only it", async () => {
    const changed = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { models: ["std-5.5", "std-5.5"] });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.models, ["std-5.5"]);
    const answer = await client().chat.completions.create({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    assert.ok(answer.choices[0]);
    await assert.rejects(
      client().images.generate({ model: "std-image-2", prompt: "a kite", size: "1024x1024", quality: "low" }),
      (error: unknown) =>
        error instanceof OpenAI.PermissionDeniedError &&
        error.code === "model_not_allowed" &&
        /limited to 'std-5\.5' and may not call 'std-image-2'/.test(error.message),
    );
    // The Anthropic dialect refuses the same way.
    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": owner.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(messages.status, 403);
    assert.equal((await messages.json()).error.type, "permission_error");
    const listed = await client().models.list();
    assert.deepEqual(
      listed.data.map((model) => model.id),
      ["std-5.5"],
    );
  });

  test("a model outside the key's group is refused with the field named; [] gives the whole group back", async () => {
    const refused = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { models: ["std-5.5", "no-such-model"] });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, "models");
    assert.match(refused.body.error.message, /Not in this key's group 'default': no-such-model/);
    const reset = await browser.call("PATCH", `/api/user/keys/${owner.keyId}`, { models: [] });
    assert.deepEqual(reset.body.models, []);
    const image = await client().images.generate({ model: "std-image-2", prompt: "a kite", size: "1024x1024", quality: "low" });
    assert.ok(image.data?.[0]?.b64_json);
    assert.ok((await client().models.list()).data.length > 1);
  });
});
