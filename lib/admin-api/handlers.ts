// The operator API (/api/admin/*): plain (Request) => Response handlers, authorised by requireAdmin.
// Paths and fields are a contract other tools depend on (see README "Operator API").
import { z } from "zod";
import { auditDetail, recordAudit } from "./audit";
import { queryFilter, queryLimit, queryOffset } from "./query";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError, errorResponse } from "@/lib/platform/errors";
import { encrypt, randomToken } from "@/lib/platform/crypto";
import { json, parseQuery, readBody, requestIdOf } from "@/lib/platform/http/json";
import { setResponseHeaders } from "@/lib/platform/http/direct-body";
import { publish } from "@/lib/platform/events";
import { log } from "@/lib/platform/log";
import { requireAdmin, type AdminActor } from "@/lib/auth/admin";
import { hashPassword, checkPasswordStrength } from "@/lib/accounts/password";
import { newApiKey } from "@/lib/keys/format";
import { CHANNEL_TYPES, providerOf } from "@/lib/providers";
import { applyKeyChange, publicKey } from "@/lib/keys/store";
import { operatorKeyWrite } from "@/lib/keys/controls";
import { flushLedger } from "@/lib/money/ledger";
import { moneyStore } from "@/lib/money/store";
import { MODIFIER_KEY } from "@/lib/money/price-modifiers";
import { newRedeemCode, redeemCodeHash } from "@/lib/accounts/redeem-format";

type Params = Record<string, string>;
type AdminHandler = (request: Request, params: Params, actor: AdminActor) => Promise<Response>;

/** Auth, error mapping, the request id and the audit row (lib/admin-api/audit.ts) for every operator call. */
export function adminRoute(handler: AdminHandler) {
  return async (request: Request, params: Params = {}): Promise<Response> => {
    const requestId = requestIdOf(request);
    try {
      const actor = await requireAdmin(request);
      const response = await handler(request, params, actor);
      setResponseHeaders(response, { "x-request-id": requestId });
      if (request.method !== "GET" && response.status < 400) await recordAudit(request, params, actor, response.status);
      return response;
    } catch (error) {
      if (!(error instanceof GatewayError)) log.error("admin handler failed", { requestId, error, path: new URL(request.url).pathname });
      return errorResponse(error, "plain", { "x-request-id": requestId });
    }
  };
}

const quota = z.number().int("must be a whole number of micro-USD").min(0).max(Number.MAX_SAFE_INTEGER);
const date = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((value) => new Date(value));
const modelList = z.array(z.string().trim().min(1).max(200)).max(500);

// ------------------------------------------------------------------------------------------------------ users

export const createUserSchema = z.object({
  email: z
    .email()
    .max(320)
    .transform((value) => value.toLowerCase()),
  password: z.string(),
  role: z.enum(["user", "admin"]).default("user"),
  quota: quota.default(0),
});

export const createUser = adminRoute(async (request) => {
  const body = await readBody(request, createUserSchema);
  const weak = checkPasswordStrength(body.password);
  if (weak) throw new GatewayError("invalid_request", weak, { param: "password" });
  const existing = await db().user.findUnique({ where: { email: body.email } });
  if (existing) throw new GatewayError("conflict", "A user with this email already exists", { param: "email" });
  const user = await db().user.create({
    // Made by the operator: the address counts as confirmed.
    data: {
      email: body.email,
      passwordHash: await hashPassword(body.password),
      role: body.role,
      balance: BigInt(body.quota),
      emailVerifiedAt: new Date(),
    },
  });
  return json({ id: user.id, email: user.email, role: user.role, quota: Number(user.balance) }, 201);
});

const listUsersQuery = z.object({ q: queryFilter, limit: queryLimit(200, 1000) });

