// GET /api/admin/models: every model the gateway knows of, for the operator's model pickers (components/admin/
// model-picker.tsx): the catalog's (built-in and overridden), every channel's, every priced one and every one a group
// names, each with where it appears. A channel's model without a price is the trap this shows: a channel test passes,
// yet users are told it does not exist (docs/api.md, "Model pickers").
import { db } from "@/lib/platform/db/client";
import { json } from "@/lib/platform/http/json";
import { listCatalog, type ModelKind } from "@/lib/catalog";
import { adminRoute } from "./route";

type Known = {
  id: string;
  kind: ModelKind;
  inCatalog: boolean;
  channels: { id: string; name: string }[];
  groups: string[];
  priced: boolean;
};

/** The names of a JSON column that should hold string[] (anything else is skipped). */
function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : [];
}

export async function knownModels(): Promise<Known[]> {
  const [catalog, channels, groups, prices] = await Promise.all([
    listCatalog(),
    db().channel.findMany({ select: { id: true, name: true, models: true }, orderBy: { name: "asc" } }),
    db().group.findMany({ select: { name: true, models: true }, orderBy: { name: "asc" } }),
    db().modelPrice.findMany({ select: { model: true } }),
  ]);
  const byId = new Map<string, Known>();
  const entry = (id: string): Known => {
    let known = byId.get(id);
    if (!known) {
      known = { id, kind: "text", inCatalog: false, channels: [], groups: [], priced: false };
      byId.set(id, known);
    }
    return known;
  };
  for (const model of catalog) Object.assign(entry(model.id), { kind: model.kind, inCatalog: true });
  for (const channel of channels)
    for (const model of names(channel.models)) entry(model).channels.push({ id: channel.id, name: channel.name });
  for (const group of groups) for (const model of names(group.models)) entry(model).groups.push(group.name);
  for (const price of prices) entry(price.model).priced = true;
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export const listKnownModels = adminRoute(async () => json({ data: await knownModels() }));
