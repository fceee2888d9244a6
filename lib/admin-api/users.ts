// The operator's users (/api/admin/users): create, list, disable or enable, change role, adjust the balance.
import { z } from "zod";
import { queryFilter, queryLimit } from "./query";
import { auditChanges, auditDetail } from "./audit";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json, parseQuery, readBody, requestIdOf } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { hashPassword, checkPasswordStrength } from "@/lib/accounts/password";
import { endUserSessions } from "@/lib/auth/session";
import { flushLedger } from "@/lib/money/ledger";
import { moneyStore } from "@/lib/money/store";
import { creditRow } from "@/lib/money/store-rows";
import { adminRoute, quota } from "./route";

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

export const listUsersQuery = z.object({ q: queryFilter, limit: queryLimit(200, 1000) });

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
    if (body.status === "disabled") await endUserSessions(user.id);
    publish({ type: "user.changed", userId: user.id });
  }
  let balance = Number(user.balance);
  if (body.balanceDelta) {
    const { cost: _cost, ...row } = creditRow({
      kind: "adjust",
      userId: user.id,
      requestId: requestIdOf(request),
      endpoint: "/api/admin/users",
      cost: 0,
      detail: body.note ? { note: body.note } : null,
      at: new Date(),
    });
    balance = await moneyStore().credit(user.id, body.balanceDelta, row);
  }
  const updated = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  auditChanges(request, user.email, { status: user.status, role: user.role }, { status: body.status, role: body.role });
  if (body.balanceDelta) auditDetail(request, { balanceDelta: body.balanceDelta, ...(body.note ? { note: body.note } : {}) });
  return json({ id: updated.id, email: updated.email, role: updated.role, status: updated.status, balance });
});