export const listUsers = adminRoute(async (request) => {
  const query = parseQuery(request, listUsersQuery);
  // Balances include settlements still in the batch writer.
  await flushLedger();
  const search = query.q?.trim().toLowerCase();
  const users = await db().user.findMany({
    where: search ? { email: { contains: search } } : undefined,
    orderBy: { createdAt: "desc" },
    take: query.limit,
  });
  return json({
    data: users.map((user) => ({
      id: user.id,
      email: user.email,
      role: user.role,
      status: user.status,
      balance: Number(user.balance),
      totpEnabled: user.totpEnabled,
      emailVerified: user.emailVerifiedAt !== null,
      createdAt: user.createdAt,
    })),
  });
});

export const updateUserSchema = z.object({
  status: z.enum(["active", "disabled"]).optional(),
  role: z.enum(["user", "admin"]).optional(),
  balanceDelta: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
  note: z.string().max(500).optional(),
});

export const updateUser = adminRoute(async (request, params) => {
  const body = await readBody(request, updateUserSchema);
  const user = await db().user.findUnique({ where: { id: params.id } });
  if (!user) throw new GatewayError("not_found", "No user with this id");
  if (body.status || body.role) {
    await db().user.update({
      where: { id: user.id },
      // Disabling ends the user's sessions too.
      data: { status: body.status, role: body.role, ...(body.status === "disabled" ? { sessionVersion: { increment: 1 } } : {}) },
    });
    publish({ type: "user.changed", userId: user.id });
  }
  let balance = Number(user.balance);
  if (body.balanceDelta) {
    balance = await moneyStore().credit(user.id, body.balanceDelta, {
      kind: "adjust",
      requestId: requestIdOf(request),
      userId: user.id,
      keyId: null,
      keyPrefix: null,
      endpoint: "/api/admin/users",
      model: "",
      channelId: null,
      channelName: null,
      textInputTokens: 0,
      textOutputTokens: 0,
      imageInputTokens: 0,
      imageOutputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reserved: 0,
      overReservation: 0,
      priceVersion: 0,
      status: "success",
      httpStatus: 200,
      error: null,
      latencyMs: 0,
      stream: false,
      detail: body.note ? { note: body.note } : null,
      createdAt: new Date(),
    });
  }
  const updated = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  return json({ id: updated.id, email: updated.email, role: updated.role, status: updated.status, balance });
});

// ------------------------------------------------------------------------------------------------------- keys

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
});

export const createKey = adminRoute(async (request) => {
  const body = await readBody(request, createKeySchema);
  const user = await db().user.findUnique({ where: { id: body.userId } });
  if (!user) throw new GatewayError("not_found", "No user with this id", { param: "userId" });
  const group = await db().group.findUnique({ where: { name: body.group } });
  if (!group) throw new GatewayError("invalid_request", `Group '${body.group}' does not exist`, { param: "group" });
  const { key, hash, prefix } = newApiKey();
  const row = await db().apiKey.create({
    data: {
      keyHash: hash,
      prefix,
      name: body.name,
      userId: user.id,
      group: body.group,
      quotaRemaining: BigInt(body.quota),
      unlimited: body.unlimited,
      expiresAt: body.expiresAt ?? null,
      // The operator chose these limits (lib/keys/controls.ts): the owner may tighten them, not loosen them.
      quotaByOperator: body.quotaByOperator,
      operatorExpiresAt: body.expiresAt ?? null,
      rateLimitPerMinute: body.rateLimitPerMinute ?? null,
    },
  });
  return json({ ...publicKey(row), key, quota: body.quota }, 201);
});

export const listKeys = adminRoute(async (request) => {
  const { userId } = parseQuery(request, z.object({ userId: queryFilter }));
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
});

/**
 * PATCH /api/admin/keys/{id}: `status` is the operator's switch (the owner's pause is theirs and stays); a quota,
 * unlimited or expiry sent here becomes the operator's, which the owner may tighten, not loosen (lib/keys/controls.ts).
 */
