-- Settlements the ledger writer could not write even in a reduced form (lib/money/ledger.ts; docs/billing.md,
-- "The ledger writer"): kept with the database's answer for an operator, never retried by the gateway.
-- CreateTable
CREATE TABLE "LedgerDeadLetter" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "keyId" TEXT,
    "reserved" BIGINT,
    "cost" BIGINT,
    "moneyApplied" BOOLEAN NOT NULL,
    "settlement" TEXT NOT NULL,
    "error" TEXT NOT NULL,
    "errorCode" TEXT
);

-- CreateIndex
CREATE INDEX "LedgerDeadLetter_createdAt_idx" ON "LedgerDeadLetter"("createdAt");

