// Which key groups a person may use for their own keys (and the playground): every group for an admin; for a user,
// the groups named in the operator's setting "user.groups" (a JSON array of names), or "default" without it.
// Only groups that exist are returned.
import { db } from "@/lib/platform/db/client";

export async function allowedGroups(user: { role: string }): Promise<string[]> {
  const groups = (await db().group.findMany({ select: { name: true }, orderBy: { name: "asc" } })).map((group) => group.name);
  if (user.role === "admin") return groups;
  const setting = (await db().setting.findUnique({ where: { key: "user.groups" } }))?.value;
  const open = Array.isArray(setting) ? setting.filter((name): name is string => typeof name === "string") : ["default"];
  return groups.filter((name) => open.includes(name));
}