export const updateKey = adminRoute(async (request, params) => {
  const body = await readBody(request, updateKeySchema);
  const key = await db().apiKey.findUnique({ where: { id: params.id } });
  if (!key || key.deletedAt) throw new GatewayError("not_found", "No key with this id");
  if (body.group && !(await db().group.findUnique({ where: { name: body.group } }))) {
    throw new GatewayError("invalid_request", `Group '${body.group}' does not exist`, { param: "group" });
  }
  // Which fields changed, so the trail can tell a disable from a new quota (never the values of secrets: keys have none here).
  auditDetail(request, { fields: Object.keys(body) });
  const updated = await applyKeyChange(key, { data: operatorKeyWrite(body), where: {} });
  if (!updated) throw new GatewayError("not_found", "No key with this id");
  return json(publicKey(updated));
});

export const deleteKey = adminRoute(async (_request, params) => {
  const key = await db().apiKey.findUnique({ where: { id: params.id } });
  if (!key || key.deletedAt) throw new GatewayError("not_found", "No key with this id");
  await db().apiKey.update({ where: { id: key.id }, data: { deletedAt: new Date(), status: "disabled" } });
  publish({ type: "key.changed", keyHash: key.keyHash, keyId: key.id });
  return json({ id: key.id, deleted: true });
});

// ----------------------------------------------------------------------------------------------------- groups

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
  publish({ type: "groups.changed" });
  return json({ id: group.id, name: group.name, models: group.models, rateLimitPerMinute: group.rateLimitPerMinute }, existing ? 200 : 201);
});

export const listGroups = adminRoute(async () => {
  const groups = await db().group.findMany({ orderBy: { name: "asc" } });
  return json({
    data: groups.map((group) => ({ id: group.id, name: group.name, models: group.models, rateLimitPerMinute: group.rateLimitPerMinute })),
  });
});

// --------------------------------------------------------------------------------------------------- channels

const channelFields = {
  name: z.string().trim().min(1).max(100),
  type: z.enum(CHANNEL_TYPES),
  baseUrl: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .max(500)
    .transform((value) => value.replace(/\/+$/, "")),
  apiKey: z.string().max(2000),
  models: modelList.min(1, "a channel serves at least one model"),
  modelMapping: z.record(z.string().min(1).max(200), z.string().min(1).max(200)),
  settings: z.record(z.string(), z.unknown()),
  priority: z.number().int().min(-1000).max(1000),
  weight: z.number().int().min(0).max(1000),
  status: z.enum(["enabled", "disabled"]),
};

export const createChannelSchema = z
  .object({
    ...channelFields,
    baseUrl: channelFields.baseUrl.optional(),
    apiKey: channelFields.apiKey.optional(),
    modelMapping: channelFields.modelMapping.default({}),
    settings: channelFields.settings.default({}),
    priority: channelFields.priority.default(0),
    weight: channelFields.weight.default(1),
    status: channelFields.status.default("enabled"),
  })
  .refine((body) => !providerOf(body.type).needsBaseUrl || Boolean(body.baseUrl), {
    message: "baseUrl is required for this channel type",
    path: ["baseUrl"],
  });

export const createChannel = adminRoute(async (request) => {
  const body = await readBody(request, createChannelSchema);
  const channel = await db().channel.create({
    data: {
      name: body.name,
      type: body.type,
      baseUrl: body.baseUrl ?? "",
      apiKey: encrypt(body.apiKey ?? "", env().secret),
      models: body.models,
      modelMapping: body.modelMapping,
      settings: body.settings as object,
      priority: body.priority,
      weight: body.weight,
      status: body.status,
    },
  });
  publish({ type: "channels.changed" });
  return json({ id: channel.id }, 201);
});

