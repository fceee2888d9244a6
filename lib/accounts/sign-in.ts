// The sign-in decision, kept apart from next-auth so it can be tested directly.
// Every refusal reads the same for an unknown email and a wrong password, and costs the same time: an unknown
// email is verified against a dummy hash, and the throttle counts it exactly like a known one.
//
// Order (lib/accounts/throttle: the account counter is charged by the check, before anything is verified):
//   1. sign-in throttle check → locked: "Too many attempts. Try again in …"
//   2. password (or the dummy hash) → wrong or unknown: "Invalid email or password" (failure recorded)
//   3. correct password clears the account's sign-in counter; only now is a disabled account, or one whose email
//      is not confirmed yet (while verification is on), told so: nobody without the password learns either
//      (SECURITY.md, "Web hardening"; docs/decisions/0026-sessions-are-rows.md)
//   4. 2FA on and no code → "Second factor required" (nothing else is said about the account)
//   5. second-factor throttle check → locked; then the TOTP or backup code → wrong: "Invalid authentication code"
import { db } from "@/lib/platform/db/client";
import { log } from "@/lib/platform/log";
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from "./password";
import { consumeSecondFactor } from "./second-factor";
import { emailVerificationRequired } from "./email-verification";
import {
  checkSecondFactorAllowed,
  checkSignInAllowed,
  lockedMessage,
  normaliseEmail,
  recordSecondFactorFailure,
  recordSecondFactorSuccess,
  recordSignInComplete,
  recordSignInFailure,
  recordSignInSuccess,
} from "./throttle";

export const SIGN_IN_MESSAGES = {
  invalid: "Invalid email or password",
  disabled: "This account is disabled. Ask the gateway's operator if you think this is a mistake.",
  unverified: "Confirm your email first: open the link we sent when you signed up. You can ask for a new link below.",
  secondFactorRequired: "Second factor required",
  secondFactorInvalid: "Invalid authentication code",
  changed: "Your password or two-factor settings changed while you were signing in. Sign in again with the new ones.",
} as const;

export type SignInFailure = "invalid" | "locked" | "disabled" | "unverified" | "second_factor_required" | "second_factor_invalid";

export class SignInError extends Error {
  constructor(
    message: string,
    readonly reason: SignInFailure = "invalid",
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "SignInError";
  }
}

// Longest email accepted at all (RFC 5321 allows 254 in practice; 320 is the theoretical maximum).
const MAX_EMAIL_LENGTH = 320;

function locked(retryAfterSeconds: number): SignInError {
  return new SignInError(lockedMessage(retryAfterSeconds), "locked", retryAfterSeconds);
}

export async function signInWithPassword(input: { email: string; password: string; code?: string; address: string | null }) {
  const email = normaliseEmail(input.email);
  const password = typeof input.password === "string" ? input.password : "";
  const throttle = { email, ip: input.address };

  const allowed = await checkSignInAllowed(throttle);
  if (!allowed.allowed) throw locked(allowed.retryAfterSeconds);

  const user = email && email.length <= MAX_EMAIL_LENGTH ? await db().user.findUnique({ where: { email } }) : null;
  const valid = user ? await verifyPassword(password, user.passwordHash) : await verifyAgainstDummy(password);
  if (!user || !valid) {
    await recordSignInFailure(throttle);
    throw new SignInError(SIGN_IN_MESSAGES.invalid, "invalid");
  }
  await recordSignInSuccess(throttle);
  if (user.status !== "active") throw new SignInError(SIGN_IN_MESSAGES.disabled, "disabled");
  if (!user.emailVerifiedAt && (await emailVerificationRequired())) throw new SignInError(SIGN_IN_MESSAGES.unverified, "unverified");

  if (needsRehash(user.passwordHash)) {
    // Older hash parameters: upgrade now that the plain password is at hand. Conditional, so a password changed
    // meanwhile is not overwritten; best effort, the sign-in does not wait for it.
    void hashPassword(password)
      .then((passwordHash) => db().user.updateMany({ where: { id: user.id, passwordHash: user.passwordHash }, data: { passwordHash } }))
      .catch((error) => log.warn("password rehash failed", { userId: user.id, error }));
  }

  if (user.totpEnabled) {
    const code = typeof input.code === "string" ? input.code.trim() : "";
    if (!code) throw new SignInError(SIGN_IN_MESSAGES.secondFactorRequired, "second_factor_required");
    const secondAllowed = await checkSecondFactorAllowed(throttle);
    if (!secondAllowed.allowed) throw locked(secondAllowed.retryAfterSeconds);
    const passed = await consumeSecondFactor(user, code);
    if (!passed) {
      await recordSecondFactorFailure(throttle);
      throw new SignInError(SIGN_IN_MESSAGES.secondFactorInvalid, "second_factor_invalid");
    }
    await recordSecondFactorSuccess(throttle);
  }
  await recordSignInComplete(throttle);
  return user;
}
