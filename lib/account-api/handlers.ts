// The account API (/api/user/*) except 2FA (two-factor.ts) and password reset (reset.ts): sign-up, the user's own
// profile, keys, usage, redeem codes and password change. Every object is looked up together with the signed-in
// user's id, so another user's key id is simply "not found" (SECURITY.md: object-level checks).
import { z } from "zod";
import { db, type Prisma } from "@/lib/platform/db/client";
import { Prisma as SqlHelpers } from "@/lib/generated/sqlite/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, parseQuery, parseWith, readBody, readText } from "@/lib/platform/http/json";
import { firstUnstorableText } from "@/lib/platform/text";
import { publish } from "@/lib/platform/events";
import { newApiKey } from "@/lib/keys/format";
import { flushLedger } from "@/lib/money/ledger";
import { groupOf } from "@/lib/money/prices";
import { moneyStore } from "@/lib/money/store";
import { applyKeyChange, publicKey } from "@/lib/keys/store";
import { ownerKeyWrite } from "@/lib/keys/controls";
import { redeemLookupHashes } from "@/lib/accounts/redeem-format";
import { checkPasswordStrength, hashPassword, verifyPassword } from "@/lib/accounts/password";
import {
  accountCounter,
  addressCounter,
  checkSignInAllowed,
  countEvent,
  peekEvents,
  recordSignInFailure,
  recordSignInSuccess,
} from "@/lib/accounts/throttle";
import { sendAppMail } from "@/lib/mail/outbox";
import { sessionCookieFor } from "@/lib/auth/session";
import { emailVerificationRequired } from "@/lib/accounts/email-verification";
import { allowedGroups } from "@/lib/accounts/groups";

export { allowedGroups };
import { sendVerificationMail } from "./verify-email";
import { inBackground, lockedError, publicRoute, sessionOrKeyRoute, sessionRoute, type UserRow } from "./route";

const HOUR_MS = 60 * 60 * 1000;

/** At most this many sign-ups per client address per hour. */
export const SIGNUP_PER_ADDRESS = 10;
/** At most this many "you already have an account" mails per account per hour. */
const SIGNUP_NOTICES_PER_ACCOUNT = 3;
/** Unknown redeem codes per user (and per address) per 15 minutes before topup answers 429. */
export const REDEEM_GUESSES = 10;
export const REDEEM_GUESSES_PER_ADDRESS = 30;
/** Live (not deleted) keys one user may hold. */
export const MAX_KEYS_PER_USER = 50;

const email = z
  .email("must be an email address")
  .max(320)
  .transform((value) => value.trim().toLowerCase());
const quota = z.number().int("must be a whole number of micro-USD").min(0).max(Number.MAX_SAFE_INTEGER);

async function readSetting(key: string): Promise<unknown> {
  const row = await db().setting.findUnique({ where: { key } });
  return row?.value;
}