export const updateChannelSchema = z.object({
  name: channelFields.name.optional(),
  type: channelFields.type.optional(),
  baseUrl: channelFields.baseUrl.optional(),
  apiKey: channelFields.apiKey.optional(),
  models: channelFields.models.optional(),
  modelMapping: channelFields.modelMapping.optional(),
  settings: channelFields.settings.optional(),
  priority: channelFields.priority.optional(),
  weight: channelFields.weight.optional(),
  status: channelFields.status.optional(),
});

export const updateChannel = adminRoute(async (request, params) => {
  const body = await readBody(request, updateChannelSchema);
  const channel = await db().channel.findUnique({ where: { id: params.id } });
  if (!channel) throw new GatewayError("not_found", "No channel with this id");
  const { apiKey, settings, ...rest } = body;
  const updated = await db().channel.update({
    where: { id: channel.id },
    data: {
      ...rest,
      ...(apiKey !== undefined ? { apiKey: encrypt(apiKey, env().secret) } : {}),
      ...(settings !== undefined ? { settings: settings as object } : {}),
      // Re-enabling clears the reason it was disabled.
      ...(body.status === "enabled" ? { disabledReason: null } : {}),
    },
  });
  publish({ type: "channels.changed" });
  return json(publicChannel(updated));
});

export const deleteChannel = adminRoute(async (_request, params) => {
  const channel = await db().channel.findUnique({ where: { id: params.id } });
  if (!channel) throw new GatewayError("not_found", "No channel with this id");
  await db().channel.delete({ where: { id: channel.id } });
  publish({ type: "channels.changed" });
  return json({ id: channel.id, deleted: true });
});

export const listChannels = adminRoute(async () => {
  const channels = await db().channel.findMany({ orderBy: [{ priority: "desc" }, { createdAt: "asc" }] });
  return json({ data: channels.map(publicChannel) });
});

export function publicChannel(channel: {
  id: string;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string;
  models: unknown;
  modelMapping: unknown;
  settings: unknown;
  priority: number;
  weight: number;
  status: string;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}) {
  // The upstream key never leaves the server; the operator sees only whether one is set.
  const { apiKey, ...rest } = channel;
  return { ...rest, hasApiKey: apiKey !== "" };
}

// ----------------------------------------------------------------------------------------------------- prices

const price = z.number().min(0).max(1_000_000);
const multiplier = z.number().min(0).max(100);
export const priceSchema = z
  .object({
    model: z.string().trim().min(1).max(200),
    textInput: price.optional(),
    textOutput: price.optional(),
    imageInput: price.optional(),
    imageOutput: price.optional(),
    cacheReadMultiplier: multiplier.optional(),
    cacheWriteMultiplier: multiplier.optional(),
    cacheWrite1hMultiplier: multiplier.optional(),
    // The long-context tier: all three together, or all three null to remove it.
    tierThreshold: z.number().int().min(1).nullable().optional(),
    tierTextInput: price.nullable().optional(),
    tierTextOutput: price.nullable().optional(),
    // micro-USD per use of a server tool, by tool name (web_search, web_fetch, code_execution, ...).
    toolPrices: z
      .record(
        z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "tool names are lowercase words such as web_search"),
        z.number().int().min(0).max(100_000_000),
      )
      .optional(),
    // Price modifiers (docs/billing.md): the multiplier of every token rate for a request carrying `field:value`
    // (service_tier:priority, speed:fast, inference_geo:us), an operator's field name, or `anthropic-beta:<beta>`.
    // The whole map is replaced; a modifier left out is refused again (or, for flex, charged at the standard rate).
    modifiers: z
      .record(z.string(), z.number().positive("must be above 0").max(100, "must be at most 100"))
      .superRefine((modifiers, context) => {
        const keys = Object.keys(modifiers);
        if (keys.length > 100) context.addIssue({ code: "custom", message: "at most 100 modifiers" });
        for (const key of keys.filter((key) => !MODIFIER_KEY.test(key)))
          context.addIssue({
            code: "custom",
            path: [key],
            message: `'${key.slice(0, 120)}' is not a modifier: write field:value (service_tier:priority), a field name, or anthropic-beta:<beta>`,
          });
      })
      .optional(),
  })
  .refine(
    (body) => {
      const tier = [body.tierThreshold, body.tierTextInput, body.tierTextOutput];
      return (
        tier.every((value) => value === undefined) ||
        tier.every((value) => value === null) ||
        tier.every((value) => typeof value === "number")
      );
    },
    { message: "set tierThreshold, tierTextInput and tierTextOutput together (or all three to null)", path: ["tierThreshold"] },
  );

