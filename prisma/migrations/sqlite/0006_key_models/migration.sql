-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "keyHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "userId" TEXT NOT NULL,
    "group" TEXT NOT NULL DEFAULT 'default',
    "quotaRemaining" BIGINT NOT NULL DEFAULT 0,
    "unlimited" BOOLEAN NOT NULL DEFAULT false,
    "expiresAt" DATETIME,
    "status" TEXT NOT NULL DEFAULT 'active',
    "rateLimitPerMinute" INTEGER,
    "purpose" TEXT NOT NULL DEFAULT '',
    "models" JSONB NOT NULL DEFAULT '[]',
    "deletedAt" DATETIME,
    "lastUsedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ApiKey" ("createdAt", "deletedAt", "expiresAt", "group", "id", "keyHash", "lastUsedAt", "name", "prefix", "purpose", "quotaRemaining", "rateLimitPerMinute", "status", "unlimited", "updatedAt", "userId") SELECT "createdAt", "deletedAt", "expiresAt", "group", "id", "keyHash", "lastUsedAt", "name", "prefix", "purpose", "quotaRemaining", "rateLimitPerMinute", "status", "unlimited", "updatedAt", "userId" FROM "ApiKey";
DROP TABLE "ApiKey";
ALTER TABLE "new_ApiKey" RENAME TO "ApiKey";
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");
CREATE INDEX "ApiKey_userId_idx" ON "ApiKey"("userId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

