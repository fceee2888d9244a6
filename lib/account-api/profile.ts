// The signed-in user's own profile (GET /api/user/self) and password change (POST /api/user/password).
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { checkPasswordStrength, hashPassword, verifyPassword } from "@/lib/accounts/password";
import { checkSignInAllowed, recordSignInFailure, recordSignInSuccess } from "@/lib/accounts/throttle";
import { sessionCookieFor } from "@/lib/auth/session";
import { allowedGroups } from "@/lib/accounts/groups";
import { sendSecurityNotice } from "@/lib/accounts/security-notices";
import { flushLedger } from "@/lib/money/ledger";
import { lockedError, sessionRoute } from "./route";

export const self = sessionRoute(async (_request, _params, { user }) => {
  // The balance with every settlement still in the batch writer applied, read after it: the same figure the Keys
  // page and the playground's key read (lib/money/ledger.ts), so no money figure on screen lags the others.
  await flushLedger();
  const fresh = await db().user.findUnique({ where: { id: user.id }, select: { balance: true } });
  const [backupCodesRemaining, groups] = await Promise.all([
    user.totpEnabled ? db().backupCode.count({ where: { userId: user.id, usedAt: null } }) : Promise.resolve(0),
    allowedGroups(user),
  ]);
  return json({
    id: user.id,
    email: user.email,
    role: user.role,
    status: user.status,
    balance: Number(fresh?.balance ?? user.balance),
    totpEnabled: user.totpEnabled,
    backupCodesRemaining,
    groups,
    createdAt: user.createdAt,
    passwordChangedAt: user.passwordChangedAt,
  });
});

export const passwordSchema = z.object({ current: z.string().max(1000, "is too long"), next: z.string().max(1000, "is too long") });

/**
 * Changes the password. The current one is checked under the sign-in throttle (a stolen session cannot guess it
 * faster than the sign-in form). Every other session ends; this one continues with a re-issued cookie. Reset
 * links sent before now stop working (their createdAt is before passwordChangedAt). The owner gets a notice mail.
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
  const cookie = await sessionCookieFor(updated, user.sessionId);
  await sendSecurityNotice(user.email, "password-changed");
  return json({ changed: true }, 200, { "set-cookie": cookie });
});
