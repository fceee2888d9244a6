// Who may stop and limit a key (docs/api.md, "Keys: the owner and the operator"). The operator's switch (`status`)
// and the owner's pause (`pausedByOwner`) are two columns: a key serves only when neither has stopped it, and each
// side lifts only its own. Limits the operator set (`quotaByOperator`, `operatorExpiresAt`) the owner may tighten,
// never loosen. The rules are here, below both APIs, so the account API and the operator API cannot drift apart.
import { GatewayError } from "@/lib/platform/errors";

/** The columns the rules read. */
export type KeyControls = {
  status: string;
  pausedByOwner: boolean;
  quotaByOperator: boolean;
  operatorExpiresAt: Date | null;
  unlimited: boolean;
  quotaRemaining: bigint;
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
};

/**
 * A change to write, and what the row must still hold for the checks behind it to stand: the owner's quota is
 * checked against what the key has left, which requests spend meanwhile, and an operator may change the limits
 * between the owner's read and write. A write whose conditions no longer hold changes nothing and is checked again.
 */
export type KeyWrite = {
  data: Columns;
  where: { quotaByOperator?: boolean; unlimited?: boolean; quotaRemaining?: { gte: bigint }; operatorExpiresAt?: Date | null };
};

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

/** The operator's change: a quota or an expiry they send becomes theirs (the owner may then only tighten it). */
export function operatorKeyWrite(edit: OperatorKeyEdit): Columns {
  const { quota, quotaByOperator, expiresAt, ...rest } = edit;
  const data: Columns = { ...rest };
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
