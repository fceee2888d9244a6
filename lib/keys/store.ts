// Writing a key and showing it: the one place both the operator API and the account API change a key, so the
// cached copies (lib/keys/lookup.ts) are dropped the same way whoever makes the change.
import { db } from "@/lib/platform/db/client";
import { publish } from "@/lib/platform/events";
import type { KeyWrite } from "./controls";

/**
 * Writes a change to a key (the operator's through lib/admin-api/handlers.ts, or its owner's through
 * lib/account-api/handlers.ts, both shaped by lib/keys/controls.ts); every cached copy of the key is dropped at once.
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
}) {
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
  };
}