export const upsertPrice = adminRoute(async (request) => {
  const { model, ...prices } = await readBody(request, priceSchema);
  const row = await db().modelPrice.upsert({
    where: { model },
    create: { model, ...prices, editedByOperator: true },
    update: { ...prices, editedByOperator: true, version: { increment: 1 } },
  });
  publish({ type: "prices.changed" });
  return json(row);
});

export const listPrices = adminRoute(async () => {
  return json({ data: await db().modelPrice.findMany({ orderBy: { model: "asc" } }) });
});

// ----------------------------------------------------------------------------------------------- redeem codes

export const codesSchema = z.object({
  quota: quota.min(1, "must be at least 1"),
  count: z.number().int().min(1).max(1000),
  expiresAt: date.nullable().optional(),
  batch: z.string().trim().max(100).optional(),
});

export const createRedeemCodes = adminRoute(async (request) => {
  const body = await readBody(request, codesSchema);
  if (body.expiresAt && body.expiresAt.getTime() <= Date.now()) {
    throw new GatewayError(
      "invalid_request",
      "This expiry is in the past: the codes could never be redeemed. Choose a later date, or none.",
      { param: "expiresAt" },
    );
  }
  auditDetail(request, { count: body.count, quota: body.quota, batch: body.batch ?? null });
  const batch = body.batch || `batch-${new Date().toISOString().slice(0, 10)}-${randomToken(6)}`;
  const codes = Array.from({ length: body.count }, () => newRedeemCode());
  await db().redeemCode.createMany({
    data: codes.map((code) => ({
      codeHash: redeemCodeHash(code),
      prefix: code.slice(0, 8),
      batch,
      quota: BigInt(body.quota),
      expiresAt: body.expiresAt ?? null,
    })),
  });
  return json({ batch, codes, quota: body.quota, expiresAt: body.expiresAt ?? null }, 201);
});

export const listRedeemCodes = adminRoute(async (request) => {
  const { batch } = parseQuery(request, z.object({ batch: queryFilter }));
  const rows = await db().redeemCode.findMany({ where: { batch }, orderBy: { createdAt: "desc" }, take: 5000 });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      batch: row.batch,
      quota: Number(row.quota),
      status: row.status,
      expiresAt: row.expiresAt,
      redeemedById: row.redeemedById,
      redeemedAt: row.redeemedAt,
      createdAt: row.createdAt,
    })),
  });
});

// ------------------------------------------------------------------------------------------- ledger and mail

const listUsageQuery = z.object({
  userId: queryFilter,
  keyId: queryFilter,
  model: queryFilter,
  kind: queryFilter,
  requestId: queryFilter,
  limit: queryLimit(100, 1000),
  offset: queryOffset,
});

export const listUsage = adminRoute(async (request) => {
  const { limit, offset, ...where } = parseQuery(request, listUsageQuery);
  await flushLedger();
  const rows = await db().usageLog.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    skip: offset,
  });
  return json({ data: rows });
});

export const listOutbox = adminRoute(async (request) => {
  const to = parseQuery(request, z.object({ to: queryFilter })).to?.toLowerCase();
  const rows = await db().emailOutbox.findMany({ where: { to }, orderBy: { createdAt: "desc" }, take: 200 });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      to: row.to,
      subject: row.subject,
      text: row.text,
      status: row.status,
      createdAt: row.createdAt,
    })),
  });
});
