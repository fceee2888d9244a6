-- AlterTable: the owner's pause and the operator's limits, apart from the operator's switch ("status").
-- Plain ADD COLUMNs: the new columns need no place of their own in the table, so it is not rebuilt.
ALTER TABLE "ApiKey" ADD COLUMN "pausedByOwner" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "ApiKey" ADD COLUMN "quotaByOperator" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "ApiKey" ADD COLUMN "operatorExpiresAt" DATETIME;

-- Data: who stopped or limited the keys that exist today. The old schema had one status for the operator's switch
-- and the owner's pause, and one set of limits for both. The audit trail (AuditLog) cannot tell them apart: its rows
-- say that an operator changed a key, not which fields, and keys changed before the trail existed (0005) have no rows
-- at all, so it could only ever confirm an operator, never rule one out. The safe reading is taken: "status" keeps
-- its value and is now the operator's switch, so a key disabled today stays disabled until an operator enables it
-- (the owner's pause starts off); every key's quota counts as set by the operator (the owner may lower it, not raise
-- it) and its expiry, if any, as the operator's (the owner may bring it forward, not push it back or remove it).
-- An owner who had paused a key asks the operator to enable it, or makes a new key; the other reading would let an
-- owner undo an operator's disable. The playground's own keys are the server's, not the operator's.
UPDATE "ApiKey" SET "quotaByOperator" = true, "operatorExpiresAt" = "expiresAt" WHERE "purpose" <> 'playground';
