"use client";
// The playground's own key. The portal stores keys only as hashes, so it cannot call /v1 with a key the user made
// earlier unless they paste it. Instead the playground makes a short-lived key of the user's own through the
// account API (POST /api/user/keys): named "Playground (this browser)", valid for 24 hours, bounded by the
// account's balance like every key. The full key is kept in this browser's localStorage (per user) and nowhere else;
// it is listed on the Keys page like any other key and can be revoked there. Renewing revokes the old one first.
import { api } from "./api";
import type { ApiKey, CreatedKey } from "./types";

export const PLAYGROUND_KEY_NAME = "Playground (this browser)";
export const PLAYGROUND_KEY_HOURS = 24;

export type PlaygroundKey = { id: string; key: string; prefix: string; expiresAt: string };

function storageName(userId: string): string {
  return `gateway.playground-key.${userId}`;
}

function read(userId: string): PlaygroundKey | null {
  try {
    const raw = window.localStorage.getItem(storageName(userId));
    if (!raw) return null;
    const value = JSON.parse(raw) as PlaygroundKey;
    return typeof value?.id === "string" && typeof value.key === "string" ? value : null;
  } catch {
    return null;
  }
}

export function forgetPlaygroundKey(userId: string): void {
  window.localStorage.removeItem(storageName(userId));
}

/** The stored key if it still exists, is active and has more than a minute left; otherwise null (and forgotten). */
export async function currentPlaygroundKey(userId: string): Promise<PlaygroundKey | null> {
  const stored = read(userId);
  if (!stored) return null;
  const { data } = await api<{ data: ApiKey[] }>("/api/user/keys");
  const live = data.find((key) => key.id === stored.id);
  const usable = live && live.status === "active" && (!live.expiresAt || new Date(live.expiresAt).getTime() > Date.now() + 60_000);
  if (!usable) {
    forgetPlaygroundKey(userId);
    return null;
  }
  return stored;
}

/** Makes a new playground key in `group` (revoking the previous one of this browser) and stores it here. */
export async function createPlaygroundKey(userId: string, group: string): Promise<PlaygroundKey> {
  const previous = read(userId);
  if (previous) {
    await api(`/api/user/keys/${encodeURIComponent(previous.id)}`, { method: "DELETE" }).catch(() => undefined);
    forgetPlaygroundKey(userId);
  }
  const expiresAt = new Date(Date.now() + PLAYGROUND_KEY_HOURS * 3600_000).toISOString();
  const created = await api<CreatedKey>("/api/user/keys", { body: { name: PLAYGROUND_KEY_NAME, group, unlimited: true, expiresAt } });
  const value: PlaygroundKey = { id: created.id, key: created.key, prefix: created.prefix, expiresAt: created.expiresAt ?? expiresAt };
  window.localStorage.setItem(storageName(userId), JSON.stringify(value));
  return value;
}

/**
 * Sign-out: every playground key this browser holds is revoked on the server (best effort, while the session still
 * works) and removed from localStorage, so nothing usable is left behind in the browser (SECURITY.md item 8).
 */
export async function dropPlaygroundKeysOnSignOut(): Promise<void> {
  const names: string[] = [];
  for (let index = 0; index < window.localStorage.length; index++) {
    const name = window.localStorage.key(index);
    if (name?.startsWith("gateway.playground-key.")) names.push(name);
  }
  await Promise.all(
    names.map(async (name) => {
      try {
        const stored = JSON.parse(window.localStorage.getItem(name) ?? "null") as PlaygroundKey | null;
        if (stored?.id) await api(`/api/user/keys/${encodeURIComponent(stored.id)}`, { method: "DELETE" }).catch(() => undefined);
      } catch {
        // Unreadable entry: removed below all the same.
      }
      window.localStorage.removeItem(name);
    }),
  );
}