/** GATEWAY_SIGNUP=off, or the setting "signup.enabled" set to false ("off", "false", 0), turns sign-up off. */
export async function signupEnabled(): Promise<boolean> {
  if (env().GATEWAY_SIGNUP === "off") return false;
  const value = await readSetting("signup.enabled");
  return !(value === false || value === 0 || value === "off" || value === "false");
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

// ------------------------------------------------------------------------------------------------------ sign-up

export const signupSchema = z.object({ email, password: z.string().max(1000, "is too long") });

/**
 * The one answer to every accepted sign-up, whether the email was new or already had an account: the endpoint
 * must not tell who has an account. The owner of an existing account gets a mail instead.
 */
export const SIGNUP_MESSAGE =
  "If this email was new, your account is ready: sign in with it. If it already had an account, we sent a message to that address instead.";
/** The same, when new accounts confirm their email first (lib/accounts/email-verification.ts). */
export const SIGNUP_MESSAGE_VERIFY =
  "If this email was new, we sent a link to it: open it to confirm the address, then sign in. If it already had an account, we sent a message to that address instead.";

export const signup = publicRoute(async (request, _params, context) => {
  if (!(await signupEnabled())) {
    throw new GatewayError("forbidden", "Sign-up is turned off on this gateway. Ask its operator for an account.");
  }
  // The address's limit is looked at before the body is read (an address over it costs no parsing), and counted
  // once the body is valid.
  const counter = addressCounter("signup", context.address);
  if (counter) {
    const decision = await peekEvents(counter, SIGNUP_PER_ADDRESS, HOUR_MS);
    if (!decision.allowed) throw lockedError(decision);
  }
  const body = await readBody(request, signupSchema, ACCOUNT_BODY_LIMIT_BYTES);
  const weak = checkPasswordStrength(body.password, { email: body.email });
  if (weak) throw new GatewayError("invalid_request", weak, { param: "password" });
  if (counter) {
    const decision = await countEvent(counter, SIGNUP_PER_ADDRESS, HOUR_MS);
    if (!decision.allowed) throw lockedError(decision);
  }
  // Hashed in both cases, so a known email answers in the same time as a new one.
  const passwordHash = await hashPassword(body.password);
  const verify = await emailVerificationRequired();
  let created: { id: string; email: string } | null = null;
  try {
    created = await db().user.create({ data: { email: body.email, passwordHash, emailVerifiedAt: verify ? null : new Date() } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Mails go out after the answer, so its timing does not depend on which of the two was sent.
  if (!created) inBackground("sign-up notice", () => sendExistingAccountNotice(body.email));
  else if (verify) inBackground("verification mail", () => sendVerificationMail(created));
  return json({ email: body.email, message: verify ? SIGNUP_MESSAGE_VERIFY : SIGNUP_MESSAGE }, 202);
});

async function sendExistingAccountNotice(address: string): Promise<void> {
  const decision = await countEvent(accountCounter("signup-notice", address), SIGNUP_NOTICES_PER_ACCOUNT, HOUR_MS);
  if (!decision.allowed) return;
  const base = env().appUrl;
  await sendAppMail({
    to: address,
    subject: "Someone tried to sign up with your email",
    text:
      `Someone tried to create a Model Gateway account with ${address}, which already has one.\n\n` +
      `If it was you, sign in at ${base}/sign-in, or choose a new password at ${base}/reset-password.\n` +
      `If it was not you, you can ignore this message: nothing was changed.\n`,
  });
}

// --------------------------------------------------------------------------------------------------------- self

export const self = sessionRoute(async (_request, _params, { user }) => {
  const [backupCodesRemaining, groups] = await Promise.all([
    user.totpEnabled ? db().backupCode.count({ where: { userId: user.id, usedAt: null } }) : Promise.resolve(0),
    allowedGroups(user),
  ]);
  return json({
    id: user.id,
    email: user.email,
    role: user.role,
    status: user.status,
    balance: Number(user.balance),
    totpEnabled: user.totpEnabled,
    backupCodesRemaining,
    groups,
    createdAt: user.createdAt,
    passwordChangedAt: user.passwordChangedAt,
  });
});

// --------------------------------------------------------------------------------------------------------- keys

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
  })
  .refine((body) => body.unlimited || body.quota !== undefined, {
    message: "give a quota (micro-USD) or unlimited: true",
    path: ["quota"],
  });

export const listKeys = sessionRoute(async (_request, _params, { user }) => {
  await flushLedger();
  const [keys, spend] = await Promise.all([
    db().apiKey.findMany({ where: { userId: user.id, deletedAt: null }, orderBy: { createdAt: "desc" } }),
    // What each key has spent, all time (requests only; top-ups belong to the account).
    db().usageLog.groupBy({ by: ["keyId"], where: { userId: user.id, kind: "request" }, _sum: { cost: true } }),
  ]);
  const spent = new Map(spend.map((row) => [row.keyId, Number(row._sum.cost ?? 0)]));
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
  const live = await db().apiKey.count({ where: { userId: user.id, deletedAt: null } });
  if (live >= MAX_KEYS_PER_USER) throw new GatewayError("conflict", `You have ${live} keys, the most allowed; delete one first`);
  const { key, hash, prefix } = newApiKey();
  const row = await db().apiKey.create({
    data: {
      keyHash: hash,
      prefix,
      name: body.name,
      userId: user.id,
      group: body.group,
      quotaRemaining: BigInt(body.unlimited ? 0 : (body.quota ?? 0)),
      unlimited: body.unlimited,
      expiresAt: body.expiresAt ?? null,
    },
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
  })
  .refine((body) => Object.keys(body).length > 0, { message: "send at least one of name, expiresAt, quota, unlimited, status, models" });

/**
 * PATCH /api/user/keys/{id}: the owner renames, pauses, resumes, re-dates or re-caps one of their keys, within what
 * the operator left them (lib/keys/controls.ts): a 403 says which of the operator's controls the change would undo.
 */
export const updateOwnKey = sessionRoute(async (request, params, { user }) => {
  const body = await readBody(request, updateOwnKeySchema, ACCOUNT_BODY_LIMIT_BYTES);
  // A write whose checks no longer hold (requests spent the quota meanwhile, an operator changed the key) is
  // checked again on the row as it is now.
  for (let attempt = 0; attempt < 3; attempt++) {
    // One lookup with both conditions: another user's key and a missing key answer the same 404.
    const key = await db().apiKey.findFirst({ where: { id: params.id ?? "", userId: user.id, deletedAt: null } });
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
  const key = await db().apiKey.findFirst({ where: { id, userId: user.id, deletedAt: null } });
  if (!key) throw new GatewayError("not_found", "No key with this id");
  const deleted = await db().apiKey.updateMany({
    where: { id: key.id, userId: user.id, deletedAt: null },
    data: { deletedAt: new Date(), status: "disabled" },
  });
  if (deleted.count === 0) throw new GatewayError("not_found", "No key with this id");
  publish({ type: "key.changed", keyHash: key.keyHash, keyId: key.id });
  return json({ id: key.id, deleted: true });
}

const keyId = z.string().trim().min(1, "is required").max(100);

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

// -------------------------------------------------------------------------------------------------------- usage

const dayStart = z.iso.date().transform((value) => new Date(`${value}T00:00:00.000Z`));
const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
/** Neither database takes a date from year 10000 on (Prisma writes it as "+010000-…"), so a range ends before it. */
const END_OF_DATES = Date.UTC(10000, 0, 1);
const LAST_DAY = "9999-12-30";
const beforeYear10000 = (value: Date) => value.getTime() < END_OF_DATES && value.getTime() >= Date.UTC(1, 0, 1);

export const usageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    model: z.string().trim().min(1).max(200).optional(),
    status: z.enum(["success", "error", "cancelled", "refused"]).optional(),
    kind: z.enum(["request", "topup", "adjust"]).optional(),
    keyId: keyId.optional(),
    // from: inclusive. to: exclusive; a plain date means through the end of that day (UTC).
    from: z.union([instant, dayStart]).refine(beforeYear10000, `must be a date from 0001-01-01 to ${LAST_DAY}`).optional(),
    to: z
      .union([instant, dayStart.transform((value) => new Date(value.getTime() + 24 * HOUR_MS))])
      .refine(beforeYear10000, `must be a date from 0001-01-01 to ${LAST_DAY} (a plain date counts through the end of its day)`)
      .optional(),
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, { message: "must be after 'from'", path: ["to"] });

/** How far back the daily totals go when no `from` is given. */
const DEFAULT_DAILY_DAYS = 30;

type DailyRow = {
  day: string;
  requests: unknown;
  spent: unknown;
  credited: unknown;
  textInputTokens: unknown;
  textOutputTokens: unknown;
  imageInputTokens: unknown;
  imageOutputTokens: unknown;
};

export const usage = sessionRoute(async (request, _params, { user }) => {
  const query = parseQuery(request, usageQuery);
  if (query.keyId) {
    // Deleted keys still have history; another user's key is "not found", like everywhere else.
    const key = await db().apiKey.findFirst({ where: { id: query.keyId, userId: user.id }, select: { id: true } });
    if (!key) throw new GatewayError("not_found", "No key with this id", { param: "keyId" });
  }
  await flushLedger();
  const where: Prisma.UsageLogWhereInput = {
    userId: user.id,
    model: query.model,
    status: query.status,
    kind: query.kind,
    keyId: query.keyId,
    createdAt: query.from || query.to ? { gte: query.from, lt: query.to } : undefined,
  };
  const [rows, total] = await Promise.all([
    db().usageLog.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: query.limit, skip: query.offset }),
    db().usageLog.count({ where }),
  ]);

  const dailyTo = query.to ?? new Date();
  const dailyFrom =
    query.from ?? new Date(Date.UTC(dailyTo.getUTCFullYear(), dailyTo.getUTCMonth(), dailyTo.getUTCDate() - (DEFAULT_DAILY_DAYS - 1)));
  const sql = SqlHelpers.sql;
  const filters = [
    sql`"userId" = ${user.id}`,
    sql`"createdAt" >= ${dailyFrom}`,
    sql`"createdAt" < ${dailyTo}`,
    ...(query.model ? [sql`"model" = ${query.model}`] : []),
    ...(query.status ? [sql`"status" = ${query.status}`] : []),
    ...(query.kind ? [sql`"kind" = ${query.kind}`] : []),
    ...(query.keyId ? [sql`"keyId" = ${query.keyId}`] : []),
  ];
  // Dates are stored in UTC: ISO text on SQLite (its first 10 characters are the day), timestamp(3) on PostgreSQL.
  const day = SqlHelpers.raw(env().databaseKind === "sqlite" ? `substr("createdAt", 1, 10)` : `to_char("createdAt", 'YYYY-MM-DD')`);
  const daily = await db().$queryRaw<DailyRow[]>(sql`
    SELECT ${day} AS "day",
      CAST(SUM(CASE WHEN "kind" = 'request' THEN 1 ELSE 0 END) AS BIGINT) AS "requests",
      CAST(SUM(CASE WHEN "kind" = 'request' THEN "cost" ELSE 0 END) AS BIGINT) AS "spent",
      CAST(SUM(CASE WHEN "kind" <> 'request' THEN -"cost" ELSE 0 END) AS BIGINT) AS "credited",
      CAST(SUM("textInputTokens") AS BIGINT) AS "textInputTokens",
      CAST(SUM("textOutputTokens") AS BIGINT) AS "textOutputTokens",
      CAST(SUM("imageInputTokens") AS BIGINT) AS "imageInputTokens",
      CAST(SUM("imageOutputTokens") AS BIGINT) AS "imageOutputTokens"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join(filters, " AND ")}
    GROUP BY ${day}
    ORDER BY ${day}`);

  // Per day, model and key in the same range (the charts' "by model" and "by key"), and totals over every filtered
  // row (not only the chart's range), each in one query.
  const breakdown = await db().$queryRaw<
    { day: string; model: string; keyId: string | null; keyPrefix: string | null; requests: unknown; spent: unknown }[]
  >(sql`
    SELECT ${day} AS "day", "model", "keyId", "keyPrefix",
      CAST(COUNT(*) AS BIGINT) AS "requests", CAST(SUM("cost") AS BIGINT) AS "spent"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join([...filters, sql`"kind" = 'request'`], " AND ")}
    GROUP BY ${day}, "model", "keyId", "keyPrefix"
    ORDER BY ${day}`);
  const totalFilters = [
    sql`"userId" = ${user.id}`,
    ...(query.from ? [sql`"createdAt" >= ${query.from}`] : []),
    ...(query.to ? [sql`"createdAt" < ${query.to}`] : []),
    ...filters.slice(3),
  ];
  const [sums] = await db().$queryRaw<Omit<DailyRow, "day">[]>(sql`
    SELECT
      CAST(COALESCE(SUM(CASE WHEN "kind" = 'request' THEN 1 ELSE 0 END), 0) AS BIGINT) AS "requests",
      CAST(COALESCE(SUM(CASE WHEN "kind" = 'request' THEN "cost" ELSE 0 END), 0) AS BIGINT) AS "spent",
      CAST(COALESCE(SUM(CASE WHEN "kind" <> 'request' THEN -"cost" ELSE 0 END), 0) AS BIGINT) AS "credited",
      CAST(COALESCE(SUM("textInputTokens"), 0) AS BIGINT) AS "textInputTokens",
      CAST(COALESCE(SUM("textOutputTokens"), 0) AS BIGINT) AS "textOutputTokens",
      CAST(COALESCE(SUM("imageInputTokens"), 0) AS BIGINT) AS "imageInputTokens",
      CAST(COALESCE(SUM("imageOutputTokens"), 0) AS BIGINT) AS "imageOutputTokens"
    FROM "UsageLog"
    WHERE ${SqlHelpers.join(totalFilters, " AND ")}`);

  return json({
    data: rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      requestId: row.requestId,
      keyId: row.keyId,
      keyPrefix: row.keyPrefix,
      endpoint: row.endpoint,
      model: row.model,
      textInputTokens: row.textInputTokens,
      textOutputTokens: row.textOutputTokens,
      imageInputTokens: row.imageInputTokens,
      imageOutputTokens: row.imageOutputTokens,
      cost: Number(row.cost),
      status: row.status,
      httpStatus: row.httpStatus,
      error: row.error,
      latencyMs: row.latencyMs,
      stream: row.stream,
      createdAt: row.createdAt,
    })),
    total,
    limit: query.limit,
    offset: query.offset,
    daily: daily.map((row) => ({
      date: row.day,
      requests: Number(row.requests),
      spent: Number(row.spent),
      credited: Number(row.credited),
      textInputTokens: Number(row.textInputTokens),
      textOutputTokens: Number(row.textOutputTokens),
      imageInputTokens: Number(row.imageInputTokens),
      imageOutputTokens: Number(row.imageOutputTokens),
    })),
    dailyRange: { from: dailyFrom, to: dailyTo },
    breakdown: breakdown.map((row) => ({
      date: row.day,
      model: row.model,
      keyId: row.keyId,
      keyPrefix: row.keyPrefix,
      requests: Number(row.requests),
      spent: Number(row.spent),
    })),
    totals: {
      rows: total,
      requests: Number(sums?.requests ?? 0),
      spent: Number(sums?.spent ?? 0),
      credited: Number(sums?.credited ?? 0),
      textInputTokens: Number(sums?.textInputTokens ?? 0),
      textOutputTokens: Number(sums?.textOutputTokens ?? 0),
      imageInputTokens: Number(sums?.imageInputTokens ?? 0),
      imageOutputTokens: Number(sums?.imageOutputTokens ?? 0),
    },
  });
});

