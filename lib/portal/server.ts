// Server-side helpers for the portal's pages (server components and layouts only: they read the database).
import { headers } from "next/headers";
import { readSession, type SessionUser } from "../auth/session";
import { db } from "../db/client";

/** The signed-in user of the page being rendered, or null (the same rule as the JSON APIs: lib/auth/session.ts). */
export async function pageSession(): Promise<SessionUser | null> {
  const incoming = await headers();
  return readSession(new Request("http://portal.invalid/", { headers: new Headers(incoming) }));
}

/**
 * For each model served by an enabled channel: "simulator" when only simulator channels serve it, "mixed" when a
 * simulator is among several, "upstream" when none is. The playground labels simulated results with it (the image
 * API's answer does not say which channel served it).
 */
export type ModelSource = "simulator" | "mixed" | "upstream";

export async function modelSources(): Promise<Record<string, ModelSource>> {
  const channels = await db().channel.findMany({ where: { status: "enabled" }, select: { type: true, models: true } });
  const seen = new Map<string, { simulator: boolean; upstream: boolean }>();
  for (const channel of channels) {
    for (const model of (channel.models as string[]) ?? []) {
      const entry = seen.get(model) ?? { simulator: false, upstream: false };
      if (channel.type === "simulator") entry.simulator = true;
      else entry.upstream = true;
      seen.set(model, entry);
    }
  }
  const result: Record<string, ModelSource> = {};
  for (const [model, entry] of seen) result[model] = entry.simulator && entry.upstream ? "mixed" : entry.simulator ? "simulator" : "upstream";
  return result;
}
