-- Reserve an amount against a key's quota and its owner's balance in one atomic call (architecture decision 3).
-- One round trip from the gateway; both rows change together or neither does.
-- Returns 'ok', 'missing', 'key_quota' or 'balance'.
CREATE OR REPLACE FUNCTION gateway_reserve(p_key TEXT, p_user TEXT, p_amount BIGINT) RETURNS TEXT AS $$
DECLARE
  key_unlimited BOOLEAN;
BEGIN
  SELECT "unlimited" INTO key_unlimited FROM "ApiKey" WHERE "id" = p_key;
  IF NOT FOUND THEN
    RETURN 'missing';
  END IF;
  IF NOT key_unlimited THEN
    UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" - p_amount
      WHERE "id" = p_key AND "quotaRemaining" >= p_amount;
    IF NOT FOUND THEN
      RETURN 'key_quota';
    END IF;
  END IF;
  UPDATE "User" SET "balance" = "balance" - p_amount WHERE "id" = p_user AND "balance" >= p_amount;
  IF NOT FOUND THEN
    -- Undo the key's part inside the same transaction: nobody ever sees the half-done state.
    IF NOT key_unlimited THEN
      UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" + p_amount WHERE "id" = p_key;
    END IF;
    RETURN 'balance';
  END IF;
  RETURN 'ok';
END;
$$ LANGUAGE plpgsql;
