// Random JSON (fast-check) against every /v1 handler over real HTTP: no 500, always a dialect error body, nothing
// charged for a refusal. The schemas themselves are fuzzed in-process by tests/unit/input-properties.test.ts; the SSE
// parser by tests/unit/sse-properties.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { gateway, payer, type Auth, send, assertDialectError } from "../helpers/input-validation";

/** Plausible and implausible values for a field: what a confused or hostile client might send. */
const anyValue = fc.oneof(
  { depthSize: "small" },
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    "",
    " ",
    "std-5.5",
    "msg-sonnet-4-6",
    "std-image-2",
    "user",
    "auto",
    "1024x1024",
    "png",
    "data:image/png;base64,AAAA",
    "http://127.0.0.1/x.png",
    "' OR 1=1--",
    "\u0000",
    "💥",
  ),
  fc.integer(),
  fc.double(),
);

function shaped(keys: string[]) {
  // Each request is the endpoint's own fields with random values (some left out), plus now and then a stray field.
  return fc.record(Object.fromEntries([...keys, "extra"].map((key) => [key, anyValue])), { requiredKeys: [] });
}

const FUZZ: { path: string; auth: Auth; body: fc.Arbitrary<unknown> }[] = [
  {
    path: "/v1/chat/completions",
    auth: "bearer",
    body: fc.oneof(fc.jsonValue(), shaped(["model", "messages", "max_tokens", "stream", "n", "stream_options", "tools", "tool_choice"])),
  },
  {
    path: "/v1/messages",
    auth: "x-api-key",
    body: fc.oneof(fc.jsonValue(), shaped(["model", "messages", "max_tokens", "system", "stream", "tools"])),
  },
  {
    path: "/v1/images/generations",
    auth: "bearer",
    body: fc.oneof(
      fc.jsonValue(),
      shaped([
        "model",
        "prompt",
        "size",
        "quality",
        "output_format",
        "output_compression",
        "response_format",
        "moderation",
        "background",
        "n",
      ]),
    ),
  },
  {
    path: "/v1/responses",
    auth: "bearer",
    body: fc.oneof(
      fc.jsonValue(),
      shaped(["model", "instructions", "input", "stream", "tools", "n"]),
      fc.record({
        model: fc.constant("std-5.5"),
        stream: fc.constant(true),
        instructions: fc.string(),
        input: fc.array(
          fc.record(
            {
              role: anyValue,
              content: fc.oneof(
                anyValue,
                fc.array(fc.record({ type: anyValue, text: anyValue, image_url: anyValue }, { requiredKeys: [] })),
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        tools: fc.array(
          fc.record({ type: fc.constant("image_generation"), quality: anyValue, size: anyValue, action: anyValue }, { requiredKeys: [] }),
          { maxLength: 2 },
        ),
      }),
    ),
  },
];

describe("property: random JSON against every /v1 endpoint", () => {
  for (const target of FUZZ) {
    test(`${target.path}: never a 500; refusals are dialect errors and cost nothing`, async () => {
      const refused: string[] = [];
      let served = 0;
      await fc.assert(
        fc.asyncProperty(target.body, async (value) => {
          const answer = await send({ path: target.path, auth: target.auth, body: JSON.stringify(value) });
          assert.notEqual(answer.status, 500, answer.text.slice(0, 300));
          assert.ok(answer.status < 500, `no 5xx for client input: ${answer.status} ${answer.text.slice(0, 300)}`);
          if (answer.status >= 400) {
            assertDialectError(target.path, answer.body, answer.text);
            refused.push(answer.requestId!);
          } else served++;
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
      );
      // Refused requests left no ledger row, so they cost nothing.
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${payer.keyId}&limit=1000`)).data as { requestId: string }[];
      const charged = new Set(rows.map((row) => row.requestId));
      assert.deepEqual(
        refused.filter((id) => charged.has(id)),
        [],
        "no refused request has a ledger row",
      );
      assert.ok(refused.length > 0, "the generator reaches the refusals");
      void served;
    });
  }
});
