// Which upstream serves a request: enabled channels for the public model, highest priority first, weighted random
// among equal priorities; the rest follow as failover candidates. Cached, dropped on change.
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { decrypt } from "@/lib/platform/crypto";
import { cached } from "@/lib/platform/cached";
import { publish } from "@/lib/platform/events";
import { log } from "@/lib/platform/log";
import { observeChannelDisabled } from "@/lib/platform/metrics";
import { cappedText } from "@/lib/platform/text";

import type { ChannelType } from "@/lib/providers";

export type { ChannelType };

export type Channel = {
  id: string;
  name: string;
  type: ChannelType;
  baseUrl: string;
  apiKey: string;
  models: Set<string>;
  modelMapping: Record<string, string>;
  settings: Record<string, unknown>;
  priority: number;
  weight: number;
};

async function load(): Promise<Channel[]> {
  const rows = await db().channel.findMany({ where: { status: "enabled" } });
  const secret = env().secret;
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    baseUrl: row.baseUrl,
    apiKey: row.apiKey ? decrypt(row.apiKey, secret) : "",
    models: new Set(row.models as string[]),
    modelMapping: (row.modelMapping ?? {}) as Record<string, string>,
    settings: (row.settings ?? {}) as Record<string, unknown>,
    priority: row.priority,
    weight: row.weight,
  }));
}

/** The enabled channels, kept 30 s and reloaded at once after a change (lib/platform/cached.ts). */
const enabledChannels = cached("gateway.channels", "channels.changed", load);

/** Candidates in the order to try them. */
export async function channelsFor(model: string, random: () => number = Math.random): Promise<Channel[]> {
  const serving = (await enabledChannels()).filter((channel) => channel.models.has(model));
  const byPriority = new Map<number, Channel[]>();
  for (const channel of serving) byPriority.set(channel.priority, [...(byPriority.get(channel.priority) ?? []), channel]);
  const ordered: Channel[] = [];
  for (const priority of [...byPriority.keys()].sort((a, b) => b - a)) ordered.push(...weightedOrder(byPriority.get(priority)!, random));
  return ordered;
}

/** Weighted shuffle: each pick proportional to weight (weight 0 only after every weighted one). */
export function weightedOrder<T extends { weight: number }>(items: T[], random: () => number = Math.random): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (pool.length) {
    const total = pool.reduce((sum, item) => sum + Math.max(item.weight, 0), 0);
    let index = 0;
    if (total > 0) {
      let pick = random() * total;
      index = pool.findIndex((item) => (pick -= Math.max(item.weight, 0)) < 0);
      if (index < 0) index = pool.length - 1;
    }
    out.push(pool.splice(index, 1)[0]!);
  }
  return out;
}

/** The upstream's name for a public model: mapping of the full name, then of the name without [1m], else as is. */
export function upstreamModel(channel: Channel, publicModel: string, baseModel: string): string {
  return channel.modelMapping[publicModel] ?? channel.modelMapping[baseModel] ?? baseModel;
}

/** An upstream that refuses the channel's own key (401/403) is switched off until an operator looks at it. */
export async function disableChannel(channel: Channel, reason: string): Promise<void> {
  log.warn("disabling channel", { channel: channel.name, channelId: channel.id, reason });
  observeChannelDisabled(channel.name);
  await db()
    // The reason quotes the upstream's answer, which may hold text no database takes (a NUL): cleaned, so the channel
    // is disabled whatever the upstream wrote.
    .channel.update({ where: { id: channel.id }, data: { status: "disabled", disabledReason: cappedText(reason, 500) } })
    .catch((error) => log.error("could not disable channel", { error }));
  publish({ type: "channels.changed" });
}
