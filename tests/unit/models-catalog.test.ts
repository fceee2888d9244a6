// The Models & pricing catalog's search, kind filter and sort, and which models get a curl example
// (components/portal/models-catalog.ts; docs/api.md, "Models & pricing").
import { test } from "node:test";
import assert from "node:assert/strict";
import { callableWithKeys, filterModels, sortPrice } from "@/components/portal/models-catalog";
import type { UserModel } from "@/lib/portal/types";

function model(
  id: string,
  kind: UserModel["kind"],
  price: Partial<UserModel["price"]>,
  contextWindow = 128_000,
  groups = ["default"],
): UserModel {
  return {
    id,
    displayName: id.toUpperCase(),
    kind,
    endpoints: [],
    contextWindow,
    maxOutputTokens: 1,
    groups,
    source: null,
    price: {
      textInput: 0,
      textOutput: 0,
      imageInput: 0,
      imageOutput: 0,
      characterInput: 0,
      audioInputSecond: 0,
      cacheRead: 1,
      cacheWrite: 1,
      tier: null,
      toolPrices: {},
      ...price,
    },
    imagePrices: null,
  };
}

const models = [
  model("b-text", "text", { textInput: 3 }, 200_000),
  model("a-text", "text", { textInput: 1 }, 1_000_000),
  model("c-image", "image", { imageOutput: 30, textInput: 5 }),
  model("tts", "speech", { characterInput: 15 }, 4_096),
  model("embed", "embedding", { textInput: 0.02 }, 8_192, ["vip"]),
];
const ids = (list: UserModel[]) => list.map((entry) => entry.id);

test("search matches the name or the display name, in any case", () => {
  assert.deepEqual(ids(filterModels(models, "TEXT", "all", "name")), ["a-text", "b-text"]);
  assert.deepEqual(ids(filterModels(models, "  tts ", "all", "name")), ["tts"]);
  assert.deepEqual(ids(filterModels(models, "nothing", "all", "name")), []);
});

test("the kind filter keeps one kind; the default order is by kind, then name", () => {
  assert.deepEqual(ids(filterModels(models, "", "speech", "kind")), ["tts"]);
  assert.deepEqual(ids(filterModels(models, "", "all", "kind")), ["c-image", "a-text", "b-text", "embed", "tts"]);
});

test("sorts by the price of what the kind is billed for first, either way, and by context window", () => {
  assert.equal(sortPrice(models[2]!), 30, "an image model by its output image rate");
  assert.equal(sortPrice(models[3]!), 15, "speech by characters");
  assert.deepEqual(ids(filterModels(models, "", "text", "price-asc")), ["a-text", "b-text"]);
  assert.deepEqual(ids(filterModels(models, "", "text", "price-desc")), ["b-text", "a-text"]);
  assert.deepEqual(ids(filterModels(models, "", "all", "context-desc")).slice(0, 2), ["a-text", "b-text"]);
});

test("a curl example only when one of the person's keys is in a group that offers the model (any group before their first key)", () => {
  assert.equal(callableWithKeys(models[4]!, ["default"]), false);
  assert.equal(callableWithKeys(models[4]!, ["default", "vip"]), true);
  assert.equal(callableWithKeys(models[0]!, ["default"]), true);
  assert.equal(callableWithKeys(models[4]!, []), true);
});