// -------------------------------------------------------------------------------------------------------- topup

export const topupSchema = z.object({ key: z.string().trim().min(1, "is required").max(200, "is too long") });

const REDEEM_REFUSALS = {
  unknown: "This redeem code does not exist; check it for typing mistakes",
  used: "This redeem code has already been used",
  expired: "This redeem code has expired",
  disabled: "This redeem code has been disabled by the operator",
} as const;

/**
 * Redeems a code for the caller (the session's user, or the owner of the Bearer key). The claim, the credit and
 * the ledger row are one transaction around one conditional update (lib/money/store.ts), so of any number of
 * parallel redemptions exactly one credits.
 */
export const topup = sessionOrKeyRoute(async (request, _params, caller) => {
  const body = await readBody(request, topupSchema, ACCOUNT_BODY_LIMIT_BYTES);
  const userBucket = `redeem:user:${caller.userId}`;
  const addressBucket = addressCounter("redeem", caller.address);
  // Guessing is hopeless (codes carry ~117 random bits), but each guess costs a transaction: bound it.
  for (const [bucket, limit] of [
    [userBucket, REDEEM_GUESSES],
    [addressBucket, REDEEM_GUESSES_PER_ADDRESS],
  ] as const) {
    if (!bucket) continue;
    const decision = await peekEvents(bucket, limit);
    if (!decision.allowed) throw lockedError(decision);
  }
  // Case-free hash first (codes in the Crockford format, lib/accounts/redeem-format.ts), then the case-sensitive one of older codes.
  let result = { status: "unknown" } as Awaited<ReturnType<ReturnType<typeof moneyStore>["redeem"]>>;
  for (const hash of redeemLookupHashes(body.key)) {
    result = await moneyStore().redeem(hash, caller.userId, caller.requestId);
    if (result.status !== "unknown") break;
  }
  if (result.status !== "ok") {
    if (result.status === "unknown") {
      await countEvent(userBucket, REDEEM_GUESSES);
      if (addressBucket) await countEvent(addressBucket, REDEEM_GUESSES_PER_ADDRESS);
    }
    throw new GatewayError("invalid_request", REDEEM_REFUSALS[result.status], { param: "key" });
  }
  publish({ type: "user.changed", userId: caller.userId });
  return json({ quota: result.quota, balance: result.balance });
});

