// Direct SQL on a test gateway's database (SQLite file or PostgreSQL), for what no API does on purpose: ageing a
// reset token, inserting ledger rows, checking what is stored. `?` placeholders work on both.
import Sqlite from "better-sqlite3";
import pg from "pg";
import { postgresConfig } from "@/lib/platform/db/client";

export type Query = (sql: string, params?: unknown[]) => Promise<any[]>;

/** Prisma's SQLite adapter stores DateTime as ISO 8601 text with an explicit +00:00 offset. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

export async function withDatabase<T>(databaseUrl: string, work: (query: Query) => Promise<T>): Promise<T> {
  if (databaseUrl.startsWith("file:")) {
    const database = new Sqlite(databaseUrl.slice("file:".length), { timeout: 10_000 });
    try {
      return await work(async (sql, params = []) => {
        const statement = database.prepare(sql);
        const values = params.map(sqliteValue);
        if (statement.reader) return statement.all(...values);
        statement.run(...values);
        return [];
      });
    } finally {
      database.close();
    }
  }
  const client = new pg.Client(postgresConfig(databaseUrl));
  await client.connect();
  try {
    return await work(async (sql, params = []) => {
      let index = 0;
      const text = sql.replace(/\?/g, () => `$${++index}`);
      return (await client.query(text, params)).rows;
    });
  } finally {
    await client.end();
  }
}
