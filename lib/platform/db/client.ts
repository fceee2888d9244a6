// Prisma client factory: SQLite (better-sqlite3) or PostgreSQL (pg) by DATABASE_URL, through driver adapters
// (Prisma 6.19's engine-less mode: no native engine to download).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { userInfo } from "node:os";
import pg from "pg";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { env } from "@/lib/platform/env";
import { singleton } from "@/lib/platform/singleton";

/** Both generated clients have the same models; the SQLite one names the shared type. */
export type Database = SqliteClient;
export type { Prisma } from "@/lib/generated/sqlite/client";

/** Like psql, a URL without a user name connects as the OS account (pg itself reads only $USER, often unset). */
export function postgresConfig(connectionString: string): pg.PoolConfig {
  const url = new URL(connectionString);
  // pg lets the parsed URL override an explicit `user` option, so the name goes into the URL itself.
  if (!url.username) url.username = process.env.PGUSER || process.env.USER || userInfo().username;
  return { connectionString: url.toString(), max: 10 };
}

export function pgPool(): pg.Pool {
  return singleton("db.pool", () => {
    const pool = new pg.Pool(postgresConfig(env().databaseUrl));
    // An idle client that loses its connection emits here; without a listener the process would crash.
    pool.on("error", (error) => console.error(JSON.stringify({ level: "error", msg: "postgres pool error", error: error.message })));
    return pool;
  });
}

export function db(): Database {
  return singleton("db.prisma", () => {
    const config = env();
    if (config.databaseKind === "sqlite") {
      mkdirSync(path.dirname(config.sqlitePath!), { recursive: true });
      const adapter = new PrismaBetterSQLite3({ url: `file:${config.sqlitePath}`, timeout: 10_000 });
      return new SqliteClient({ adapter });
    }
    const adapter = new PrismaPg(pgPool());
    return new PostgresClient({ adapter }) as unknown as Database;
  });
}
