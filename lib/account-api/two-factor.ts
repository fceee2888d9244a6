// Two-factor authentication (TOTP) for the signed-in user: setup → enable with a first code → disable with a code.
// Session only (SECURITY.md: 2FA changes need a session): a request carrying an API key is refused with 403 before anything is read.
// Every code check is throttled like sign-in (5 wrong codes per account per 15 minutes, 30 per address), and a TOTP
// code is accepted once (its time step is recorded with a conditional update), with ±1 step of clock skew.
// Turning 2FA on or off ends the user's other sessions (this one continues with a re-issued cookie) and mails the
// owner a notice (lib/accounts/security-notices.ts).
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { encrypt } from "@/lib/platform/crypto";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { newTotpSecret, otpauthUrl, qrCodeDataUrl } from "@/lib/accounts/totp";
import { newBackupCodes } from "@/lib/accounts/backup-codes";
import { consumeSecondFactor, consumeTotp, readTotpSecret } from "@/lib/accounts/second-factor";
import { checkSecondFactorAllowed, recordSecondFactorFailure, recordSecondFactorSuccess } from "@/lib/accounts/throttle";
import { sendSecurityNotice } from "@/lib/accounts/security-notices";
import { sessionCookieFor } from "@/lib/auth/session";
import { lockedError, sessionRoute, type SessionContext } from "./route";

export const TWO_FACTOR_KEY_REFUSAL =
  "Two-factor settings need a signed-in session (the portal's cookie); API keys cannot read or change them";

export const BACKUP_CODE_COUNT = 10;

const CODE_HINT = "the 6-digit code from your authenticator app (or one of your backup codes)";
export const codeSchema = z.object({
  code: z
    .string({ error: (issue) => (issue.input === undefined ? `Send 'code': ${CODE_HINT}` : `'code' must be text: ${CODE_HINT}`) })
    .trim()
    .min(1, `Send 'code': ${CODE_HINT}`)
    .max(100, "is too long"),
});

/** Throttle check → `verify` → record; throws 429 when locked and 400 when the code is refused. */
async function checkCode<T>(context: SessionContext, verify: () => Promise<T | null>): Promise<T> {
  const throttle = { email: context.user.email, ip: context.address };
  const decision = await checkSecondFactorAllowed(throttle);
  if (!decision.allowed) throw lockedError(decision);
  const passed = await verify();
  if (passed === null) {
    await recordSecondFactorFailure(throttle);
    throw new GatewayError("invalid_request", "That code is not valid (or was already used); enter the current code", { param: "code" });
  }
  await recordSecondFactorSuccess(throttle);
  return passed;
}

async function answerWithFreshSession(user: { id: string; sessionId: string }, body: unknown): Promise<Response> {
  publish({ type: "user.changed", userId: user.id });
  const updated = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  return json(body, 200, { "set-cookie": await sessionCookieFor(updated, user.sessionId) });
}

/** POST /api/user/2fa/setup → {secret, otpauthUrl, qrCode}. Stores a new secret; 2FA stays off until enable. */
export const setupTwoFactor = sessionRoute(
  async (_request, _params, { user }) => {
    if (user.totpEnabled) {
      throw new GatewayError(
        "conflict",
        "Two-factor authentication is already on. Turn it off (with a current code) before setting up another authenticator.",
      );
    }
    const secret = newTotpSecret();
    const stored = await db().user.updateMany({
      where: { id: user.id, totpEnabled: false },
      data: { totpSecret: encrypt(secret, env().secret), totpLastStep: null },
    });
    if (stored.count === 0) throw new GatewayError("conflict", "Two-factor authentication was turned on meanwhile");
    const url = otpauthUrl(secret, user.email);
    return json({ secret, otpauthUrl: url, qrCode: await qrCodeDataUrl(url) });
  },
  { keyRefusal: TWO_FACTOR_KEY_REFUSAL },
);

/** POST /api/user/2fa/enable {code} → {backupCodes}: the first code from the app turns 2FA on. */
export const enableTwoFactor = sessionRoute(
  async (request, _params, context) => {
    const { user } = context;
    const body = await readBody(request, codeSchema, ACCOUNT_BODY_LIMIT_BYTES);
    if (user.totpEnabled) throw new GatewayError("conflict", "Two-factor authentication is already on");
    const secret = readTotpSecret(user.totpSecret);
    if (!secret) throw new GatewayError("conflict", "Start with POST /api/user/2fa/setup, then send a code from your authenticator app");
    await checkCode(context, () => consumeTotp(user.id, secret, body.code, user.totpLastStep));
    // Conditional on the secret the code was checked against: a setup in between (new secret) wins.
    const enabled = await db().user.updateMany({
      where: { id: user.id, totpEnabled: false, totpSecret: user.totpSecret },
      data: { totpEnabled: true, sessionVersion: { increment: 1 } },
    });
    if (enabled.count === 0) throw new GatewayError("conflict", "Two-factor settings changed meanwhile; start again with setup");
    const codes = newBackupCodes(env().secret, BACKUP_CODE_COUNT);
    await db().$transaction([
      db().backupCode.deleteMany({ where: { userId: user.id } }),
      db().backupCode.createMany({ data: codes.hashes.map((codeHash) => ({ userId: user.id, codeHash })) }),
    ]);
    await sendSecurityNotice(user.email, "two-factor-on");
    // Shown once: only their hashes are stored.
    return answerWithFreshSession(user, { backupCodes: codes.plain });
  },
  { keyRefusal: TWO_FACTOR_KEY_REFUSAL },
);

/** POST /api/user/2fa/disable {code} (a current TOTP code or an unused backup code) → {totpEnabled: false}. */
export const disableTwoFactor = sessionRoute(
  async (request, _params, context) => {
    const { user } = context;
    const body = await readBody(request, codeSchema, ACCOUNT_BODY_LIMIT_BYTES);
    if (!user.totpEnabled) throw new GatewayError("conflict", "Two-factor authentication is not on");
    await checkCode(context, () => consumeSecondFactor(user, body.code));
    const disabled = await db().user.updateMany({
      where: { id: user.id, totpEnabled: true },
      data: { totpEnabled: false, totpSecret: null, totpLastStep: null, sessionVersion: { increment: 1 } },
    });
    if (disabled.count === 0) throw new GatewayError("conflict", "Two-factor authentication was turned off meanwhile");
    await db().backupCode.deleteMany({ where: { userId: user.id } });
    await sendSecurityNotice(user.email, "two-factor-off");
    return answerWithFreshSession(user, { totpEnabled: false });
  },
  { keyRefusal: TWO_FACTOR_KEY_REFUSAL },
);
