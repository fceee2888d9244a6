// The signed-in user's own keys (/api/user/keys): list with what each spent, create, change within what the operator
// left them, delete. Every key is looked up together with the user's id, so another user's key is "not found".
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, parseQuery, parseWith, readBody, readText } from "@/lib/platform/http/json";
import { firstUnstorableText } from "@/lib/platform/text";
import { groupOf } from "@/lib/money/prices";
import { flushLedger } from "@/lib/money/ledger";
import { spentByKey } from "@/lib/money/usage-query";
import { applyKeyChange, countLiveKeys, createKeyRow, deleteKeyRow, findOwnKey, listOwnKeys, publicKey } from "@/lib/keys/store";
import { ownerKeyWrite } from "@/lib/keys/controls";
import { validAllowedIps } from "@/lib/keys/addresses";
import { allowedIpsField, budgetField, budgetPeriodField } from "@/lib/keys/fields";
import { allowedGroups } from "@/lib/accounts/groups";
import { sessionRoute, type UserRow } from "./route";

/** Live (not deleted) keys one user may hold. */
export const MAX_KEYS_PER_USER = 50;

const quota = z.number().int("must be a whole number of micro-USD").min(0).max(Number.MAX_SAFE_INTEGER);

/** A key id as the paths and queries carry it. */
export const keyId = z.string().trim().min(1, "is required").max(100);

const futureDate = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((value) => new Date(value))
  .refine((value) => value.getTime() > Date.now(), "must be in the future");

export const createKeySchema = z
  .object({
    name: z.string().trim().max(100).default(""),
    group: z.string().trim().min(1).max(100).default("default"),
    quota: quota.optional(),
    unlimited: z.boolean().default(false),
    expiresAt: futureDate.nullable().optional(),
    budget: budgetField.optional(),
    budgetPeriod: budgetPeriodField.default("month"),
    allowedIps: allowedIpsField.optional(),
  })
  .refine((body) => body.unlimited || body.quota !== undefined, {
    message: "give a quota (micro-USD) or unlimited: true",
    path: ["quota"],
  });

export const listKeys = sessionRoute(async (_request, _params, { user }) => {
  await flushLedger();
  const [keys, spent] = await Promise.all([listOwnKeys(user.id), spentByKey(user.id)]);
  return json({ data: keys.map((key) => ({ ...publicKey(key), spent: spent.get(key.id) ?? 0 })) });
});

export const createKey = sessionRoute(async (request, _params, { user }) => {
  const body = await readBody(request, createKeySchema, ACCOUNT_BODY_LIMIT_BYTES);
  const groups = await allowedGroups(user);
  if (!groups.includes(body.group)) {
    throw new GatewayError("invalid_request", `Group '${body.group}' is not open to you; choose one of: ${groups.join(", ") || "(none)"}`, {
      param: "group",
    });
  }
  const live = await countLiveKeys(user.id);
  if (live >= MAX_KEYS_PER_USER) throw new GatewayError("conflict", `You have ${live} keys, the most allowed; delete one first`);
  const { row, key } = await createKeyRow({
    userId: user.id,
    name: body.name,
    group: body.group,
    quotaRemaining: BigInt(body.unlimited ? 0 : (body.quota ?? 0)),
    unlimited: body.unlimited,
    expiresAt: body.expiresAt ?? null,
    budget: body.budget === undefined || body.budget === null ? null : BigInt(body.budget),
    budgetPeriod: body.budgetPeriod,
    allowedIps: validAllowedIps(body.allowedIps ?? []),
  });
  // The full key is in this answer only; it is stored as its SHA-256.
  return json({ ...publicKey(row), key }, 201);
});