// ----------------------------------------------------------------------------------------------------- password

export const passwordSchema = z.object({ current: z.string().max(1000, "is too long"), next: z.string().max(1000, "is too long") });

/**
 * Changes the password. The current one is checked under the sign-in throttle (a stolen session cannot guess it
 * faster than the sign-in form). Every other session ends; this one continues with a re-issued cookie. Reset
 * links sent before now stop working (their createdAt is before passwordChangedAt).
 */
export const changePassword = sessionRoute(async (request, _params, { user, address }) => {
  const body = await readBody(request, passwordSchema, ACCOUNT_BODY_LIMIT_BYTES);
  const weak = checkPasswordStrength(body.next, { email: user.email });
  if (weak) throw new GatewayError("invalid_request", weak, { param: "next" });
  const throttle = { email: user.email, ip: address };
  const decision = await checkSignInAllowed(throttle);
  if (!decision.allowed) throw lockedError(decision);
  if (!(await verifyPassword(body.current, user.passwordHash))) {
    await recordSignInFailure(throttle);
    throw new GatewayError("invalid_request", "The current password is wrong", { param: "current" });
  }
  await recordSignInSuccess(throttle);
  const passwordHash = await hashPassword(body.next);
  // Conditional on the hash just verified: of two concurrent changes only one applies.
  const changed = await db().user.updateMany({
    where: { id: user.id, passwordHash: user.passwordHash },
    data: { passwordHash, passwordChangedAt: new Date(), sessionVersion: { increment: 1 } },
  });
  if (changed.count === 0) throw new GatewayError("conflict", "The password was changed meanwhile; sign in again");
  publish({ type: "user.changed", userId: user.id });
  const updated = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  return json({ changed: true }, 200, { "set-cookie": await sessionCookieFor(updated, user.sessionId) });
});
