// Who may stop and limit a key (docs/api.md, "Keys: the owner and the operator"). The operator's switch (`status`)
// and the owner's pause (`pausedByOwner`) are two columns: a key serves only when neither has stopped it, and each
// side lifts only its own. Limits the operator set (`quotaByOperator`, `operatorExpiresAt`) the owner may tighten,
// never loosen. The rules are here, below both APIs, so the account API and the operator API cannot drift apart.
import { GatewayError } from "@/lib/platform/errors";
import { formatBudgetUsd, type BudgetPeriod } from "@/lib/money/budget";
import { firstOutside, storedList } from "./addresses";

/** The columns the rules read. */
export type KeyControls = {
  status: string;
  pausedByOwner: boolean;
  quotaByOperator: boolean;
  operatorExpiresAt: Date | null;
  unlimited: boolean;
  quotaRemaining: bigint;
  budget: bigint | null;
  budgetPeriod: string;
  budgetByOperator: boolean;
  operatorAllowedIps: unknown;
};

/** What an owner may send in PATCH /api/user/keys/{id} (validated by the account API's schema). */
export type OwnerKeyEdit = {
  name?: string;
  expiresAt?: Date | null;
  quota?: number;
  unlimited?: boolean;
  /** "disabled" pauses, "active" resumes: the owner's own pause only. */
  status?: "active" | "disabled";
  models?: string[];
  /** Micro-USD per period, null for none (lib/money/budget.ts). */
  budget?: number | null;
  budgetPeriod?: BudgetPeriod;
  /** Validated CIDRs (lib/keys/addresses.ts); [] for any address the operator's list allows. */
  allowedIps?: string[];
};

/** What an operator may send in PATCH /api/admin/keys/{id} (validated by the operator API's schema). */
export type OperatorKeyEdit = {
  name?: string;
  status?: "active" | "disabled";
  group?: string;
  quota?: number;
  unlimited?: boolean;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  /** false hands the quota back to the owner; true keeps the owner to lowering it. */
  quotaByOperator?: boolean;
  budget?: number | null;
  budgetPeriod?: BudgetPeriod;
  /** false hands the budget back to the owner; a budget sent here is the operator's unless this says false. */
  budgetByOperator?: boolean;
  /** The operator's list: the owner's list must lie inside it (validated CIDRs). */
  allowedIps?: string[];
};

type Columns = {
  name?: string;
  models?: string[];
  status?: string;
  group?: string;
  rateLimitPerMinute?: number | null;
  pausedByOwner?: boolean;
  quotaRemaining?: bigint;
  unlimited?: boolean;
  quotaByOperator?: boolean;
  expiresAt?: Date | null;
  operatorExpiresAt?: Date | null;
  budget?: bigint | null;
  budgetPeriod?: string;
  budgetSpent?: bigint;
  budgetPeriodStart?: bigint | null;
  budgetByOperator?: boolean;
  allowedIps?: string[];
  operatorAllowedIps?: string[];
};

/**
 * A change to write, and what the row must still hold for the checks behind it to stand: the owner's quota is
 * checked against what the key has left, which requests spend meanwhile, and an operator may change the limits
 * between the owner's read and write. A write whose conditions no longer hold changes nothing and is checked again.
 */
export type KeyWrite = {
  data: Columns;
  where: {
    quotaByOperator?: boolean;
    unlimited?: boolean;
    quotaRemaining?: { gte: bigint };
    operatorExpiresAt?: Date | null;
    budgetByOperator?: boolean;
    budget?: bigint | null;
    budgetPeriod?: string;
  };
};

const PERIOD_WORD: Record<string, string> = { day: "a day", week: "a week", month: "a month" };

/**
 * The budget columns for a new budget: the counter starts over (from now, not from the period's start: what was spent
 * earlier in the period under another budget is not counted) when the key had none or its period changes; a new
 * amount in the same period keeps what was spent.
 */
function budgetColumns(
  current: { budget: bigint | null; budgetPeriod: string } | undefined,
  budget: number | null | undefined,
  period: BudgetPeriod | undefined,
): Columns {
  const data: Columns = {};
  if (budget !== undefined) data.budget = budget === null ? null : BigInt(budget);
  if (period !== undefined) data.budgetPeriod = period;
  const nextBudget = budget === undefined ? (current?.budget ?? null) : budget;
  const restarts = !current || current.budget === null || (period !== undefined && period !== current.budgetPeriod);
  if (nextBudget !== null && restarts) {
    data.budgetSpent = 0n;
    data.budgetPeriodStart = BigInt(Date.now());
  }
  return data;
}

const OPERATOR_DISABLED_MESSAGE =
  "An operator disabled this key: only an operator can enable it again. Pausing and resuming here is your own switch and does not lift theirs";

