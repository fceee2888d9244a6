// Prisma CLI configuration: the WebAssembly engine only (no native engine download; see docs/decisions/0023-prisma-6-on-webassembly.md).
// Two schemas exist (one per provider); scripts pass --schema explicitly.
import { defineConfig } from "prisma/config";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/sqlite/schema.prisma",
  async adapter() {
    const { PrismaBetterSQLite3 } = await import("@prisma/adapter-better-sqlite3");
    return new PrismaBetterSQLite3({ url: "file:./data/prisma-cli.db" });
  },
});
