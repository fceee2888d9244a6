// Start-up: the first start seeds an admin, a channel, a group and prices; a restart on the same database keeps
// everything and seeds nothing twice; a seed step brings an older database's prices up to date except the rows an
// operator edited; a bad configuration stops the app with a message that names the variable.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import Sqlite from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPostgresDatabase, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { withDatabase } from "../helpers/database";

after(stopAllGateways);

describe("seeding and restarts", () => {
  test("a second start on the same database keeps all data and seeds nothing twice", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-restart-"));
    const first = await startGateway({ dataDir, env: { GATEWAY_ADMIN_PASSWORD: undefined, GATEWAY_ADMIN_EMAIL: undefined } });
    assert.match(first.output(), /First admin account created/);
    assert.match(first.output(), /email: +admin@localhost/);
    const before = {
      channels: (await first.admin("GET", "/api/admin/channels")).data,
      groups: (await first.admin("GET", "/api/admin/groups")).data,
      prices: (await first.admin("GET", "/api/admin/prices")).data,
    };
    assert.equal(before.channels.length, 1);
    assert.equal(before.channels[0].type, "simulator");
    assert.equal(before.groups.length, 1);
    assert.ok(before.groups[0].models.includes("msg-opus-4-6[1m]"));
    assert.equal(before.prices.length, 12);
    const user = await first.admin("POST", "/api/admin/users", { email: "keep@example.com", password: "keep-password-1", quota: 7 });
    await first.stop();

    const second = await startGateway({
      dataDir,
      databaseUrl: first.databaseUrl,
      env: { GATEWAY_ADMIN_PASSWORD: undefined, GATEWAY_ADMIN_EMAIL: undefined },
    });
    assert.doesNotMatch(second.output(), /First admin account created/);
    assert.equal((await second.admin("GET", "/api/admin/channels")).data.length, 1);
    assert.equal((await second.admin("GET", "/api/admin/groups")).data.length, 1);
    assert.equal((await second.admin("GET", "/api/admin/prices")).data.length, 12);
    const users = (await second.admin("GET", "/api/admin/users")).data as { id: string; balance: number }[];
    assert.equal(users.find((row) => row.id === user.id)?.balance, 7);
    assert.equal(users.length, 2, "one admin and the user, no second admin");
  });
});

describe("seed steps", () => {
  test("a database seeded at version 1 gets version 2's prices on the next start, except the rows an operator edited", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-seed-step-"));
    const first = await startGateway({ dataDir });
    const file = first.databaseUrl.slice("file:".length);
    await first.admin("POST", "/api/admin/prices", { model: "msg-opus-4-6", textInput: 4 });
    await first.stop();
    // Back to what version 1 left: flat [1m] prices, no caching or tiers, and the version-1 marker.
    const database = new Sqlite(file);
    database
      .prepare(
        `UPDATE "ModelPrice" SET "textInput" = 6, "textOutput" = 22.5, "tierThreshold" = NULL, "tierTextInput" = NULL, "tierTextOutput" = NULL, "cacheReadMultiplier" = 1, "toolPrices" = '{}' WHERE "model" = 'msg-sonnet-4-6[1m]'`,
      )
      .run();
    database.prepare(`UPDATE "Setting" SET "value" = '1' WHERE "key" = 'seed.version'`).run();
    database.close();

    const second = await startGateway({ dataDir, databaseUrl: first.databaseUrl, env: { GATEWAY_LOG: "info" } });
    const prices = (await second.admin("GET", "/api/admin/prices")).data as {
      model: string;
      textInput: number;
      textOutput: number;
      tierThreshold: number | null;
      tierTextInput: number | null;
      cacheReadMultiplier: number;
      toolPrices: Record<string, number>;
      editedByOperator: boolean;
    }[];
    const sonnet1m = prices.find((price) => price.model === "msg-sonnet-4-6[1m]")!;
    assert.deepEqual(
      [
        sonnet1m.textInput,
        sonnet1m.textOutput,
        sonnet1m.tierThreshold,
        sonnet1m.tierTextInput,
        sonnet1m.cacheReadMultiplier,
        sonnet1m.toolPrices.web_search,
      ],
      [3, 15, 200_000, 6, 0.1, 10_000],
    );
    const opus = prices.find((price) => price.model === "msg-opus-4-6")!;
    assert.deepEqual(
      [opus.textInput, opus.editedByOperator],
      [4, true],
      "the edited row is left as the operator set it (the default is 5)",
    );
    assert.match(second.output(), /seeded prices left as the operator edited them.*msg-opus-4-6/);
  });
});

