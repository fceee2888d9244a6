-- A batch of settlements in one round trip (issue 18): the gateway computes what each key and user gets back (or
-- pays beyond its reservation) and the ledger rows, then sends them as arrays and one JSON array of rows. Before,
-- the same transaction took seven round trips (BEGIN, two locks, the updates, the insert, COMMIT), and on PostgreSQL
-- those settled batches competed with the next requests for the event loop.
-- Lock order is the reservation's (0003): every key of the batch by id, then every user by id.
-- The ledger columns are listed here as lib/money/store.ts writes them (LEDGER_COLUMNS); a new column needs both.
CREATE OR REPLACE FUNCTION gateway_settle_many(
  p_key_ids TEXT[],
  p_key_deltas BIGINT[],
  p_key_touched TEXT[],
  p_user_ids TEXT[],
  p_user_deltas BIGINT[],
  p_rows JSONB
) RETURNS VOID AS $$
BEGIN
  PERFORM 1 FROM "ApiKey" WHERE "id" = ANY(p_key_ids) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "User" WHERE "id" = ANY(p_user_ids) ORDER BY "id" FOR UPDATE;
  UPDATE "ApiKey" AS k
    SET "quotaRemaining" = k."quotaRemaining" + d.delta,
        "lastUsedAt" = COALESCE(d.touched::TIMESTAMP(3), k."lastUsedAt")
    FROM unnest(p_key_ids, p_key_deltas, p_key_touched) AS d(id, delta, touched)
    WHERE k."id" = d.id AND (d.delta <> 0 OR d.touched IS NOT NULL);
  UPDATE "User" AS u
    SET "balance" = u."balance" + d.delta
    FROM unnest(p_user_ids, p_user_deltas) AS d(id, delta)
    WHERE u."id" = d.id AND d.delta <> 0;
  INSERT INTO "UsageLog" (
    "id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "channelId", "channelName",
    "textInputTokens", "textOutputTokens", "imageInputTokens", "imageOutputTokens", "cacheReadTokens", "cacheWriteTokens",
    "reserved", "cost", "overReservation", "priceVersion", "status", "httpStatus", "error", "latencyMs", "stream",
    "detail", "createdAt"
  )
  SELECT
    "id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "channelId", "channelName",
    "textInputTokens", "textOutputTokens", "imageInputTokens", "imageOutputTokens", "cacheReadTokens", "cacheWriteTokens",
    "reserved", "cost", "overReservation", "priceVersion", "status", "httpStatus", "error", "latencyMs", "stream",
    "detail", "createdAt"
  FROM jsonb_populate_recordset(NULL::"UsageLog", p_rows);
END;
$$ LANGUAGE plpgsql;
