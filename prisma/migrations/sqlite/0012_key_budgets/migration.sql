-- AlterTable: a key's budget per calendar period and its address allowlists (lib/money/budget.ts, lib/keys/controls.ts).
-- SQLite reserves and settles in lib/money/store.ts inside one transaction: no stored function to change here.
ALTER TABLE "ApiKey" ADD COLUMN "budget" BIGINT;
ALTER TABLE "ApiKey" ADD COLUMN "budgetPeriod" TEXT NOT NULL DEFAULT 'month';
ALTER TABLE "ApiKey" ADD COLUMN "budgetSpent" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "ApiKey" ADD COLUMN "budgetPeriodStart" BIGINT;
ALTER TABLE "ApiKey" ADD COLUMN "budgetByOperator" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "ApiKey" ADD COLUMN "allowedIps" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "ApiKey" ADD COLUMN "operatorAllowedIps" JSONB NOT NULL DEFAULT '[]';
