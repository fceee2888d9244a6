// Writing a key and showing it: the one place both the operator API and the account API change a key, so the
// cached copies (lib/keys/lookup.ts) are dropped the same way whoever makes the change.
import { db } from "@/lib/platform/db/client";
import { publish } from "@/lib/platform/events";
import type { KeyWrite } from "./controls";
import { newApiKey } from "./format";
import { storedList } from "./addresses";
import { asBudgetPeriod, periodEnd, spentThisPeriod } from "@/lib/money/budget";

/**
 * Writes a change to a key (the operator's through lib/admin-api/keys.ts, or its owner's through
 * lib/account-api/keys.ts, both shaped by lib/keys/controls.ts); every cached copy of the key is dropped at once.
 * With `write.where`, the change is made only while the row still holds those values: null when it no longer does.
 */
export async function applyKeyChange(key: { id: string; keyHash: string }, write: KeyWrite) {
  const changed = await db().apiKey.updateMany({ where: { id: key.id, deletedAt: null, ...write.where }, data: write.data });
  if (changed.count === 0) return null;
  publish({ type: "key.changed", keyHash: key.keyHash, keyId: key.id });
  return db().apiKey.findUnique({ where: { id: key.id } });
}

/** A key as the APIs show it: never the hash, the status with expiry and deletion folded in. */
export function publicKey(key: {
  id: string;
  prefix: string;
  name: string;
  userId: string;
  group: string;
  quotaRemaining: bigint;
  unlimited: boolean;
  expiresAt: Date | null;
  status: string;
  pausedByOwner: boolean;
  quotaByOperator: boolean;
  operatorExpiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  rateLimitPerMinute: number | null;
  deletedAt: Date | null;
  purpose?: string;
  models?: unknown;
  budget?: bigint | null;
  budgetPeriod?: string;
  budgetSpent?: bigint;
  budgetPeriodStart?: bigint | null;
  budgetByOperator?: boolean;
  allowedIps?: unknown;
  operatorAllowedIps?: unknown;
}) {
  const now = Date.now();
  const period = asBudgetPeriod(key.budgetPeriod ?? "month");
  const budget = key.budget === null || key.budget === undefined ? null : Number(key.budget);
  const budgetSpent =
    budget === null
      ? 0
      : spentThisPeriod(
          {
            budgetPeriod: period,
            budgetSpent: Number(key.budgetSpent ?? 0),
            budgetPeriodStart: key.budgetPeriodStart === null || key.budgetPeriodStart === undefined ? null : Number(key.budgetPeriodStart),
          },
          now,
        );
  const expired = key.expiresAt !== null && key.expiresAt.getTime() <= Date.now();
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    userId: key.userId,
    group: key.group,
    quotaRemaining: Number(key.quotaRemaining),
    unlimited: key.unlimited,
    expiresAt: key.expiresAt,
    // "disabled" when either side stopped it; the two fields after it say which (lib/keys/controls.ts).
    status: key.deletedAt ? "deleted" : expired ? "expired" : key.status !== "active" || key.pausedByOwner ? "disabled" : "active",
    disabledByOperator: key.status !== "active",
    pausedByOwner: key.pausedByOwner,
    /** The operator set the quota (or made it unlimited): the owner may lower it, not raise it. */
    quotaByOperator: key.quotaByOperator,
    /** The expiry the operator set: the owner may bring expiresAt forward, never past this. */
    operatorExpiresAt: key.operatorExpiresAt,
    lastUsedAt: key.lastUsedAt,
    rateLimitPerMinute: key.rateLimitPerMinute,
    createdAt: key.createdAt,
    purpose: key.purpose || null,
    models: Array.isArray(key.models) ? (key.models as string[]) : [],
    /** Micro-USD per period (null: none); the period is a calendar day, week (from Monday) or month in UTC. */
    budget,
    budgetPeriod: period,
    /** What the key's requests spent and hold this period, and what is left of the budget (null without one). */
    budgetSpent,
    budgetLeft: budget === null ? null : Math.max(0, budget - budgetSpent),
    /** When this period ends and the budget starts over (null without one). */
    budgetResetsAt: budget === null ? null : new Date(periodEnd(period, now)),
    /** The operator set the budget: the owner may lower it, not raise, remove or re-period it. */
    budgetByOperator: key.budgetByOperator ?? false,
    /** Addresses or CIDRs the key may be used from ([] = any the operator's list allows). */
    allowedIps: storedList(key.allowedIps),
    /** The operator's list: the key's list lies inside it, and a request must pass both ([] = any). */
    operatorAllowedIps: storedList(key.operatorAllowedIps),
  };
}

/** The fields a new key is made with; the secret is made here and returned once with the row. */
export type NewKey = {
  userId: string;
  name: string;
  group: string;
  quotaRemaining: bigint;
  unlimited: boolean;
  expiresAt: Date | null;
  quotaByOperator?: boolean;
  operatorExpiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  budget?: bigint | null;
  budgetPeriod?: string;
  budgetByOperator?: boolean;
  allowedIps?: string[];
  operatorAllowedIps?: string[];
};

/** Makes a key: the full key is in the result only; the row holds its SHA-256 and a display prefix. */
export async function createKeyRow(fields: NewKey) {
  const { key, hash, prefix } = newApiKey();
  const row = await db().apiKey.create({ data: { keyHash: hash, prefix, ...fields } });
  return { row, key };
}

/** A live (not deleted) key of this user, or null: another user's key and a missing key look the same. */
export function findOwnKey(userId: string, id: string) {
  return db().apiKey.findFirst({ where: { id, userId, deletedAt: null } });
}

/** The user's live keys, newest first. */
export function listOwnKeys(userId: string) {
  return db().apiKey.findMany({ where: { userId, deletedAt: null }, orderBy: { createdAt: "desc" } });
}

export function countLiveKeys(userId: string): Promise<number> {
  return db().apiKey.count({ where: { userId, deletedAt: null } });
}

/** Whether the user ever had this key (deleted keys included: their history stays). */
export async function userHadKey(userId: string, id: string): Promise<boolean> {
  return (await db().apiKey.findFirst({ where: { id, userId }, select: { id: true } })) !== null;
}

/**
 * Deletes a key (kept as a row for its history, disabled); `userId` limits it to that owner's keys. Every cached copy
 * is dropped. False when the key was already gone.
 */
export async function deleteKeyRow(key: { id: string; keyHash: string }, userId?: string): Promise<boolean> {
  const deleted = await db().apiKey.updateMany({
    where: { id: key.id, ...(userId ? { userId } : {}), deletedAt: null },
    data: { deletedAt: new Date(), status: "disabled" },
  });
  if (deleted.count === 0) return false;
  publish({ type: "key.changed", keyHash: key.keyHash, keyId: key.id });
  return true;
}
