// The fields of a key's budget and address list as both the account API and the operator API take them
// (lib/account-api/keys.ts, lib/admin-api/keys.ts; docs/api.md, "Key budgets and allowed addresses").
import { z } from "zod";
import { BUDGET_PERIODS } from "@/lib/money/budget";
import { MAX_ALLOWED_IPS } from "./addresses";

/** Micro-USD per calendar period in UTC (lib/money/budget.ts); null for none. */
export const budgetField = z.number().int("must be a whole number of micro-USD").min(1).max(Number.MAX_SAFE_INTEGER).nullable();
export const budgetPeriodField = z.enum(BUDGET_PERIODS);
/** Addresses or CIDRs; each is checked (a 400 naming a bad one) by validAllowedIps (lib/keys/addresses.ts). */
export const allowedIpsField = z.array(z.string().max(200)).max(MAX_ALLOWED_IPS);
