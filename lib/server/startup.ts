// What every start does before serving: apply migrations, seed an empty database once.
import { env } from "@/lib/platform/env";
import { db, pgPool } from "@/lib/platform/db/client";
import { migratePostgres, migrateSqlite } from "@/lib/platform/db/migrate";
import { seed } from "./seed";
import { BACKUP_HASH_PREFIX, wrapBackupHash } from "@/lib/accounts/backup-codes";
import { log } from "@/lib/platform/log";

const SEED_LOCK_ID = 724_011_902;

export async function prepareDatabase(): Promise<void> {
  const config = env();
  const applied = config.databaseKind === "sqlite" ? migrateSqlite(config.sqlitePath!) : await migratePostgres(pgPool());
  if (applied.length) log.info("migrations applied", { migrations: applied, database: config.databaseKind });

  const run = () => seed(db(), { adminEmail: config.GATEWAY_ADMIN_EMAIL, adminPassword: config.GATEWAY_ADMIN_PASSWORD });
  let result: Awaited<ReturnType<typeof seed>>;
  if (config.databaseKind === "postgres") {
    // Several instances may start at once on one PostgreSQL: one seeds, the others then find the marker.
    const client = await pgPool().connect();
    try {
      await client.query("SELECT pg_advisory_lock($1)", [SEED_LOCK_ID]);
      result = await run();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [SEED_LOCK_ID]).catch(() => undefined);
      client.release();
    }
  } else {
    result = await run();
  }
  const wrapped = await wrapLegacyBackupCodes();
  if (wrapped) log.info("backup codes stored with the gateway secret's HMAC", { codes: wrapped });
  if (result.upgraded) {
    log.info("seeded prices updated", { models: result.upgraded.updated });
    if (result.upgraded.keptEdited.length)
      log.warn("seeded prices left as the operator edited them; compare with the new defaults in lib/server/seed.ts", {
        models: result.upgraded.keptEdited,
      });
  }
  if (result.seeded && result.admin) {
    log.info("database seeded", { admin: result.admin.email });
    if (result.admin.generated) {
      // Printed once, on the first start only: the password is not stored anywhere in plain text.
      process.stdout.write(
        `\n  First admin account created:\n    email:    ${result.admin.email}\n    password: ${result.admin.password}\n` +
          `  Keep it now; it is not shown again (set GATEWAY_ADMIN_EMAIL / GATEWAY_ADMIN_PASSWORD to choose your own).\n\n`,
      );
    }
  }
}

/** Rows written before backup codes were keyed with the secret: wrapped in place (idempotent, lib/accounts/backup-codes.ts). */
async function wrapLegacyBackupCodes(): Promise<number> {
  const legacy = await db().backupCode.findMany({
    where: { NOT: { codeHash: { startsWith: BACKUP_HASH_PREFIX } } },
    select: { id: true, codeHash: true },
  });
  for (const row of legacy) {
    await db().backupCode.updateMany({
      where: { id: row.id, codeHash: row.codeHash },
      data: { codeHash: wrapBackupHash(row.codeHash, env().secret) },
    });
  }
  return legacy.length;
}