/** The owner's change, or a 403 that says which of the operator's controls it would undo. */
export function ownerKeyWrite(key: KeyControls, edit: OwnerKeyEdit): KeyWrite {
  const data: Columns = {};
  const where: KeyWrite["where"] = {};
  if (edit.name !== undefined) data.name = edit.name;
  if (edit.models !== undefined) data.models = edit.models;
  if (edit.status === "active" && key.status !== "active")
    throw new GatewayError("forbidden", OPERATOR_DISABLED_MESSAGE, { param: "status" });
  if (edit.status !== undefined) data.pausedByOwner = edit.status === "disabled";

  if (edit.quota !== undefined || edit.unlimited !== undefined) {
    where.quotaByOperator = key.quotaByOperator;
    if (key.quotaByOperator) {
      where.unlimited = key.unlimited;
      // Stays without a cap unless the owner turns it off.
      const unlimited = edit.unlimited ?? key.unlimited;
      if (unlimited && !key.unlimited)
        throw new GatewayError("forbidden", "An operator set this key's spending limit: you may lower it, not remove it", {
          param: "unlimited",
        });
      if (edit.quota !== undefined) {
        if (unlimited)
          throw new GatewayError(
            "invalid_request",
            "This key has no spending cap, so a quota alone changes nothing: send unlimited: false with the quota to give it one",
            { param: "quota" },
          );
        if (!key.unlimited) {
          if (BigInt(edit.quota) > key.quotaRemaining)
            throw new GatewayError(
              "forbidden",
              `An operator set this key's spending limit: you may lower it, not raise it (send a quota of at most ${key.quotaRemaining} micro-USD, what it has left)`,
              { param: "quota" },
            );
          where.quotaRemaining = { gte: BigInt(edit.quota) };
        }
      }
    }
    if (edit.quota !== undefined) data.quotaRemaining = BigInt(edit.quota);
    if (edit.unlimited !== undefined) data.unlimited = edit.unlimited;
  }

  if (edit.budget !== undefined || edit.budgetPeriod !== undefined) {
    where.budgetByOperator = key.budgetByOperator;
    if (key.budgetByOperator && key.budget !== null) {
      where.budget = key.budget;
      where.budgetPeriod = key.budgetPeriod;
      const set = `${formatBudgetUsd(Number(key.budget))} ${PERIOD_WORD[key.budgetPeriod] ?? "a period"}`;
      if (edit.budget === null)
        throw new GatewayError("forbidden", `An operator set this key's budget of ${set}: you may lower it, not remove it`, {
          param: "budget",
        });
      if (edit.budgetPeriod !== undefined && edit.budgetPeriod !== key.budgetPeriod)
        throw new GatewayError(
          "forbidden",
          `An operator set this key's budget of ${set}: you may lower the amount, not change its period`,
          { param: "budgetPeriod" },
        );
      if (edit.budget !== undefined && BigInt(edit.budget) > key.budget)
        throw new GatewayError(
          "forbidden",
          `An operator set this key's budget of ${set}: you may lower it, not raise it (send a budget of at most ${key.budget} micro-USD)`,
          { param: "budget" },
        );
    } else where.budget = key.budget;
    Object.assign(data, budgetColumns(key, edit.budget, edit.budgetPeriod));
  }

  if (edit.allowedIps !== undefined) {
    const ceiling = storedList(key.operatorAllowedIps);
    if (ceiling.length) {
      if (!edit.allowedIps.length)
        throw new GatewayError(
          "forbidden",
          `An operator limited this key to ${ceiling.join(", ")}: you may narrow that list, not remove it`,
          { param: "allowedIps" },
        );
      const outside = firstOutside(edit.allowedIps, ceiling);
      if (outside !== null)
        throw new GatewayError(
          "forbidden",
          `'${outside}' is outside the addresses an operator allowed this key (${ceiling.join(", ")}): you may narrow that list, not widen it`,
          { param: "allowedIps" },
        );
    }
    data.allowedIps = edit.allowedIps;
  }

  if (edit.expiresAt !== undefined) {
    where.operatorExpiresAt = key.operatorExpiresAt;
    const ceiling = key.operatorExpiresAt;
    if (ceiling && (edit.expiresAt === null || edit.expiresAt.getTime() > ceiling.getTime()))
      throw new GatewayError(
        "forbidden",
        `An operator set this key to expire at ${ceiling.toISOString()}: you may choose an earlier date, not a later one or none`,
        { param: "expiresAt" },
      );
    data.expiresAt = edit.expiresAt;
  }
  return { data, where };
}

/**
 * The operator's change: a quota, a budget, an expiry or an address list they send becomes theirs (the owner may then
 * only tighten it). `current`: the key's budget before the change (none for a new key).
 */
export function operatorKeyWrite(edit: OperatorKeyEdit, current?: { budget: bigint | null; budgetPeriod: string }): Columns {
  const { quota, quotaByOperator, expiresAt, budget, budgetPeriod, budgetByOperator, allowedIps, ...rest } = edit;
  const data: Columns = { ...rest };
  if (budget !== undefined || budgetPeriod !== undefined) {
    Object.assign(data, budgetColumns(current, budget, budgetPeriod));
    data.budgetByOperator = budgetByOperator ?? true;
  } else if (budgetByOperator !== undefined) data.budgetByOperator = budgetByOperator;
  if (allowedIps !== undefined) {
    // The operator's list is the ceiling, and the key's list starts over from it (as an expiry the operator sets).
    data.operatorAllowedIps = allowedIps;
    data.allowedIps = allowedIps;
  }
  if (quota !== undefined) data.quotaRemaining = BigInt(quota);
  if (quota !== undefined || edit.unlimited !== undefined) data.quotaByOperator = quotaByOperator ?? true;
  else if (quotaByOperator !== undefined) data.quotaByOperator = quotaByOperator;
  if (expiresAt !== undefined) {
    data.expiresAt = expiresAt;
    data.operatorExpiresAt = expiresAt;
  }
  return data;
}

/** Why a key that exists does not serve, for people, by its KeyPrincipal status (lib/keys/lookup.ts). */
export const STOPPED_KEY_MESSAGE = {
  disabled: "This API key was disabled by the gateway's operator; only an operator can enable it again",
  paused: "This API key is paused by its owner; it works again once resumed on the portal's Keys page",
} as const;
