// JSON.stringify in slices (lib/platform/http/sliced-stringify.ts): the same bytes as JSON.stringify for any JSON value,
// long strings cut in pieces (surrogate pairs kept whole), toJSON and the members JSON leaves out, small chunks included.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringifyInSlices } from "@/lib/platform/http/sliced-stringify";

const joined = async (value: unknown, options?: Parameters<typeof stringifyInSlices>[1]) =>
  Buffer.concat(await stringifyInSlices(value, options)).toString("utf8");

test("the same text as JSON.stringify for random JSON values, with small chunks and slices", async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue(), async (value) => {
      assert.equal(await joined(value, { chunkBytes: 7, sliceMs: 0 }), JSON.stringify(value));
    }),
    { numRuns: 300 },
  );
});

test("long strings are written in pieces, surrogate pairs and lone surrogates as JSON.stringify writes them", async () => {
  const long = `${"a".repeat(32 * 1024 - 1)}😀${'é\u0000\n"\\'.repeat(20_000)}\ud800${"😀".repeat(40_000)}`;
  const value = { long, list: [long, 1, "x"] };
  assert.equal(await joined(value), JSON.stringify(value));
});

test("toJSON, undefined, functions and symbols as JSON.stringify treats them; a cycle throws", async () => {
  const value = { when: new Date(0), gone: undefined, call: () => 1, mark: Symbol("s"), list: [undefined, () => 1, Symbol("t"), null] };
  assert.equal(await joined(value), JSON.stringify(value));
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  await assert.rejects(stringifyInSlices(cycle), TypeError);
});
