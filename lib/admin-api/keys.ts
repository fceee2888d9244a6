// The operator's view of every key (/api/admin/keys): create for a user, list, change, revoke. A quota or expiry the
// operator sets is theirs: the owner may tighten it, not loosen it (lib/keys/controls.ts).
import { z } from "zod";
import { auditDetail } from "./audit";
import { queryFilter } from "./query";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json, parseQuery, readBody } from "@/lib/platform/http/json";
import { applyKeyChange, createKeyRow, deleteKeyRow, publicKey } from "@/lib/keys/store";
import { operatorKeyWrite } from "@/lib/keys/controls";
import { validAllowedIps } from "@/lib/keys/addresses";
import { allowedIpsField, budgetField, budgetPeriodField } from "@/lib/keys/fields";
import { flushLedger } from "@/lib/money/ledger";
import { adminRoute, date, quota } from "./route";

export const createKeySchema = z.object({
  userId: z.string().min(1),
  name: z.string().trim().max(100).default(""),
  group: z.string().trim().min(1).max(100).default("default"),
  quota: quota.default(0),
  unlimited: z.boolean().default(false),
  expiresAt: date.nullable().optional(),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
  /** The quota is the operator's (the owner may only lower it); false lets the owner set it freely. */
  quotaByOperator: z.boolean().default(true),
  /** Micro-USD per calendar period in UTC, null for none; the operator's: the owner may only lower it. */
  budget: budgetField.optional(),
  budgetPeriod: budgetPeriodField.default("month"),
  /** false lets the owner change the budget freely. */
  budgetByOperator: z.boolean().default(true),
  /** Addresses or CIDRs the key may be used from ([] = any); the owner may only narrow the list. */
  allowedIps: allowedIpsField.optional(),
});

export const createKey = adminRoute(async (request) => {
  const body = await readBody(request, createKeySchema);
  const allowed = validAllowedIps(body.allowedIps ?? []);
  const user = await db().user.findUnique({ where: { id: body.userId } });
  if (!user) throw new GatewayError("not_found", "No user with this id", { param: "userId" });
  const group = await db().group.findUnique({ where: { name: body.group } });
  if (!group) throw new GatewayError("invalid_request", `Group '${body.group}' does not exist`, { param: "group" });
  const { row, key } = await createKeyRow({
    userId: user.id,
    name: body.name,
    group: body.group,
    quotaRemaining: BigInt(body.quota),
    unlimited: body.unlimited,
    expiresAt: body.expiresAt ?? null,
    // The operator chose these limits (lib/keys/controls.ts): the owner may tighten them, not loosen them.
    quotaByOperator: body.quotaByOperator,
    operatorExpiresAt: body.expiresAt ?? null,
    rateLimitPerMinute: body.rateLimitPerMinute ?? null,
    budget: body.budget === undefined || body.budget === null ? null : BigInt(body.budget),
    budgetPeriod: body.budgetPeriod,
    budgetByOperator: body.budget !== undefined && body.budget !== null && body.budgetByOperator,
    allowedIps: allowed,
    operatorAllowedIps: allowed,
  });
  return json({ ...publicKey(row), key, quota: body.quota }, 201);
});

export const listKeysQuery = z.object({ userId: queryFilter });

export const listKeys = adminRoute(async (request) => {
  const { userId } = parseQuery(request, listKeysQuery);
  await flushLedger();
  const keys = await db().apiKey.findMany({ where: { userId, deletedAt: null }, orderBy: { createdAt: "desc" }, take: 1000 });
  return json({ data: keys.map(publicKey) });
});

export const updateKeySchema = z.object({
  name: z.string().trim().max(100).optional(),
  status: z.enum(["active", "disabled"]).optional(),
  group: z.string().trim().min(1).max(100).optional(),
  quota: quota.optional(),
  unlimited: z.boolean().optional(),
  expiresAt: date.nullable().optional(),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
  /** false hands the quota back to the owner; a quota or unlimited sent here makes it the operator's again. */
  quotaByOperator: z.boolean().optional(),
  budget: budgetField.optional(),
  budgetPeriod: budgetPeriodField.optional(),
  /** false hands the budget back to the owner; a budget sent here makes it the operator's again. */
  budgetByOperator: z.boolean().optional(),
  /** The operator's list (the key's own starts over from it); [] for any address. */
  allowedIps: allowedIpsField.optional(),
});

/**
 * PATCH /api/admin/keys/{id}: `status` is the operator's switch (the owner's pause is theirs and stays); a quota,
 * unlimited or expiry sent here becomes the operator's, which the owner may tighten, not loosen (lib/keys/controls.ts).
 */
export const updateKey = adminRoute(async (request, params) => {
  const body = await readBody(request, updateKeySchema);
  if (body.allowedIps) body.allowedIps = validAllowedIps(body.allowedIps);
  const key = await db().apiKey.findUnique({ where: { id: params.id } });
  if (!key || key.deletedAt) throw new GatewayError("not_found", "No key with this id");
  if (body.group && !(await db().group.findUnique({ where: { name: body.group } }))) {
    throw new GatewayError("invalid_request", `Group '${body.group}' does not exist`, { param: "group" });
  }
  // Which fields changed, so the trail can tell a disable from a new quota (never the values of secrets: keys have none here).
  auditDetail(request, { fields: Object.keys(body) });
  const updated = await applyKeyChange(key, { data: operatorKeyWrite(body, key), where: {} });
  if (!updated) throw new GatewayError("not_found", "No key with this id");
  return json(publicKey(updated));
});

export const deleteKey = adminRoute(async (_request, params) => {
  const key = await db().apiKey.findUnique({ where: { id: params.id } });
  if (!key || key.deletedAt || !(await deleteKeyRow(key))) throw new GatewayError("not_found", "No key with this id");
  return json({ id: key.id, deleted: true });
});
