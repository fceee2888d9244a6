// Which models are served by the simulator, by real upstreams, or both (for the SIMULATOR labels in the portal).
// Server side, without Next.js imports: the account API (lib/account-api/models.ts) uses it as well as the pages.
import { db } from "@/lib/platform/db/client";

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
  for (const [model, entry] of seen)
    result[model] = entry.simulator && entry.upstream ? "mixed" : entry.simulator ? "simulator" : "upstream";
  return result;
}
