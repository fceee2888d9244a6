// The operator's groups (/api/admin/groups): which models a group's keys may call, and its rate limit.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { adminRoute, modelList } from "./route";
import { auditChanges } from "./audit";

export const groupSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\w.-]+$/, "may hold letters, digits, '.', '_' and '-'"),
  models: modelList,
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
});

export const upsertGroup = adminRoute(async (request) => {
  const body = await readBody(request, groupSchema);
  const existing = await db().group.findUnique({ where: { name: body.name } });
  const group = await db().group.upsert({
    where: { name: body.name },
    create: { name: body.name, models: body.models, rateLimitPerMinute: body.rateLimitPerMinute ?? null },
    update: { models: body.models, ...(body.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: body.rateLimitPerMinute } : {}) },
  });
  auditChanges(request, group.name, existing ? { models: existing.models, rateLimitPerMinute: existing.rateLimitPerMinute } : null, {
    models: body.models,
    rateLimitPerMinute: body.rateLimitPerMinute,
  });
  publish({ type: "groups.changed" });
  return json({ id: group.id, name: group.name, models: group.models, rateLimitPerMinute: group.rateLimitPerMinute }, existing ? 200 : 201);
});

export const listGroups = adminRoute(async () => {
  const groups = await db().group.findMany({ orderBy: { name: "asc" } });
  return json({
    data: groups.map((group) => ({ id: group.id, name: group.name, models: group.models, rateLimitPerMinute: group.rateLimitPerMinute })),
  });
});
