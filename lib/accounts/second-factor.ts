// Checking a second-factor code for sign-in and for turning 2FA off: a TOTP code from
// the user's authenticator, or one of their backup codes. Both are consumed with one conditional update, so two
// requests carrying the same code at the same moment cannot both pass (no replay, even in a race).
// Throttling is the caller's job (lib/accounts/throttle: check → consume → record).
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { decrypt } from "@/lib/platform/crypto";
import { hashBackupCode, normaliseBackupCode } from "./backup-codes";
import { verifyTotp } from "./totp";

export type SecondFactorUser = { id: string; totpSecret: string | null; totpLastStep: number | null };

export type SecondFactorKind = "totp" | "backup";

/** The TOTP secret in plain text (it is stored encrypted with GATEWAY_SECRET). */
export function readTotpSecret(sealed: string | null): string | null {
  if (!sealed) return null;
  return decrypt(sealed, env().secret) || null;
}

/**
 * Accepts TOTP code `code` for the user with secret `secret`: valid for the current step ±1, later than the last
 * accepted step, and then recorded as the last accepted step in the same conditional update. Null when refused.
 */
export async function consumeTotp(userId: string, secret: string, code: string, lastStep: number | null): Promise<number | null> {
  const result = await verifyTotp(secret, code, { afterTimeStep: lastStep });
  if (!result.ok) return null;
  // The check above read lastStep a moment ago; the condition here closes the gap against a parallel request.
  const claimed = await db().user.updateMany({
    where: { id: userId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: result.timeStep } }] },
    data: { totpLastStep: result.timeStep },
  });
  return claimed.count === 1 ? result.timeStep : null;
}

/** Marks one unused backup code of the user as used; false when there is no such unused code. */
export async function consumeBackupCode(userId: string, code: string): Promise<boolean> {
  const normalised = normaliseBackupCode(code);
  if (normalised.length === 0 || normalised.length > 64) return false;
  const used = await db().backupCode.updateMany({
    where: { userId, codeHash: hashBackupCode(normalised, env().secret), usedAt: null },
    data: { usedAt: new Date() },
  });
  return used.count > 0;
}

/**
 * Checks `code` as a TOTP code (six digits, spaces ignored) or else as a backup code, and consumes it.
 * Returns which kind passed, or null. Backup codes never consist of six digits (their alphabet has letters and
 * no 0 or 1, 12 characters), so the two forms cannot be confused.
 */
export async function consumeSecondFactor(user: SecondFactorUser, code: unknown): Promise<SecondFactorKind | null> {
  if (typeof code !== "string") return null;
  const compact = code.replace(/\s+/g, "");
  if (/^\d{6}$/.test(compact)) {
    const secret = readTotpSecret(user.totpSecret);
    if (!secret) return null;
    return (await consumeTotp(user.id, secret, compact, user.totpLastStep)) === null ? null : "totp";
  }
  return (await consumeBackupCode(user.id, code)) ? "backup" : null;
}
