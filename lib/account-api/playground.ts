// The playground's key as the portal shows it (lib/keys/playground.ts):
//   GET  /api/user/playground        → {key: {id, prefix, group, cap, remaining, createdAt} | null, cap}
//   POST /api/user/playground/renew {group?} → a fresh key with the full cap (the old one is revoked)
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { allowedGroups } from "@/lib/accounts/groups";
import { findPlaygroundKey, PLAYGROUND_CAP_MICROS, renewPlaygroundKey, type PlaygroundKeyRow } from "@/lib/keys/playground";
import { flushLedger } from "@/lib/money/ledger";
import { sessionRoute } from "./route";

function shown(row: PlaygroundKeyRow | null) {
  if (!row) return null;
  return {
    id: row.id,
    prefix: row.prefix,
    group: row.group,
    cap: PLAYGROUND_CAP_MICROS,
    remaining: Number(row.quotaRemaining),
    createdAt: row.createdAt,
  };
}

export const playgroundKey = sessionRoute(async (_request, _params, { user }) => {
  // What is left includes settlements still in the batch writer.
  await flushLedger();
  return json({ key: shown(await findPlaygroundKey(user.id)), cap: PLAYGROUND_CAP_MICROS });
});

export const renewSchema = z.object({ group: z.string().trim().min(1).max(100).optional() });

export const renewPlayground = sessionRoute(async (request, _params, { user }) => {
  const body = await readBody(request, renewSchema, ACCOUNT_BODY_LIMIT_BYTES);
  const groups = await allowedGroups(user);
  const current = await findPlaygroundKey(user.id);
  const group = body.group ?? current?.group ?? (groups.includes("default") ? "default" : groups[0]);
  if (!group || !groups.includes(group)) {
    throw new GatewayError(
      "invalid_request",
      `Group '${group ?? ""}' is not open to you; choose one of: ${groups.join(", ") || "(none)"}`,
      { param: "group" },
    );
  }
  return json({ key: shown(await renewPlaygroundKey(user.id, group)), cap: PLAYGROUND_CAP_MICROS });
});
