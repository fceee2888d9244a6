-- Written by hand instead of Prisma's table rebuild: SQLite adds columns with constant defaults in place, so a
-- large ledger is not copied. The result matches prisma/models.prisma (same columns, types and defaults).
ALTER TABLE "ModelPrice" ADD COLUMN "cacheReadMultiplier" REAL NOT NULL DEFAULT 1;
ALTER TABLE "ModelPrice" ADD COLUMN "cacheWriteMultiplier" REAL NOT NULL DEFAULT 1;
ALTER TABLE "ModelPrice" ADD COLUMN "cacheWrite1hMultiplier" REAL NOT NULL DEFAULT 1;
ALTER TABLE "ModelPrice" ADD COLUMN "tierThreshold" INTEGER;
ALTER TABLE "ModelPrice" ADD COLUMN "tierTextInput" REAL;
ALTER TABLE "ModelPrice" ADD COLUMN "tierTextOutput" REAL;
ALTER TABLE "ModelPrice" ADD COLUMN "toolPrices" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "ModelPrice" ADD COLUMN "editedByOperator" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "UsageLog" ADD COLUMN "cacheReadTokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "UsageLog" ADD COLUMN "cacheWriteTokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "UsageLog" ADD COLUMN "overReservation" BIGINT NOT NULL DEFAULT 0;
