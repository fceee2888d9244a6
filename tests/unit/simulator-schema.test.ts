// The simulator's value for a client's JSON schema (lib/providers/simulator/schema-value.ts, instanceOf) is built within a
// budget counted while it is built (SCHEMA_LIMITS; README.md, "The built-in simulator channel"): for random schemas,
// with sizes near and past the limits, recursion, $ref cycles and big const values, the value written as JSON never
// passes the character budget nor nests past the depth limit, or the call throws SchemaLimitError, never anything else.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { instanceOf, SCHEMA_LIMITS, SchemaLimitError } from "@/lib/providers/simulator/schema-value";

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

/** Levels of containers below the value (0 for a primitive or an empty container). */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let deepest = 0;
  for (const entry of Object.values(value)) deepest = Math.max(deepest, depthOf(entry) + 1);
  return deepest;
}

/** Any UTF-16 code unit, lone surrogates and characters JSON escapes included. */
const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit, maxLength: 40 }),
  fc
    .tuple(fc.string({ unit, minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 30_000 }))
    .map(([piece, times]) => piece.repeat(times)),
);
const count = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: 0, max: 1_200 }),
  fc.constantFrom(SCHEMA_LIMITS.items, SCHEMA_LIMITS.items + 1, 100_000_000, "7", -3, 2.5),
);
const length = fc.oneof(
  fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 0, max: 12_000 }),
  fc.constantFrom(SCHEMA_LIMITS.stringLength, SCHEMA_LIMITS.stringLength + 1, 1_000_000_000),
);
const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text, fc.array(text, { maxLength: 3 }));
const key = fc.oneof(fc.constantFrom("a", "b", "city", "__proto__", "children"), text);
const ref = fc.constantFrom("#", "#/$defs/a", "#/$defs/b", "#/$defs/missing", "#/$defs/a/properties/x", "elsewhere.json");

const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record(
      { type: fc.constantFrom("string", "integer", "number", "boolean", "null", ["string", "null"]), minLength: length, maxLength: length },
      { requiredKeys: ["type"] },
    ),
    fc.record({ type: fc.constant("string"), format: fc.constantFrom("date", "uuid", "email") }),
    fc.record({ const: json }),
    fc.record({ enum: fc.array(json, { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant("object"), default: json }),
    fc.record({ $ref: ref }),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(key, tie("schema"), { maxKeys: 5 }),
        required: fc.array(key, { maxLength: 4 }),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record({ type: fc.constant("array"), items: tie("schema"), minItems: count, maxItems: count }, { requiredKeys: ["type", "items"] }),
    fc.record({ type: fc.constant("array"), prefixItems: fc.array(tie("schema"), { maxLength: 4 }) }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
  ),
}));

/** A root schema with two definitions that it and they may refer to (`#` is the root itself). */
const rooted = fc
  .record({ root: schema, a: schema, b: schema })
  .map(({ root, a, b }) => ({ ...(typeof root === "object" && root !== null ? root : {}), $defs: { a, b } }));

test("instanceOf stays within its budget, or refuses with SchemaLimitError", () => {
  fc.assert(
    fc.property(rooted, (root) => {
      let value: unknown;
      try {
        value = instanceOf(root, "value", "schema");
      } catch (error) {
        if (!(error instanceof SchemaLimitError)) throw error;
        assert.match(error.message, /simulator/);
        return;
      }
      const written = JSON.stringify(value) ?? "";
      assert.ok(written.length <= SCHEMA_LIMITS.characters, `${written.length} characters`);
      assert.ok(depthOf(value) <= SCHEMA_LIMITS.depth, `nests ${depthOf(value)} levels`);
      assert.deepEqual(instanceOf(root, "value", "schema"), value, "the same schema gives the same value");
    }),
    { numRuns: RUNS },
  );
});

test("near the limits: the biggest accepted sizes build, one more is refused, naming the keyword and where", () => {
  const list = (minItems: number) => ({ type: "object", properties: { ids: { type: "array", minItems, items: { type: "integer" } } } });
  assert.equal((instanceOf(list(SCHEMA_LIMITS.items)) as { ids: unknown[] }).ids.length, SCHEMA_LIMITS.items);
  assert.throws(() => instanceOf(list(SCHEMA_LIMITS.items + 1), "value", "tools[2].function.parameters"), {
    name: "SchemaLimitError",
    message: /'minItems' is 1001 at tools\[2\]\.function\.parameters\.properties\.ids, above its limit of 1,000 items per array/,
  });
  assert.equal((instanceOf({ type: "string", minLength: SCHEMA_LIMITS.stringLength }) as string).length, SCHEMA_LIMITS.stringLength);
  assert.throws(() => instanceOf({ type: "string", minLength: SCHEMA_LIMITS.stringLength + 1 }), /'minLength' is 10001 at the schema/);
  // Three strings of 10,000 characters fit in 32,768; a fourth passes it.
  const strings = (count: number) => ({
    type: "array",
    prefixItems: Array.from({ length: count }, () => ({ type: "string", minLength: 10_000 })),
  });
  assert.equal((instanceOf(strings(3)) as string[]).length, 3);
  assert.throws(() => instanceOf(strings(4)), /passes 32,768 characters of JSON at the schema\.prefixItems\[3\]/);
});

test("recursion ends where the schema lets it; a cycle and a recursion that cannot end are refused", () => {
  const tree = {
    $ref: "#/$defs/node",
    $defs: {
      node: {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
          next: { anyOf: [{ $ref: "#/$defs/node" }, { type: "null" }] },
          parent: { $ref: "#/$defs/node" },
        },
        required: ["name", "children", "next"],
      },
    },
  };
  assert.deepEqual(instanceOf(tree), { name: "name (simulated)", children: [], next: null });
  assert.deepEqual(instanceOf({ type: ["object", "null"], properties: { self: { $ref: "#" } }, required: ["self"] }), { self: null });
  assert.throws(() => instanceOf({ $ref: "#" }), /is a \$ref cycle \(# → #\)/);
  assert.throws(
    () => instanceOf({ type: "object", properties: { again: { $ref: "#" } }, required: ["again"] }),
    /nests more than 32 levels deep/,
  );
});

test("a property named __proto__ is a property of the value", () => {
  const value = instanceOf({ type: "object", properties: { ["__proto__"]: { type: "integer" } } });
  assert.equal(JSON.stringify(value), '{"__proto__":1}');
});