for (const database of ["sqlite", "postgres"] as const) {
  describe(`seed step 4 on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;

    test("a database seeded at version 3 takes the image output price of $30 (was $32), unless the operator edited it", {
      skip,
      timeout: 120_000,
    }, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-seed-step-4-"));
      const created = database === "postgres" ? await createPostgresDatabase() : null;
      const databaseUrl = created?.url ?? `file:${path.join(dataDir, "gateway.db")}`;
      const imageOutput = async (gateway: Gateway) =>
        (
          (await gateway.admin("GET", "/api/admin/prices")).data as { model: string; imageOutput: number; editedByOperator: boolean }[]
        ).find((price) => price.model === "std-image-2")!;
      // Back to what version 3 left: the image output at $32 (editedByOperator as the operator left it).
      const toVersion3 = () =>
        withDatabase(databaseUrl, async (query) => {
          await query(`UPDATE "ModelPrice" SET "imageOutput" = 32 WHERE "model" = 'std-image-2'`);
          await query(`UPDATE "Setting" SET "value" = '3' WHERE "key" = 'seed.version'`);
        });
      try {
        const first = await startGateway({ database, databaseUrl, dataDir });
        assert.equal((await imageOutput(first)).imageOutput, 30, "a new database is seeded at $30");
        await first.stop();
        await toVersion3();

        const second = await startGateway({ database, databaseUrl, dataDir, env: { GATEWAY_LOG: "info" } });
        const updated = await imageOutput(second);
        assert.deepEqual([updated.imageOutput, updated.editedByOperator], [30, false], "the seeded row takes the new price");
        assert.match(second.output(), /seeded prices updated.*std-image-2/);
        await second.admin("POST", "/api/admin/prices", { model: "std-image-2", imageOutput: 31 });
        await second.stop();
        await toVersion3();

        const third = await startGateway({ database, databaseUrl, dataDir, env: { GATEWAY_LOG: "info" } });
        const edited = await imageOutput(third);
        assert.deepEqual([edited.imageOutput, edited.editedByOperator], [32, true], "the edited row is left as it was");
        assert.match(third.output(), /seeded prices left as the operator edited them.*std-image-2/);
        await third.stop();
      } finally {
        await created?.drop();
      }
    });

    test("a database seeded at version 4 gets the embedding, speech and transcription models: priced, in the default group and on the simulator", {
      skip,
      timeout: 120_000,
    }, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-seed-step-5-"));
      const created = database === "postgres" ? await createPostgresDatabase() : null;
      const databaseUrl = created?.url ?? `file:${path.join(dataDir, "gateway.db")}`;
      const added = ["std-embedding-3-small", "std-embedding-3-large", "std-tts-1", "std-transcribe-1"];
      try {
        const first = await startGateway({ database, databaseUrl, dataDir });
        await first.stop();
        // Back to what version 4 left: none of the four models anywhere.
        await withDatabase(databaseUrl, async (query) => {
          const list = added.map((model) => `'${model}'`).join(", ");
          await query(`DELETE FROM "ModelPrice" WHERE "model" IN (${list})`);
          await query(`UPDATE "Setting" SET "value" = '4' WHERE "key" = 'seed.version'`);
          const strip = (models: string) => JSON.stringify((JSON.parse(models) as string[]).filter((model) => !added.includes(model)));
          for (const table of ["Group", "Channel"]) {
            const rows = (await query(`SELECT "id", "models" FROM "${table}"`)) as { id: string; models: unknown }[];
            for (const row of rows) {
              const models = typeof row.models === "string" ? row.models : JSON.stringify(row.models);
              await query(`UPDATE "${table}" SET "models" = '${strip(models)}' WHERE "id" = '${row.id}'`);
            }
          }
        });
        const second = await startGateway({ database, databaseUrl, dataDir });
        const prices = (await second.admin("GET", "/api/admin/prices")).data as { model: string }[];
        const group = ((await second.admin("GET", "/api/admin/groups")).data as { name: string; models: string[] }[]).find(
          (row) => row.name === "default",
        )!;
        const simulator = ((await second.admin("GET", "/api/admin/channels")).data as { type: string; models: string[] }[]).find(
          (row) => row.type === "simulator",
        )!;
        for (const model of added) {
          assert.ok(
            prices.some((price) => price.model === model),
            `${model} is priced`,
          );
          assert.ok(group.models.includes(model), `${model} is in the default group`);
          assert.ok(simulator.models.includes(model), `${model} is served by the simulator`);
        }
        await second.stop();
      } finally {
        await created?.drop();
      }
    });
  });
}

describe("configuration errors stop the app with a clear message", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "eighty" }, /PORT: must be a number/],
    [{ PORT: "70000" }, /PORT: must be between 0 and 65535/],
    [{ DATABASE_URL: "mysql://localhost/db" }, /DATABASE_URL: must start with file:, postgres:\/\/ or postgresql:\/\//],
    [{ GATEWAY_SECRET: "short" }, /GATEWAY_SECRET: must be at least 32 characters/],
    [{ REDIS_URL: "http://localhost" }, /REDIS_URL: must start with redis:\/\//],
    [{ APP_URL: "not a url" }, /APP_URL/],
  ];
  for (const [variables, pattern] of cases) {
    test(`${Object.entries(variables)
      .map(([name, value]) => `${name}=${value}`)
      .join(" ")}`, () => {
      const result = spawnSync(process.execPath, ["--import", "tsx", "server.ts"], {
        env: {
          PATH: process.env.PATH,
          GATEWAY_DATA_DIR: "/tmp/gateway-config-test",
          GATEWAY_DISABLE_NEXT: "1",
          NODE_ENV: "production",
          ...variables,
        } as NodeJS.ProcessEnv,
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(result.status, 1);
      assert.match(result.stderr, pattern);
      assert.match(result.stderr, /did not start/);
    });
  }
});
