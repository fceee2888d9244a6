// Backup codes written before they were keyed with the gateway secret (plain SHA-256; SECURITY.md) are wrapped at
// start-up, so they keep working and a database dump alone no longer checks a guess. Both databases.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { hashBackupCode } from "@/lib/accounts/backup-codes";
import { postgresAvailable, startGateway, stopAllGateways } from "../helpers/gateway";
import { withDatabase } from "../helpers/database";

after(() => stopAllGateways());

for (const database of ["sqlite", "postgres"] as const) {
  describe(`backup codes from before the keyed hash, on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    test("a legacy SHA-256 row is wrapped with the secret at the next start and matches the code; a second start changes nothing", {
      skip,
    }, async () => {
      const secret = randomBytes(24).toString("hex");
      const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-backup-"));
      const first = await startGateway({ database, dataDir, env: { GATEWAY_SECRET: secret } });
      const legacy = createHash("sha256").update("abcdefghjkmn").digest("hex");
      await withDatabase(first.databaseUrl, async (query) => {
        const [admin] = await query(`SELECT "id" FROM "User" WHERE "email" = ?`, ["admin@example.com"]);
        await query(`INSERT INTO "BackupCode" ("id", "userId", "codeHash", "createdAt") VALUES (?, ?, ?, ?)`, [
          "legacy-code",
          admin.id,
          legacy,
          new Date(),
        ]);
      });
      const keep = { databaseUrl: first.databaseUrl, dataDir, env: { GATEWAY_SECRET: secret } };
      await first.process.kill("SIGTERM");
      await new Promise((resolve) => first.process.once("exit", resolve));
      const second = await startGateway({ database, ...keep });
      const stored = await withDatabase(
        second.databaseUrl,
        async (query) => (await query(`SELECT "codeHash" FROM "BackupCode" WHERE "id" = ?`, ["legacy-code"]))[0].codeHash as string,
      );
      assert.notEqual(stored, legacy, "no plain SHA-256 is left");
      assert.equal(stored, hashBackupCode("abcd-efgh-jkmn", secret), "the code still matches");
      second.process.kill("SIGTERM");
      await new Promise((resolve) => second.process.once("exit", resolve));
      const third = await startGateway({ database, ...keep });
      const again = await withDatabase(
        third.databaseUrl,
        async (query) => (await query(`SELECT "codeHash" FROM "BackupCode" WHERE "id" = ?`, ["legacy-code"]))[0].codeHash as string,
      );
      assert.equal(again, stored, "wrapping is done once");
    });
  });
}