export const updateOwnKeySchema = z
  .object({
    name: z.string().trim().max(100).optional(),
    /** A future date, or null for no expiry. */
    expiresAt: futureDate.nullable().optional(),
    /** Micro-USD the key may still spend (its owner's balance bounds it too). */
    quota: quota.optional(),
    unlimited: z.boolean().optional(),
    /** Pause ("disabled") and resume ("active") the owner's own pause; an operator's disable stays (403). */
    status: z.enum(["active", "disabled"]).optional(),
    /** The models the key may call, within its group; [] for every model the group allows. */
    models: z.array(z.string().trim().min(1).max(200)).max(200).optional(),
    /** Micro-USD per period, null for none; an operator's budget may only be lowered (docs/api.md). */
    budget: budgetField.optional(),
    budgetPeriod: budgetPeriodField.optional(),
    /** Addresses or CIDRs the key may be used from, [] for any; inside the operator's list when they set one. */
    allowedIps: allowedIpsField.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: "send at least one of name, expiresAt, quota, unlimited, status, models, budget, budgetPeriod, allowedIps",
  });

/**
 * PATCH /api/user/keys/{id}: the owner renames, pauses, resumes, re-dates or re-caps one of their keys, within what
 * the operator left them (lib/keys/controls.ts): a 403 says which of the operator's controls the change would undo.
 */
export const updateOwnKey = sessionRoute(async (request, params, { user }) => {
  const body = await readBody(request, updateOwnKeySchema, ACCOUNT_BODY_LIMIT_BYTES);
  if (body.allowedIps) body.allowedIps = validAllowedIps(body.allowedIps);
  // A write whose checks no longer hold (requests spent the quota meanwhile, an operator changed the key) is
  // checked again on the row as it is now.
  for (let attempt = 0; attempt < 3; attempt++) {
    // One lookup with both conditions: another user's key and a missing key answer the same 404.
    const key = await findOwnKey(user.id, params.id ?? "");
    if (!key) throw new GatewayError("not_found", "No key with this id");
    if (key.purpose === "playground")
      throw new GatewayError("conflict", "The playground's key is managed by the playground: renew it there, or delete it here");
    if (body.models?.length) {
      const group = await groupOf(key.group);
      const outside = [...new Set(body.models)].filter((model) => !group?.models.has(model));
      if (outside.length)
        throw new GatewayError("invalid_request", `Not in this key's group '${key.group}': ${outside.join(", ")}`, { param: "models" });
      body.models = [...new Set(body.models)];
    }
    const updated = await applyKeyChange(key, ownerKeyWrite(key, body));
    if (updated) return json(publicKey(updated));
  }
  throw new GatewayError("conflict", "The key changed while this change was being saved; look at it again and retry");
});

async function deleteOwnKey(user: UserRow, id: string): Promise<Response> {
  // One lookup with both conditions: a key of another user and a missing key answer the same 404.
  const key = await findOwnKey(user.id, id);
  if (!key || !(await deleteKeyRow(key, user.id))) throw new GatewayError("not_found", "No key with this id");
  return json({ id: key.id, deleted: true });
}

/** DELETE /api/user/keys/{id} */
export const deleteKey = sessionRoute(async (_request, params, { user }) => {
  return deleteOwnKey(user, parseWith(z.object({ id: keyId }), params).id);
});

/** DELETE /api/user/keys with `?id=` or a JSON body `{id}`. */
export const deleteKeyByQuery = sessionRoute(async (request, _params, { user }) => {
  let id: unknown = parseQuery(request, z.object({ id: z.string().optional() })).id;
  if (id === undefined) {
    const text = await readText(request, ACCOUNT_BODY_LIMIT_BYTES);
    if (text.trim()) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new GatewayError("invalid_json", "Request body is not valid JSON");
      }
      id = typeof body === "object" && body !== null ? (body as { id?: unknown }).id : undefined;
    }
  }
  if (id === undefined || id === null)
    throw new GatewayError("invalid_request", 'Give the key\'s id: DELETE /api/user/keys/{id}, ?id=, or a body {"id": …}', { param: "id" });
  if (firstUnstorableText(id) !== null)
    throw new GatewayError("invalid_request", "Invalid 'id': a key id never holds NUL characters or unpaired surrogates", { param: "id" });
  return deleteOwnKey(user, parseWith(z.object({ id: keyId }), { id }).id);
});
