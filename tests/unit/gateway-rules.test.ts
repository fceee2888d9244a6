// Pure rules of the gateway core: channel order, cost rounding, key extraction per endpoint group.
import { test } from "node:test";
import assert from "node:assert/strict";
import { weightedOrder, upstreamModel, type Channel } from "@/lib/channels";
import { costOf, plainPrice } from "@/lib/money/prices";
import { extractKey } from "@/lib/gateway/pipeline";
import type { GatewayError } from "@/lib/platform/errors";
import { splitLongContext } from "@/lib/catalog/models";

test("weightedOrder picks in proportion to weight and keeps every item", () => {
  const items = [
    { id: "a", weight: 1 },
    { id: "b", weight: 3 },
    { id: "zero", weight: 0 },
  ];
  const firsts = new Map<string, number>();
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  for (let run = 0; run < 4000; run++) {
    const order = weightedOrder(items, random);
    assert.deepEqual(order.map((item) => item.id).sort(), ["a", "b", "zero"]);
    assert.equal(order.at(-1)!.id, "zero", "weight 0 goes last");
    firsts.set(order[0]!.id, (firsts.get(order[0]!.id) ?? 0) + 1);
  }
  const share = firsts.get("b")! / 4000;
  assert.ok(share > 0.7 && share < 0.8, `b first ~75% of the time (was ${share})`);
});

test("upstreamModel maps the full name first, then the name without [1m]", () => {
  const channel = { modelMapping: { "msg-opus-4-6": "opus-up", "msg-haiku-4-5-20251001[1m]": "haiku-long" } } as unknown as Channel;
  assert.equal(upstreamModel(channel, "msg-opus-4-6[1m]", "msg-opus-4-6"), "opus-up");
  assert.equal(upstreamModel(channel, "msg-haiku-4-5-20251001[1m]", "msg-haiku-4-5-20251001"), "haiku-long");
  assert.equal(upstreamModel(channel, "std-5.5", "std-5.5"), "std-5.5");
  assert.deepEqual(splitLongContext("msg-sonnet-4-6[1m]"), { base: "msg-sonnet-4-6", longContext: true });
  assert.deepEqual(splitLongContext("msg-sonnet-4-6"), { base: "msg-sonnet-4-6", longContext: false });
});

test("costOf is prices x tokens in micro-USD, rounded up, never down", () => {
  const price = plainPrice({ model: "m", textInput: 1.25, textOutput: 10, imageInput: 8, imageOutput: 30 });
  assert.equal(costOf({ textInputTokens: 1000, textOutputTokens: 100, imageInputTokens: 0, imageOutputTokens: 0 }, price), 2250);
  assert.equal(
    costOf({ textInputTokens: 1, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 }, price),
    2,
    "1.25 micro-USD is charged as 2",
  );
  assert.equal(
    costOf({ textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 196 }, price),
    5880,
    "low 1024x1024 ~ $0.006",
  );
  assert.equal(costOf({ textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 }, price), 0);
});

function headers(values: Record<string, string>) {
  return new Request("http://x/", { headers: values });
}

test("extractKey: Bearer endpoints and the x-api-key endpoint each refuse the other's form", () => {
  assert.equal(extractKey(headers({ authorization: "Bearer sk-abc" }), "bearer"), "sk-abc");
  assert.equal(extractKey(headers({ "x-api-key": "sk-abc" }), "x-api-key"), "sk-abc");
  assert.equal(extractKey(headers({ "x-api-key": "sk-abc", authorization: "Bearer other" }), "x-api-key"), "sk-abc");
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as GatewayError).code;
    }
    return "none";
  };
  assert.equal(
    codeOf(() => extractKey(headers({ authorization: "Bearer sk-abc" }), "x-api-key")),
    "wrong_auth_scheme",
  );
  assert.equal(
    codeOf(() => extractKey(headers({ "x-api-key": "sk-abc" }), "bearer")),
    "wrong_auth_scheme",
  );
  assert.equal(
    codeOf(() => extractKey(headers({ authorization: "Token sk-abc" }), "bearer")),
    "wrong_auth_scheme",
  );
  assert.equal(
    codeOf(() => extractKey(headers({}), "bearer")),
    "missing_api_key",
  );
  assert.equal(
    codeOf(() => extractKey(headers({}), "x-api-key")),
    "missing_api_key",
  );
});
