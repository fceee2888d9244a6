// The playground's key: one per user, kept on the server. The portal's playground calls /api/user/playground/v1/…
// with the session cookie (lib/gateway/playground.ts); the request is billed through this key like any other, so
// it shows in the ledger and on the Keys page ("Playground"), but its secret is never shown to anyone: only its hash
// exists (the key is looked up by id). Its own spending cap keeps a runaway tab from draining the balance; "Renew"
// revokes it and makes a fresh one with the full cap (also the way to move it to another group).
import { db } from "@/lib/platform/db/client";
import { publish } from "@/lib/platform/events";
import { newApiKey } from "./format";

export const PLAYGROUND_KEY_NAME = "Playground";
/** Micro-USD the playground may spend before the user renews its key: $2. */
export const PLAYGROUND_CAP_MICROS = 2_000_000;

export type PlaygroundKeyRow = NonNullable<Awaited<ReturnType<typeof findPlaygroundKey>>>;

/** The user's live playground key, or null. */
export function findPlaygroundKey(userId: string) {
  return db().apiKey.findFirst({ where: { userId, purpose: "playground", deletedAt: null }, orderBy: { createdAt: "desc" } });
}

/** Revokes the user's playground keys (all of them: a race may have made two) and makes a new one in `group`. */
export async function renewPlaygroundKey(userId: string, group: string): Promise<PlaygroundKeyRow> {
  const old = await db().apiKey.findMany({ where: { userId, purpose: "playground", deletedAt: null } });
  if (old.length) {
    await db().apiKey.updateMany({ where: { id: { in: old.map((row) => row.id) } }, data: { deletedAt: new Date(), status: "disabled" } });
    for (const row of old) publish({ type: "key.changed", keyHash: row.keyHash, keyId: row.id });
  }
  // The secret is made and dropped at once: the playground's requests find the key by id, never by secret.
  const { hash, prefix } = newApiKey();
  return db().apiKey.create({
    data: {
      keyHash: hash,
      prefix,
      name: PLAYGROUND_KEY_NAME,
      purpose: "playground",
      userId,
      group,
      quotaRemaining: BigInt(PLAYGROUND_CAP_MICROS),
      unlimited: false,
    },
  });
}

/** The live key, or a new one in `group` when there is none. */
export async function ensurePlaygroundKey(userId: string, group: string): Promise<PlaygroundKeyRow> {
  return (await findPlaygroundKey(userId)) ?? renewPlaygroundKey(userId, group);
}
