// key -> principal, cached in memory (docs/decisions/0002-one-auth-wrapper.md): the hot path does not read the database for the
// key on every request. Entries are dropped on change (lib/platform/events.ts, across instances through Redis) and
// expire after a short TTL as a backstop. Unknown hashes are cached too (briefly), so a flood of invalid keys
// costs a bounded amount of database work (SECURITY.md: a flood of invalid keys).
import { db } from "@/lib/platform/db/client";
import { singleton } from "@/lib/platform/singleton";
import { subscribe } from "@/lib/platform/events";
import type { AddressRanges } from "@/lib/platform/http/cidr";
import { addressLists } from "./addresses";

export type KeyPrincipal = {
  keyId: string;
  keyHash: string;
  prefix: string;
  name: string;
  userId: string;
  group: string;
  unlimited: boolean;
  expiresAt: number | null;
  /**
   * "active" only when neither side has stopped the key: "disabled" by the operator's switch, else "paused" by its
   * owner (lib/keys/controls.ts). Whoever reads it refuses anything but "active"; `stoppedReason` says why for people.
   */
  status: "active" | "paused" | "disabled";
  deleted: boolean;
  userStatus: string;
  rateLimitPerMinute: number | null;
  /** The models this key may call within its group; empty: every model the group allows. */
  models: string[];
  /** The operator's and the owner's address allowlists that are set (lib/keys/addresses.ts): a request must pass each. */
  addressLists: AddressRanges[];
};

const FOUND_TTL_MS = 30_000;
const MISSING_TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

type Entry = { principal: KeyPrincipal | null; expires: number };
type Pending = { generation: number; promise: Promise<KeyPrincipal | null> };
/**
 * `generation` moves on with every invalidation. A database read that started in an older generation may have seen
 * the key before it was revoked: its answer is returned to the request that was already waiting for it, but never
 * stored, or it would put the revoked key back in the cache for FOUND_TTL_MS.
 */
type Cache = { entries: Map<string, Entry>; pending: Map<string, Pending>; generation: number };

function cache(): Cache {
  return singleton("keys.cache", () => {
    const state: Cache = { entries: new Map(), pending: new Map(), generation: 0 };
    subscribe((event) => {
      if (event.type === "key.changed" || event.type === "user.changed") {
        // Any change may concern a read in flight: later misses start a fresh read instead of joining it.
        state.generation++;
        state.pending.clear();
      }
      if (event.type === "key.changed") {
        if (event.keyHash) state.entries.delete(event.keyHash);
        for (const [hash, entry] of state.entries) {
          const principal = entry.principal;
          if (!principal) continue;
          if ((event.keyId && principal.keyId === event.keyId) || (event.userId && principal.userId === event.userId))
            state.entries.delete(hash);
        }
        if (!event.keyHash && !event.keyId && !event.userId) state.entries.clear();
      } else if (event.type === "user.changed") {
        for (const [hash, entry] of state.entries) if (entry.principal?.userId === event.userId) state.entries.delete(hash);
      }
    });
    return state;
  });
}

async function load(keyHash: string): Promise<KeyPrincipal | null> {
  const row = await db().apiKey.findUnique({ where: { keyHash }, include: { user: { select: { status: true } } } });
  if (!row) return null;
  return {
    keyId: row.id,
    keyHash: row.keyHash,
    prefix: row.prefix,
    name: row.name,
    userId: row.userId,
    group: row.group,
    unlimited: row.unlimited,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    status: row.status !== "active" ? "disabled" : row.pausedByOwner ? "paused" : "active",
    deleted: row.deletedAt !== null,
    userStatus: row.user.status,
    rateLimitPerMinute: row.rateLimitPerMinute,
    models: Array.isArray(row.models) ? (row.models as unknown[]).filter((model): model is string => typeof model === "string") : [],
    addressLists: addressLists(row.operatorAllowedIps, row.allowedIps),
  };
}

export async function findKey(keyHash: string): Promise<KeyPrincipal | null> {
  const state = cache();
  const now = Date.now();
  const hit = state.entries.get(keyHash);
  if (hit && hit.expires > now) return hit.principal;
  // Concurrent misses for one key share one query (within one generation).
  let pending = state.pending.get(keyHash);
  if (!pending) {
    const started: Pending = {
      generation: state.generation,
      promise: load(keyHash).finally(() => {
        if (state.pending.get(keyHash) === started) state.pending.delete(keyHash);
      }),
    };
    state.pending.set(keyHash, started);
    pending = started;
  }
  const principal = await pending.promise;
  if (pending.generation !== state.generation) return principal;
  if (state.entries.size >= MAX_ENTRIES) state.entries.delete(state.entries.keys().next().value!);
  state.entries.set(keyHash, { principal, expires: now + (principal ? FOUND_TTL_MS : MISSING_TTL_MS) });
  return principal;
}
