// The built-in simulator builds a value for a client's JSON schema (a forced tool's arguments, a json_schema response
// format); sizes in the schema are the client's to choose, so the simulator caps them and refuses beyond the caps with
// a 400 in the endpoint's dialect (README.md, "The built-in simulator channel"; docs/simulator.md). Each schema below
// used to exhaust the heap or hold the event loop for good. The gateway must answer each one at once, stay up, and
// charge nothing. On SQLite and PostgreSQL.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

after(() => stopAllGateways());

/** Long enough for a refusal on a busy machine; a request that outlives it has hung the gateway. */
const CLIENT_TIMEOUT_MS = 20_000;

/** A chain of `levels` objects, each with `width` properties that all point to the next level: width^levels values. */
function fanOut(width: number, levels: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`level${levels}`]: { type: "string" } };
  for (let level = 0; level < levels; level++) {
    const properties = Object.fromEntries(
      Array.from({ length: width }, (_, index) => [`p${index}`, { $ref: `#/$defs/level${level + 1}` }]),
    );
    $defs[`level${level}`] = { type: "object", properties, required: Object.keys(properties) };
  }
  return { $ref: "#/$defs/level0", $defs };
}

const HOSTILE: Record<string, { schema: Record<string, unknown>; says: RegExp }> = {
  "minItems 1e8": {
    schema: { type: "object", properties: { list: { type: "array", items: { type: "string" }, minItems: 100_000_000 } } },
    says: /minItems.*100000000.*properties\.list.*1,000 items/,
  },
  "minLength 1e9": {
    schema: { type: "object", properties: { text: { type: "string", minLength: 1_000_000_000 } } },
    says: /minLength.*1000000000.*properties\.text.*10,000 characters/,
  },
  "recursion that never ends": {
    // Every node requires a child: no finite value exists.
    schema: {
      $ref: "#/$defs/node",
      $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } }, required: ["child"] } },
    },
    says: /nests more than 32 levels/,
  },
  "a $ref cycle": {
    schema: { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } } },
    says: /\$ref cycle.*#\/\$defs\/a.*#\/\$defs\/b/,
  },
  "width 30, 8 levels": { schema: fanOut(30, 8), says: /32,768 characters|20,000 steps/ },
  "a big const in many items": {
    schema: {
      type: "object",
      properties: { rows: { type: "array", minItems: 1_000, items: { const: "x".repeat(50_000) } } },
    },
    says: /32,768 characters/,
  },
};

type Sent = { path: string; body: Record<string, unknown>; dialect: "openai" | "anthropic" };

function requests(schema: Record<string, unknown>): Record<string, Sent> {
  const messages = [{ role: "user", content: "Fill this in" }];
  return {
    "chat, json_schema": {
      path: "/v1/chat/completions",
      dialect: "openai",
      body: {
        model: "std-5.5",
        max_tokens: 200,
        messages,
        response_format: { type: "json_schema", json_schema: { name: "answer", schema } },
      },
    },
    "chat, forced tool": {
      path: "/v1/chat/completions",
      dialect: "openai",
      body: {
        model: "std-5.5",
        max_tokens: 200,
        messages,
        tools: [{ type: "function", function: { name: "fill", parameters: schema } }],
        tool_choice: { type: "function", function: { name: "fill" } },
      },
    },
    "chat, forced tool, streamed": {
      path: "/v1/chat/completions",
      dialect: "openai",
      body: {
        model: "std-5.5",
        max_tokens: 200,
        stream: true,
        messages,
        tools: [{ type: "function", function: { name: "fill", parameters: schema } }],
        tool_choice: "required",
      },
    },
    "messages, forced tool": {
      path: "/v1/messages",
      dialect: "anthropic",
      body: {
        model: "msg-sonnet-4-6",
        max_tokens: 200,
        messages,
        tools: [{ name: "fill", input_schema: schema }],
        tool_choice: { type: "tool", name: "fill" },
      },
    },
    "messages, forced tool, streamed": {
      path: "/v1/messages",
      dialect: "anthropic",
      body: {
        model: "msg-sonnet-4-6",
        max_tokens: 200,
        stream: true,
        messages,
        tools: [{ name: "fill", input_schema: schema }],
        tool_choice: { type: "any" },
      },
    },
    "responses, forced function tool": {
      path: "/v1/responses",
      dialect: "openai",
      body: {
        model: "std-5.5",
        instructions: "Answer",
        stream: true,
        input: [{ role: "user", content: "Fill this in" }],
        tools: [{ type: "function", name: "fill", parameters: schema }],
        tool_choice: { type: "function", name: "fill" },
      },
    },
  };
}

