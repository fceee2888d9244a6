// Applies prisma/migrations/<provider>/*/migration.sql in order and records them in "_gateway_migrations".
// A small runner of our own: `prisma migrate deploy` fails through the PostgreSQL adapter (docs/decisions/0023-prisma-6-on-webassembly.md), and
// running the same code for both providers keeps start-up identical. Concurrent starts of several instances on
// one PostgreSQL serialise on an advisory lock.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import Sqlite from "better-sqlite3";
import type pg from "pg";

const TABLE = `CREATE TABLE IF NOT EXISTS "_gateway_migrations" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`;
const LOCK_ID = 724_011_901;

function migrationsIn(folder: string): { name: string; sql: string }[] {
  if (!existsSync(folder)) throw new Error(`Migrations folder ${folder} is missing`);
  return readdirSync(folder)
    .filter((name) => existsSync(path.join(folder, name, "migration.sql")))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(folder, name, "migration.sql"), "utf8") }));
}

export function migrationsFolder(kind: "sqlite" | "postgres"): string {
  return path.resolve(process.cwd(), "prisma", "migrations", kind);
}

export function migrateSqlite(file: string, folder = migrationsFolder("sqlite")): string[] {
  const database = new Sqlite(file, { timeout: 10_000 });
  try {
    database.pragma("journal_mode = WAL");
    database.exec(TABLE);
    const applied = new Set(database.prepare(`SELECT "name" FROM "_gateway_migrations"`).pluck().all() as string[]);
    const done: string[] = [];
    for (const migration of migrationsIn(folder)) {
      if (applied.has(migration.name)) continue;
      database
        .transaction(() => {
          database.exec(migration.sql);
          database
            .prepare(`INSERT INTO "_gateway_migrations" ("name", "appliedAt") VALUES (?, ?)`)
            .run(migration.name, new Date().toISOString());
        })
        .immediate();
      done.push(migration.name);
    }
    return done;
  } finally {
    database.close();
  }
}

export async function migratePostgres(pool: pg.Pool, folder = migrationsFolder("postgres")): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_ID]);
    await client.query(TABLE);
    const { rows } = await client.query<{ name: string }>(`SELECT "name" FROM "_gateway_migrations"`);
    const applied = new Set(rows.map((row) => row.name));
    const done: string[] = [];
    for (const migration of migrationsIn(folder)) {
      if (applied.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO "_gateway_migrations" ("name", "appliedAt") VALUES ($1, $2)`, [
          migration.name,
          new Date().toISOString(),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`);
      }
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]).catch(() => undefined);
    client.release();
  }
}
