// A key as the account and operator APIs show it (publicKey in lib/keys/store.ts), as a zod schema of the JSON: both
// APIs declare it in their route definitions (lib/account-api/routes.ts, lib/admin-api/routes.ts).
import { z } from "zod";
import { isoDate } from "@/lib/platform/http/route-definition";

const micros = z.number().int();
const nullableDate = isoDate.nullable();

/** A key as the APIs show it (lib/keys/store.ts publicKey): never its hash. */
export const apiKeyAnswer = z.object({
  id: z.string(),
  prefix: z.string(),
  name: z.string(),
  userId: z.string(),
  group: z.string(),
  quotaRemaining: micros,
  unlimited: z.boolean(),
  expiresAt: nullableDate,
  /** "disabled" when the operator disabled it or its owner paused it; the two fields below say which. */
  status: z.enum(["active", "disabled", "expired", "deleted"]),
  disabledByOperator: z.boolean(),
  pausedByOwner: z.boolean(),
  /** The operator set the quota (or made it unlimited): the owner may lower it, not raise it. */
  quotaByOperator: z.boolean(),
  /** The expiry the operator set: the owner may bring the key's expiry forward, never past this. */
  operatorExpiresAt: nullableDate,
  lastUsedAt: nullableDate,
  rateLimitPerMinute: z.number().int().nullable(),
  createdAt: isoDate,
  /** "playground" for the playground's own key (made and used by the server), else null. */
  purpose: z.string().nullable(),
  /** The models the key may call within its group; empty: all the group allows. */
  models: z.array(z.string()),
  /** Micro-USD per calendar period in UTC (null: no budget); docs/api.md, "Key budgets and allowed addresses". */
  budget: micros.nullable(),
  budgetPeriod: z.enum(["day", "week", "month"]),
  /** Micro-USD the key's requests spent (or hold) this period. */
  budgetSpent: micros,
  /** What is left of the budget this period; null without a budget. */
  budgetLeft: micros.nullable(),
  /** When the period ends and the budget starts over; null without a budget. */
  budgetResetsAt: nullableDate,
  /** The operator set the budget: the owner may lower it, not raise, remove or re-period it. */
  budgetByOperator: z.boolean(),
  /** Addresses or CIDRs the key may be used from; [] = any (within the operator's list). */
  allowedIps: z.array(z.string()),
  /** The operator's list: the key's own lies inside it; [] = any. */
  operatorAllowedIps: z.array(z.string()),
  /** Micro-USD spent by the key's requests, all time (in the list only). */
  spent: micros.optional(),
});
