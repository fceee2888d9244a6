-- Several reservations in one round trip (issue 9): the gateway gathers the reservations that arrive together and
-- sends them as arrays; each element is still all-or-nothing on its own (key and owner move together or neither),
-- evaluated in the order given, and answered at its index with 'ok', 'missing', 'key_quota' or 'balance'.
-- Lock order is the settlement's (lib/billing/store.ts): every key of the call by id, then every user by id, so a
-- batch can deadlock neither with another batch nor with a settlement.
CREATE OR REPLACE FUNCTION gateway_reserve_many(p_keys TEXT[], p_users TEXT[], p_amounts BIGINT[]) RETURNS TEXT[] AS $$
DECLARE
  results TEXT[] := ARRAY[]::TEXT[];
  key_unlimited BOOLEAN;
  i INTEGER;
BEGIN
  PERFORM 1 FROM "ApiKey" WHERE "id" = ANY(p_keys) ORDER BY "id" FOR UPDATE;
  PERFORM 1 FROM "User" WHERE "id" = ANY(p_users) ORDER BY "id" FOR UPDATE;
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    SELECT "unlimited" INTO key_unlimited FROM "ApiKey" WHERE "id" = p_keys[i];
    IF NOT FOUND THEN
      results := results || 'missing'::TEXT;
      CONTINUE;
    END IF;
    IF NOT key_unlimited THEN
      UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" - p_amounts[i]
        WHERE "id" = p_keys[i] AND "quotaRemaining" >= p_amounts[i];
      IF NOT FOUND THEN
        results := results || 'key_quota'::TEXT;
        CONTINUE;
      END IF;
    END IF;
    UPDATE "User" SET "balance" = "balance" - p_amounts[i] WHERE "id" = p_users[i] AND "balance" >= p_amounts[i];
    IF NOT FOUND THEN
      IF NOT key_unlimited THEN
        UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" + p_amounts[i] WHERE "id" = p_keys[i];
      END IF;
      results := results || 'balance'::TEXT;
      CONTINUE;
    END IF;
    results := results || 'ok'::TEXT;
  END LOOP;
  RETURN results;
END;
$$ LANGUAGE plpgsql;
