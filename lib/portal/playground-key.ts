"use client";
// The playground runs through the session now (lib/gateway/playground.ts): its key lives on the server only
// (lib/keys/playground.ts). Before that, the playground kept a 24-hour key per browser in localStorage under
// "gateway.playground-key.<user>"; sign-out still revokes and removes any such leftover, so nothing usable stays in
// a browser that was used before the change (SECURITY.md, "Web hardening": sign-out).
import { api } from "./api";

/** The name the server gives the playground's key (lib/keys/playground.ts); the Keys page marks it. */
export const PLAYGROUND_KEY_NAME = "Playground";
/** The name of the per-browser keys of the earlier playground. */
export const LEGACY_PLAYGROUND_KEY_NAME = "Playground (this browser)";

export async function dropPlaygroundKeysOnSignOut(): Promise<void> {
  const names: string[] = [];
  for (let index = 0; index < window.localStorage.length; index++) {
    const name = window.localStorage.key(index);
    if (name?.startsWith("gateway.playground-key.")) names.push(name);
  }
  await Promise.all(
    names.map(async (name) => {
      try {
        const stored = JSON.parse(window.localStorage.getItem(name) ?? "null") as { id?: string } | null;
        if (stored?.id) await api(`/api/user/keys/${encodeURIComponent(stored.id)}`, { method: "DELETE" }).catch(() => undefined);
      } catch {
        // Unreadable entry: removed below all the same.
      }
      window.localStorage.removeItem(name);
    }),
  );
}
