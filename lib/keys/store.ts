// Writing a key and showing it: the one place both the operator API and the account API change a key, so the
// cached copies (lib/keys/lookup.ts) are dropped the same way whoever makes the change.
import { db } from "@/lib/platform/db/client";
import { publish } from "@/lib/platform/events";

/**
 * Writes a change to a key (the operator's through lib/admin-api/handlers.ts, or its owner's through lib/account-api/handlers.ts): `quota` sets what the key
 * may still spend; every cached copy of the key is dropped at once.
 */
export async function applyKeyChange<T extends { quota?: number }>(key: { id: string; keyHash: string }, change: T) {
  const { quota: newQuota, ...rest } = change;
  const updated = await db().apiKey.update({
    where: { id: key.id },
    data: { ...rest, ...(newQuota !== undefined ? { quotaRemaining: BigInt(newQuota) } : {}) },
  });
  publish({ type: "key.changed", keyHash: key.keyHash, keyId: key.id });
  return updated;
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
    status: key.deletedAt ? "deleted" : expired ? "expired" : key.status,
    lastUsedAt: key.lastUsedAt,
    rateLimitPerMinute: key.rateLimitPerMinute,
    createdAt: key.createdAt,
    purpose: key.purpose || null,
    models: Array.isArray(key.models) ? (key.models as string[]) : [],
  };
}
