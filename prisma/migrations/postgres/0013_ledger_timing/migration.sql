-- AlterTable
ALTER TABLE "UsageLog" ADD COLUMN      "queueMs" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "UsageLog" ADD COLUMN      "firstByteMs" INTEGER NOT NULL DEFAULT 0;

-- gateway_settle_many (0012: settlements and the budget counters) lists the ledger's columns: the same function with
-- the two new ones. The six-argument form of 0007 is dropped first, should an earlier build of this migration have
-- made it, so that a call is never ambiguous between two overloads.
DROP FUNCTION IF EXISTS gateway_settle_many(TEXT[], BIGINT[], TEXT[], TEXT[], BIGINT[], JSONB);
CREATE OR REPLACE FUNCTION gateway_settle_many(
  p_key_ids TEXT[],
  p_key_deltas BIGINT[],
  p_key_touched TEXT[],
  p_user_ids TEXT[],
  p_user_deltas BIGINT[],
  p_rows JSONB,
  p_budget_keys TEXT[] DEFAULT '{}',
  p_budget_at BIGINT[] DEFAULT '{}',
  p_budget_deltas BIGINT[] DEFAULT '{}'
) RETURNS VOID AS $$
BEGIN
  PERFORM 1 FROM "ApiKey" WHERE "id" = ANY(p_key_ids) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "User" WHERE "id" = ANY(p_user_ids) ORDER BY "id" FOR UPDATE;
  UPDATE "ApiKey" AS k
    SET "quotaRemaining" = k."quotaRemaining" + d.delta,
        "lastUsedAt" = COALESCE(d.touched::TIMESTAMP(3), k."lastUsedAt")
    FROM unnest(p_key_ids, p_key_deltas, p_key_touched) AS d(id, delta, touched)
    WHERE k."id" = d.id AND (d.delta <> 0 OR d.touched IS NOT NULL);
  UPDATE "ApiKey" AS k
    SET "budgetSpent" = GREATEST(0, k."budgetSpent" - s.total)
    FROM (
      SELECT d.id, sum(d.delta)::BIGINT AS total
      FROM unnest(p_budget_keys, p_budget_at, p_budget_deltas) AS d(id, at, delta)
      JOIN "ApiKey" AS b ON b."id" = d.id
      WHERE b."budget" IS NOT NULL AND b."budgetPeriodStart" IS NOT NULL AND b."budgetPeriodStart" <= d.at
      GROUP BY d.id
    ) AS s
    WHERE k."id" = s.id AND s.total <> 0;
  UPDATE "User" AS u
    SET "balance" = u."balance" + d.delta
    FROM unnest(p_user_ids, p_user_deltas) AS d(id, delta)
    WHERE u."id" = d.id AND d.delta <> 0;
  INSERT INTO "UsageLog" (
    "id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "channelId", "channelName",
    "textInputTokens", "textOutputTokens", "imageInputTokens", "imageOutputTokens", "cacheReadTokens", "cacheWriteTokens",
    "reserved", "cost", "overReservation", "priceVersion", "status", "httpStatus", "error", "latencyMs", "queueMs", "firstByteMs", "stream",
    "detail", "createdAt"
  )
  SELECT
    "id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "channelId", "channelName",
    "textInputTokens", "textOutputTokens", "imageInputTokens", "imageOutputTokens", "cacheReadTokens", "cacheWriteTokens",
    "reserved", "cost", "overReservation", "priceVersion", "status", "httpStatus", "error", "latencyMs", "queueMs", "firstByteMs", "stream",
    "detail", "createdAt"
  FROM jsonb_populate_recordset(NULL::"UsageLog", p_rows);
END;
$$ LANGUAGE plpgsql;