async function send(gateway: Gateway, key: string, sent: Sent): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${sent.path}`, {
    method: "POST",
    headers:
      sent.dialect === "anthropic"
        ? { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" }
        : { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(sent.body),
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

async function balanceOf(gateway: Gateway, userId: string): Promise<number> {
  const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
  return users.find((user) => user.id === userId)!.balance;
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`simulator schema limits on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

    test("hostile schemas: a prompt 400 in the endpoint's dialect naming the limit and where; the gateway stays up; nothing charged", {
      skip,
    }, async () => {
      const gateway = await startGateway({ database });
      const user = await createUserWithKey(gateway, { balance: 1_000_000_000, quota: 1_000_000_000 });
      const before = await balanceOf(gateway, user.userId);
      for (const [schemaName, { schema, says }] of Object.entries(HOSTILE)) {
        for (const [requestName, sent] of Object.entries(requests(schema))) {
          const what = `${schemaName}, ${requestName}`;
          let answer: { status: number; body: any };
          try {
            answer = await send(gateway, user.key, sent);
          } catch (error) {
            assert.fail(`${what}: no answer (${(error as Error).message}); the gateway said:\n${gateway.output().slice(-2000)}`);
          }
          assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body).slice(0, 500)}`);
          if (sent.dialect === "anthropic") {
            assert.equal(answer.body.type, "error", what);
            assert.equal(answer.body.error.type, "invalid_request_error", what);
          } else {
            assert.equal(answer.body.error.type, "invalid_request_error", what);
            assert.equal(typeof answer.body.error.code, "string", what);
          }
          assert.match(answer.body.error.message, says, what);
          assert.match(answer.body.error.message, /simulator/, what);
        }
      }
      const health = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      assert.equal(health.status, 200);
      assert.equal(await balanceOf(gateway, user.userId), before, "refused requests cost nothing");
      const rows = (await gateway.admin("GET", `/api/admin/usage?userId=${user.userId}&limit=1000`)).data as {
        cost: number;
        status: string;
      }[];
      assert.ok(rows.length > 0, "the refusals are logged");
      for (const row of rows) {
        assert.equal(Number(row.cost), 0, JSON.stringify(row));
        assert.equal(row.status, "error");
      }
    });

    test("schemas within the limits still get a valid value: recursion that may end, 1,000 items, a ref chain", { skip }, async () => {
      const gateway = await startGateway({ database });
      const user = await createUserWithKey(gateway, { balance: 1_000_000_000, quota: 1_000_000_000 });
      const tree = {
        $ref: "#/$defs/node",
        $defs: {
          node: {
            type: "object",
            properties: {
              label: { type: "string" },
              children: { type: "array", items: { $ref: "#/$defs/node" } },
              parent: { anyOf: [{ $ref: "#/$defs/node" }, { type: "null" }] },
            },
            required: ["label", "children", "parent"],
          },
        },
      };
      const treeAnswer = await send(gateway, user.key, requests(tree)["chat, forced tool"]!);
      assert.equal(treeAnswer.status, 200, JSON.stringify(treeAnswer.body));
      const treeValue = JSON.parse(treeAnswer.body.choices[0].message.tool_calls[0].function.arguments);
      assert.deepEqual(treeValue, { label: "label (simulated)", children: [], parent: null });

      const list = {
        type: "object",
        properties: { ids: { type: "array", items: { type: "integer" }, minItems: 1_000 } },
        required: ["ids"],
      };
      // A thousand numbers need more than the 200 tokens the other requests allow: the simulator stops at the cap.
      const listRequest = requests(list)["messages, forced tool"]!;
      const listAnswer = await send(gateway, user.key, { ...listRequest, body: { ...listRequest.body, max_tokens: 8_000 } });
      assert.equal(listAnswer.status, 200, JSON.stringify(listAnswer.body));
      assert.equal(listAnswer.body.content[0].input.ids.length, 1_000);

      const chain = {
        $ref: "#/$defs/a",
        $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/c" }, c: { type: "string", minLength: 40 } },
      };
      const chainAnswer = await send(gateway, user.key, requests(chain)["chat, json_schema"]!);
      assert.equal(chainAnswer.status, 200, JSON.stringify(chainAnswer.body));
      assert.equal(JSON.parse(chainAnswer.body.choices[0].message.content).length, 40);
    });
  });
}
