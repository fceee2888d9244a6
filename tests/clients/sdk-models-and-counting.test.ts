// What clients ask before their first request: the model list (both SDKs' models.list and models.retrieve, in each
// SDK's own shape), the Anthropic SDK's messages.countTokens, a typo'd model (404, not 403), a model of the wrong
// kind (400 naming the endpoint that serves it), and the Bearer scheme in any case.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { countMessagesInputTokens } from "@/lib/money/tokens";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

let gateway: Gateway;
let key: string;
let limitedKey: string;

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway));
  await gateway.admin("POST", "/api/admin/groups", { name: "haiku-and-images", models: ["msg-haiku-4-5-20251001", "std-image-2"] });
  ({ key: limitedKey } = await createUserWithKey(gateway, { group: "haiku-and-images" }));
});
after(() => stopAllGateways());

const openai = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = (apiKey = key) => new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });

describe("the model list", () => {
  test("openai models.list() and models.retrieve(): the key's group's models in OpenAI's shape", async () => {
    const ids: string[] = [];
    for await (const model of openai().models.list()) {
      ids.push(model.id);
      assert.equal(model.object, "model");
      assert.equal(typeof model.created, "number");
      assert.equal(typeof model.owned_by, "string");
    }
    assert.ok(ids.includes("std-5.5") && ids.includes("std-image-2") && ids.includes("msg-sonnet-4-6[1m]"), ids.join(", "));
    const limited: string[] = [];
    for await (const model of openai(limitedKey).models.list()) limited.push(model.id);
    assert.deepEqual(limited, ["msg-haiku-4-5-20251001", "std-image-2"], "only what the key's group allows");
    const one = await openai().models.retrieve("msg-sonnet-4-6[1m]");
    assert.deepEqual(Object.keys(one).sort(), ["created", "id", "object", "owned_by"]);
    await assert.rejects(
      openai(limitedKey).models.retrieve("std-5.5"),
      (error: InstanceType<typeof OpenAI.NotFoundError>) =>
        error.status === 404 && (error.error as { code?: string }).code === "model_not_found",
    );
  });

  test("anthropic models.list() and models.retrieve(): Anthropic's shape, paged", async () => {
    const page = await anthropic().models.list({ limit: 3 });
    assert.equal(page.data.length, 3);
    for (const model of page.data) {
      assert.equal(model.type, "model");
      assert.ok(model.display_name.length > 0);
      assert.ok(!Number.isNaN(Date.parse(model.created_at)));
    }
    const all: string[] = [];
    for await (const model of anthropic().models.list({ limit: 4 })) all.push(model.id);
    const listed = (await (await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data.map(
      (model: { id: string }) => model.id,
    );
    assert.deepEqual(all, listed, "the SDK pages through the whole list (has_more, last_id)");
    const one = await anthropic().models.retrieve("msg-opus-4-6");
    assert.equal(one.id, "msg-opus-4-6");
    assert.equal(one.type, "model");
    await assert.rejects(
      anthropic().models.retrieve("msg-nonexistent"),
      (error: InstanceType<typeof Anthropic.NotFoundError>) => error.status === 404,
    );
    const raw = await fetch(`${gateway.url}/v1/models/msg-nonexistent`, { headers: { "x-api-key": key } });
    assert.equal((await raw.json()).error.type, "not_found_error");
  });

  test("no key, or a wrong one: 401 in the caller's dialect", async () => {
    const openaiShape = await fetch(`${gateway.url}/v1/models`);
    assert.equal(openaiShape.status, 401);
    assert.equal((await openaiShape.json()).error.code, "missing_api_key");
    const anthropicShape = await fetch(`${gateway.url}/v1/models`, { headers: { "x-api-key": "sk-wrong" } });
    assert.equal(anthropicShape.status, 401);
    assert.equal((await anthropicShape.json()).error.type, "authentication_error");
  });
});

describe("counting tokens", () => {
  test("anthropic messages.countTokens(): the gateway's count, free", async () => {
    const body = {
      model: "msg-sonnet-4-6",
      system: "Be brief.",
      messages: [{ role: "user" as const, content: "How many tokens is this?" }],
      tools: [{ name: "lookup", description: "Looks up", input_schema: { type: "object" as const, properties: {} } }],
    };
    const counted = await anthropic().messages.countTokens(body);
    assert.equal(counted.input_tokens, countMessagesInputTokens(body));
    const rows = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data as { endpoint: string }[];
    assert.equal(rows.filter((row) => row.endpoint === "/v1/messages/count_tokens").length, 0, "nothing is charged or written");
    await assert.rejects(
      anthropic(limitedKey).messages.countTokens({ ...body, model: "msg-opus-4-6" }),
      (error: InstanceType<typeof Anthropic.PermissionDeniedError>) => error.status === 403,
    );
    const bad = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-sonnet-4-6" }),
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.type, "invalid_request_error");
  });
});

describe("model errors say what is wrong", () => {
  test("an unknown model is 404 in each dialect; a known one outside the group is 403 pointing to /v1/models; the wrong kind is 400", async () => {
    await assert.rejects(
      openai().chat.completions.create({ model: "std-5.55", messages: [{ role: "user", content: "hi" }] }),
      (error: InstanceType<typeof OpenAI.NotFoundError>) => {
        assert.equal(error.status, 404);
        assert.equal((error.error as { code?: string }).code, "model_not_found");
        assert.match(error.message, /'std-5\.55' does not exist on this gateway/);
        return true;
      },
    );
    await assert.rejects(
      anthropic().messages.create({ model: "msg-sonet-4-6", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
      (error: InstanceType<typeof Anthropic.NotFoundError>) =>
        error.status === 404 && (error.error as { error?: { type?: string } }).error?.type === "not_found_error",
    );
    await assert.rejects(
      openai(limitedKey).chat.completions.create({ model: "std-5.5", messages: [{ role: "user", content: "hi" }] }),
      (error: InstanceType<typeof OpenAI.PermissionDeniedError>) =>
        error.status === 403 && /does not include the model 'std-5\.5'; GET \/v1\/models lists/.test(error.message),
    );
    await assert.rejects(
      openai().chat.completions.create({ model: "std-image-2", messages: [{ role: "user", content: "hi" }] }),
      (error: InstanceType<typeof OpenAI.BadRequestError>) =>
        error.status === 400 && /image model: it is served by \/v1\/images\/generations/.test(error.message),
    );
  });

  test("the Bearer scheme is case-insensitive", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `${scheme} ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(response.status, 200, scheme);
      await response.text();
    }
  });
});

describe("browsers", () => {
  test("/v1 answers a preflight from any origin and its answers may be read cross-origin, without credentials", async () => {
    const preflight = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, x-stainless-os",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(preflight.headers.get("access-control-allow-methods")!, /POST/);
    assert.equal(preflight.headers.get("access-control-allow-headers"), "authorization, content-type, x-stainless-os");
    assert.equal(preflight.headers.get("access-control-allow-credentials"), null);
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { origin: "https://app.example", authorization: `Bearer ${key}` } });
    assert.equal(models.headers.get("access-control-allow-origin"), "*");
    assert.match(models.headers.get("access-control-expose-headers")!, /x-request-id/);
    const refused = await fetch(`${gateway.url}/v1/models`, { headers: { origin: "https://app.example" } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*", "errors are readable too");
    const portal = await fetch(`${gateway.url}/api/user/self`, { method: "OPTIONS", headers: { origin: "https://app.example" } });
    assert.equal(portal.headers.get("access-control-allow-origin"), null, "the cookie routes are not opened");
  });
});
