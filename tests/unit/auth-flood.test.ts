// A flood of invalid keys costs a bounded amount of database work, counted exactly: the real auth
// wrappers (the /v1 one in lib/gateway/pipeline.ts, the operator one in lib/auth/admin.ts) run in-process against a
// database stand-in that counts key lookups. Malformed keys are refused by their shape before any lookup; each
// distinct well-formed unknown key costs one indexed lookup, shared by concurrent requests and then answered from
// the negative cache. Over real HTTP, tests/integration/auth-security.test.ts shows the flood reaches no upstream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";

const dataDir = mkdtempSync(path.join(tmpdir(), "auth-flood-"));
Object.assign(process.env, {
  DATABASE_URL: `file:${path.join(dataDir, "unused.db")}`,
  GATEWAY_DATA_DIR: dataDir,
  GATEWAY_SECRET: "a-test-secret-of-at-least-thirty-two-characters",
  GATEWAY_MASTER_KEY: "master-key-for-the-flood-test",
  GATEWAY_LOG: "silent",
});

const { setSingleton } = await import("@/lib/platform/singleton");
const { gatewayRoute } = await import("@/lib/gateway/pipeline");
const { requireAdmin } = await import("@/lib/auth/admin");

let lookups = 0;
// Only the key lookup may run on this path; any other database call fails the test loudly.
const database = new Proxy(
  {
    apiKey: {
      findUnique: async () => {
        lookups++;
        await new Promise((resolve) => setTimeout(resolve, 1));
        return null;
      },
    },
  },
  {
    get(target, property) {
      if (property in target) return target[property as keyof typeof target];
      if (property === "then") return undefined;
      throw new Error(`unexpected database access: ${String(property)}`);
    },
  },
);
setSingleton("db.prisma", database);

let handled = 0;
const chat = gatewayRoute({ endpoint: "/v1/chat/completions", dialect: "openai", scheme: "bearer" }, async () => {
  handled++;
  return new Response("{}");
});

const wellFormed = () =>
  `sk-${randomBytes(36)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 48)
    .padEnd(48, "a")}`;

const MALFORMED = (index: number): string =>
  [
    "' OR 1=1--",
    `sk-${"a".repeat(10)}`,
    `sk-${"b".repeat(101)}`,
    `sk- ${"c".repeat(48)}`,
    `sk-${"d".repeat(24)} ${"e".repeat(24)}`,
    `sk-${"é".repeat(30)}`,
    `sk-${"f".repeat(40)};DROP TABLE "ApiKey"`,
    `pk-${"g".repeat(48)}`,
    `${"h".repeat(60_000)}`,
    `sk-${index}`,
  ][index % 10]!;

async function call(key: string): Promise<number> {
  const response = await chat(
    new Request("http://gateway/v1/chat/completions", { method: "POST", headers: { authorization: `Bearer ${key}` }, body: "{}" }),
  );
  return response.status;
}

test("1,000 malformed keys: 401 each, no database lookup, nothing handled", async () => {
  const before = lookups;
  const statuses = await Promise.all(Array.from({ length: 1000 }, (_, index) => call(MALFORMED(index))));
  assert.deepEqual([...new Set(statuses)], [401]);
  assert.equal(lookups - before, 0, "refused by shape before any lookup");
  assert.equal(handled, 0);
});

test("1,000 distinct unknown well-formed keys, each sent twice at once and once more later: exactly one lookup per key", async () => {
  const keys = Array.from({ length: 1000 }, wellFormed);
  const before = lookups;
  const statuses = await Promise.all([...keys, ...keys].map(call));
  assert.deepEqual([...new Set(statuses)], [401]);
  assert.equal(lookups - before, 1000, "concurrent requests for one key share one lookup");
  const again = await Promise.all(keys.map(call));
  assert.deepEqual([...new Set(again)], [401]);
  assert.equal(lookups - before, 1000, "repeats within the negative cache's 5 s cost nothing");
  assert.equal(handled, 0, "no request reached a handler (so none reached an upstream)");
});

test("the operator API: malformed tokens cost no lookup, unknown sk- keys one each", async () => {
  const request = (token: string) => new Request("http://gateway/api/admin/users", { headers: { authorization: `Bearer ${token}` } });
  const before = lookups;
  for (let index = 0; index < 300; index++) {
    await assert.rejects(requireAdmin(request(MALFORMED(index).replace(/\s/g, "_"))), (error: { status?: number }) => error.status === 401);
  }
  assert.equal(lookups - before, 0);
  const keys = Array.from({ length: 300 }, wellFormed);
  for (const key of [...keys, ...keys])
    await assert.rejects(requireAdmin(request(key)), (error: { status?: number }) => error.status === 401);
  assert.equal(lookups - before, 300);
});
