-- AlterTable: a key's budget per calendar period and its address allowlists (lib/money/budget.ts, lib/keys/controls.ts).
ALTER TABLE "ApiKey" ADD COLUMN     "budget" BIGINT,
ADD COLUMN     "budgetPeriod" TEXT NOT NULL DEFAULT 'month',
ADD COLUMN     "budgetSpent" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "budgetPeriodStart" BIGINT,
ADD COLUMN     "budgetByOperator" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "allowedIps" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "operatorAllowedIps" JSONB NOT NULL DEFAULT '[]';

-- The start (epoch ms) of the calendar period in UTC that p_now (epoch ms) falls in: a day from 00:00, a week from
-- Monday 00:00 (date_trunc's week), a month from the 1st. lib/money/budget.ts computes the same in JavaScript.
CREATE OR REPLACE FUNCTION gateway_period_start(p_period TEXT, p_now BIGINT) RETURNS BIGINT AS $$
  SELECT (extract(epoch FROM date_trunc(
    CASE p_period WHEN 'day' THEN 'day' WHEN 'week' THEN 'week' ELSE 'month' END,
    to_timestamp(p_now / 1000.0) AT TIME ZONE 'UTC')) * 1000)::BIGINT;
$$ LANGUAGE sql IMMUTABLE;

-- Reservations as in 0003, with the key's budget checked first: a key with a budget counts the reservation against
-- what it spent this period (the counter starts over when a new period begins) and is refused with 'budget' when
-- that would pass the budget. 'budgeted' is 'ok' for a reservation that was counted, so its settlement gives the
-- unused part back to the counter too. Everything a refused reservation took is put back in the same transaction.
DROP FUNCTION IF EXISTS gateway_reserve_many(TEXT[], TEXT[], BIGINT[]);
CREATE OR REPLACE FUNCTION gateway_reserve_many(p_keys TEXT[], p_users TEXT[], p_amounts BIGINT[], p_now BIGINT DEFAULT NULL) RETURNS TEXT[] AS $$
DECLARE
  results TEXT[] := ARRAY[]::TEXT[];
  k RECORD;
  period_start BIGINT;
  spent BIGINT;
  budgeted BOOLEAN;
  i INTEGER;
BEGIN
  p_now := coalesce(p_now, (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT);
  PERFORM 1 FROM "ApiKey" WHERE "id" = ANY(p_keys) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "User" WHERE "id" = ANY(p_users) ORDER BY "id" FOR UPDATE;
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    SELECT "unlimited", "budget", "budgetPeriod", "budgetSpent", "budgetPeriodStart" INTO k FROM "ApiKey" WHERE "id" = p_keys[i];
    IF NOT FOUND THEN
      results := results || 'missing'::TEXT;
      CONTINUE;
    END IF;
    budgeted := k."budget" IS NOT NULL;
    IF budgeted THEN
      period_start := gateway_period_start(k."budgetPeriod", p_now);
      IF k."budgetPeriodStart" IS NULL OR k."budgetPeriodStart" < period_start THEN
        spent := 0;
        UPDATE "ApiKey" SET "budgetSpent" = 0, "budgetPeriodStart" = period_start WHERE "id" = p_keys[i];
      ELSE
        spent := k."budgetSpent";
      END IF;
      IF spent + p_amounts[i] > k."budget" THEN
        results := results || 'budget'::TEXT;
        CONTINUE;
      END IF;
      UPDATE "ApiKey" SET "budgetSpent" = "budgetSpent" + p_amounts[i] WHERE "id" = p_keys[i];
    END IF;
    IF NOT k."unlimited" THEN
      UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" - p_amounts[i]
        WHERE "id" = p_keys[i] AND "quotaRemaining" >= p_amounts[i];
      IF NOT FOUND THEN
        IF budgeted THEN
          UPDATE "ApiKey" SET "budgetSpent" = "budgetSpent" - p_amounts[i] WHERE "id" = p_keys[i];
        END IF;
        results := results || 'key_quota'::TEXT;
        CONTINUE;
      END IF;
    END IF;
    UPDATE "User" SET "balance" = "balance" - p_amounts[i] WHERE "id" = p_users[i] AND "balance" >= p_amounts[i];
    IF NOT FOUND THEN
      UPDATE "ApiKey" SET
        "quotaRemaining" = CASE WHEN k."unlimited" THEN "quotaRemaining" ELSE "quotaRemaining" + p_amounts[i] END,
        "budgetSpent" = CASE WHEN budgeted THEN "budgetSpent" - p_amounts[i] ELSE "budgetSpent" END
        WHERE "id" = p_keys[i];
      results := results || 'balance'::TEXT;
      CONTINUE;
    END IF;
    results := results || (CASE WHEN budgeted THEN 'budgeted' ELSE 'ok' END)::TEXT;
  END LOOP;
  RETURN results;
END;
$$ LANGUAGE plpgsql;

-- Settlements as in 0007, and the budget counters: p_budget_keys, p_budget_at (when each counted reservation was
-- made, epoch ms) and p_budget_deltas (what goes back to the counter: the reservation less the cost, negative when an
-- upstream billed past it). A reservation made before the key's counter last started over (a new period, a new
-- budget) is not given back to the new count.
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
