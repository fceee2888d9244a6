// GET /api/user/models: the models open to the signed-in person, with the endpoints that
// serve them, prices per 1M tokens (characters for speech, seconds for transcription), long-context tiers and image
// prices computed as the gateway bills, in the order of their kinds; an operator-added priced model appears; models
// outside the person's groups, or without a price, do not.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

let gateway: Gateway;
let browser: Browser;

before(async () => {
  gateway = await startGateway({ portal: true });
  const user = await createUserWithKey(gateway);
  browser = await signedIn(gateway.url, user.email, user.password);
});
after(stopAllGateways);

type Listed = {
  id: string;
  kind: string;
  endpoints: string[];
  contextWindow: number;
  groups: string[];
  price: { textInput: number; textOutput: number; characterInput: number; audioInputSecond: number; tier: unknown };
  imagePrices: { size: string; low: number; medium: number; high: number }[] | null;
};

async function listed(): Promise<Listed[]> {
  const answer = await browser.call("GET", "/api/user/models");
  assert.equal(answer.status, 200);
  return answer.body.data;
}

test("the default group's models with endpoints, prices and the image price table", async () => {
  const models = await listed();
  const image = models.find((model) => model.id === "std-image-2")!;
  assert.deepEqual(image.endpoints, ["/v1/images/generations", "/v1/images/edits"]);
  const portrait = image.imagePrices!.find((row) => row.size === "1024x1536")!;
  assert.equal((portrait.medium / 1e6).toFixed(3), "0.041", "the reference table's cell");
  assert.equal((image.imagePrices!.find((row) => row.size === "1024x1024")!.low / 1e6).toFixed(3), "0.006");
  const text = models.find((model) => model.id === "std-5.5")!;
  assert.ok(text.endpoints.includes("/v1/responses"));
  assert.equal(text.imagePrices, null);
  const long = models.find((model) => model.id.endsWith("[1m]"))!;
  assert.equal(long.contextWindow, 1_000_000);
  assert.deepEqual(long.groups, ["default"]);
});

test("the embedding, speech and transcription models with their kinds and rates, listed by kind", async () => {
  const models = await listed();
  const byId = new Map(models.map((model) => [model.id, model]));
  for (const [id, kind, endpoint] of [
    ["std-embedding-3-small", "embedding", "/v1/embeddings"],
    ["std-embedding-3-large", "embedding", "/v1/embeddings"],
    ["std-tts-1", "speech", "/v1/audio/speech"],
    ["std-transcribe-1", "transcription", "/v1/audio/transcriptions"],
  ] as const) {
    assert.equal(byId.get(id)?.kind, kind, id);
    assert.deepEqual(byId.get(id)?.endpoints, [endpoint], id);
  }
  assert.equal(byId.get("std-embedding-3-small")!.price.textInput, 0.02);
  assert.equal(byId.get("std-tts-1")!.price.characterInput, 15);
  assert.equal(byId.get("std-tts-1")!.contextWindow, 4_096, "the most characters one request speaks");
  assert.equal(byId.get("std-transcribe-1")!.price.audioInputSecond, 100);
  assert.equal(byId.get("std-5.5")!.price.characterInput, 0);
  const order = ["image", "text", "embedding", "speech", "transcription"];
  const kinds = models.map((model) => order.indexOf(model.kind));
  assert.deepEqual(
    kinds,
    [...kinds].sort((a, b) => a - b),
    "images, text, embeddings, speech, transcription",
  );
});

test("an operator-added priced model appears; one outside the groups or without a price does not", async () => {
  await gateway.admin("POST", "/api/admin/prices", { model: "gpt-4o-mini", textInput: 0.15, textOutput: 0.6 });
  await gateway.admin("POST", "/api/admin/prices", { model: "elsewhere-model", textInput: 1, textOutput: 1 });
  const groups = (await gateway.admin("GET", "/api/admin/groups")).data as { name: string; models: string[] }[];
  const current = groups.find((group) => group.name === "default")!;
  await gateway.admin("POST", "/api/admin/groups", { name: "default", models: [...current.models, "gpt-4o-mini", "unpriced-model"] });
  await gateway.admin("POST", "/api/admin/groups", { name: "private", models: ["elsewhere-model"] });
  const models = await listed();
  const added = models.find((model) => model.id === "gpt-4o-mini")!;
  assert.ok(added, "listed");
  assert.deepEqual([added.price.textInput, added.price.textOutput, added.kind], [0.15, 0.6, "text"]);
  assert.ok(added.endpoints.includes("/v1/chat/completions"));
  assert.equal(
    models.some((model) => model.id === "elsewhere-model"),
    false,
    "not in the user's groups",
  );
  assert.equal(
    models.some((model) => model.id === "unpriced-model"),
    false,
    "no price, cannot be called",
  );
  const anonymous = await fetch(`${gateway.url}/api/user/models`);
  assert.equal(anonymous.status, 401);
});
