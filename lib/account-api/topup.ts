// POST /api/user/topup: redeem a code for the signed-in user, or for the owner of the Bearer key.
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { moneyStore } from "@/lib/money/store";
import { redeemLookupHashes } from "@/lib/accounts/redeem-format";
import { addressCounter, countEvent, peekEvents } from "@/lib/accounts/throttle";
import { lockedError, sessionOrKeyRoute } from "./route";

/** Unknown redeem codes per user (and per address) per 15 minutes before topup answers 429. */
export const REDEEM_GUESSES = 10;
export const REDEEM_GUESSES_PER_ADDRESS = 30;

export const topupSchema = z.object({ key: z.string().trim().min(1, "is required").max(200, "is too long") });

const REDEEM_REFUSALS = {
  unknown: "This redeem code does not exist; check it for typing mistakes",
  used: "This redeem code has already been used",
  expired: "This redeem code has expired",
  disabled: "This redeem code has been disabled by the operator",
} as const;

/**
 * Redeems a code for the caller (the session's user, or the owner of the Bearer key). The claim, the credit and
 * the ledger row are one transaction around one conditional update (lib/money/store.ts), so of any number of
 * parallel redemptions exactly one credits.
 */
export const topup = sessionOrKeyRoute(async (request, _params, caller) => {
  const body = await readBody(request, topupSchema, ACCOUNT_BODY_LIMIT_BYTES);
  const userBucket = `redeem:user:${caller.userId}`;
  const addressBucket = addressCounter("redeem", caller.address);
  // Guessing is hopeless (codes carry ~117 random bits), but each guess costs a transaction: bound it.
  for (const [bucket, limit] of [
    [userBucket, REDEEM_GUESSES],
    [addressBucket, REDEEM_GUESSES_PER_ADDRESS],
  ] as const) {
    if (!bucket) continue;
    const decision = await peekEvents(bucket, limit);
    if (!decision.allowed) throw lockedError(decision);
  }
  // Case-free hash first (codes in the Crockford format, lib/accounts/redeem-format.ts), then the case-sensitive one of older codes.
  let result = { status: "unknown" } as Awaited<ReturnType<ReturnType<typeof moneyStore>["redeem"]>>;
  for (const hash of redeemLookupHashes(body.key)) {
    result = await moneyStore().redeem(hash, caller.userId, caller.requestId);
    if (result.status !== "unknown") break;
  }
  if (result.status !== "ok") {
    if (result.status === "unknown") {
      await countEvent(userBucket, REDEEM_GUESSES);
      if (addressBucket) await countEvent(addressBucket, REDEEM_GUESSES_PER_ADDRESS);
    }
    throw new GatewayError("invalid_request", REDEEM_REFUSALS[result.status], { param: "key" });
  }
  publish({ type: "user.changed", userId: caller.userId });
  return json({ quota: result.quota, balance: result.balance });
});
