// Keys made before the owner's pause and the operator's limits were apart (prisma/migrations/*/0009_key_operator_controls):
// a database migrated up to the step before, with keys written as the old code wrote them, then started on the
// current code. A key disabled then stays disabled by the operator (the owner cannot resume it), and every key's
// quota and expiry count as the operator's (the safe reading: the old schema cannot say who set them). Both databases.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { hashPassword } from "@/lib/accounts/password";
import { newApiKey } from "@/lib/keys/format";
import { postgresConfig } from "@/lib/platform/db/client";
import { migratePostgres, migrateSqlite, migrationsFolder } from "@/lib/platform/db/migrate";
import { createPostgresDatabase, postgresAvailable, startGateway, stopAllGateways } from "../helpers/gateway";
import { withDatabase } from "../helpers/database";
import { signedIn } from "../helpers/user-api";

const drops: (() => Promise<void>)[] = [];
after(async () => {
  await stopAllGateways();
  for (const drop of drops) await drop();
});

/** A folder with every migration before 0009, as a database upgraded from the previous release has them. */
function migrationsBefore(kind: "sqlite" | "postgres"): string {
  const folder = mkdtempSync(path.join(tmpdir(), `migrations-${kind}-`));
  for (const name of readdirSync(migrationsFolder(kind)))
    if (name < "0009") symlinkSync(path.join(migrationsFolder(kind), name), path.join(folder, name));
  return folder;
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`keys from before 0009_key_operator_controls, on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    test("a disabled key stays the operator's to enable; quotas and expiries count as the operator's; the playground's key does not", {
      skip,
    }, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-keys-0009-"));
      let databaseUrl = `file:${path.join(dataDir, "gateway.db")}`;
      if (database === "sqlite") migrateSqlite(databaseUrl.slice("file:".length), migrationsBefore("sqlite"));
      else {
        const created = await createPostgresDatabase();
        drops.push(created.drop);
        databaseUrl = created.url;
        const pool = new pg.Pool(postgresConfig(databaseUrl));
        await migratePostgres(pool, migrationsBefore("postgres"));
        await pool.end();
      }

      const email = "before-0009@example.com";
      const password = "user-password-123";
      const expiry = new Date(Date.now() + 10 * 86_400_000);
      const keys = { disabled: newApiKey(), dated: newApiKey(), playground: newApiKey() };
      await withDatabase(databaseUrl, async (query) => {
        const now = new Date();
        await query(`INSERT INTO "User" ("id", "email", "passwordHash", "balance", "updatedAt") VALUES (?, ?, ?, ?, ?)`, [
          "old-user",
          email,
          await hashPassword(password),
          50_000_000,
          now,
        ]);
        const insert = `INSERT INTO "ApiKey" ("id", "keyHash", "prefix", "userId", "quotaRemaining", "unlimited", "expiresAt", "status", "purpose", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
        await query(insert, [
          "old-disabled",
          keys.disabled.hash,
          keys.disabled.prefix,
          "old-user",
          5_000_000,
          false,
          null,
          "disabled",
          "",
          now,
        ]);
        await query(insert, ["old-dated", keys.dated.hash, keys.dated.prefix, "old-user", 5_000_000, false, expiry, "active", "", now]);
        await query(insert, [
          "old-playground",
          keys.playground.hash,
          keys.playground.prefix,
          "old-user",
          0,
          true,
          null,
          "active",
          "playground",
          now,
        ]);
      });

      const gateway = await startGateway({ database, databaseUrl, dataDir, portal: true });
      const browser = await signedIn(gateway.url, email, password);
      const listed = (await browser.call("GET", "/api/user/keys")).body.data as Record<string, unknown>[];
      const byId = new Map(listed.map((key) => [key.id, key]));
      const pick = (id: string) => {
        const key = byId.get(id)!;
        return [key.status, key.disabledByOperator, key.pausedByOwner, key.quotaByOperator, key.operatorExpiresAt];
      };
      assert.deepEqual(pick("old-disabled"), ["disabled", true, false, true, null]);
      assert.deepEqual(pick("old-dated"), ["active", false, false, true, expiry.toISOString()]);
      assert.deepEqual(pick("old-playground"), ["active", false, false, false, null]);

      const resume = await browser.call("PATCH", "/api/user/keys/old-disabled", { status: "active" });
      assert.equal(resume.status, 403, "the owner cannot resume a key disabled before the upgrade");
      const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.disabled.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(refused.status, 401);
      await refused.text();
      assert.equal((await browser.call("PATCH", "/api/user/keys/old-dated", { expiresAt: null })).status, 403);
      assert.equal((await browser.call("PATCH", "/api/user/keys/old-dated", { quota: 6_000_000 })).status, 403);
      assert.equal((await browser.call("PATCH", "/api/user/keys/old-dated", { quota: 4_000_000 })).status, 200);
      await gateway.admin("PATCH", "/api/admin/keys/old-disabled", { status: "active" });
      const served = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.disabled.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(served.status, 200, "the operator enables it");
      await served.text();
    });
  });
}
