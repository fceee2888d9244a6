// Password reset (SECURITY.md: password reset rules), no authentication:
//   POST /api/user/reset/request {email} → always 200 with the same body. The lookup, the token and the mail happen
//   after the answer is sent, so neither the answer nor its timing depends on whether the account exists.
//   POST /api/user/reset/check {email, token} → {valid: true}, or the 400 the reset would give: the page behind the
//   link asks it when it opens, so a used or expired link is said at once, not after two passwords were typed.
//   POST /api/user/reset {email, token, password?} → sets the password (or a generated one, returned once), ends
//   every session of the user (the rows too: lib/auth/session.ts, endUserSessions) and mails a notice; 2FA stays
//   as it was.
// Tokens: random (~250 bits), stored as SHA-256, valid 30 minutes, single use (a conditional update claims one),
// and void once the password changed after the token was made (token.createdAt vs user.passwordChangedAt).
// The link is built from APP_URL, never from the request's Host header.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { randomToken, sha256 } from "@/lib/platform/crypto";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { checkPasswordStrength, hashPassword } from "@/lib/accounts/password";
import { addressCounter, countEvent, peekEvents, recordSignInSuccess } from "@/lib/accounts/throttle";
import { sendResetMail } from "@/lib/accounts/password-reset";
import { sendSecurityNotice } from "@/lib/accounts/security-notices";
import { endUserSessions } from "@/lib/auth/session";
import { inBackground, lockedError, publicRoute } from "./route";

/** Reset requests per client address per 15 minutes (answered 429 beyond, whatever the email). */
export const RESET_REQUESTS_PER_ADDRESS = 30;
/** Refused reset attempts (bad, used or expired tokens) per address per 15 minutes. */
export const RESET_FAILURES_PER_ADDRESS = 30;

export const RESET_REQUEST_MESSAGE =
  "If an account uses this email, a link to choose a new password is on its way. It works once, for 30 minutes.";
/** The same, when the gateway cannot send mail (no SMTP_URL): the link waits in the operator's outbox. */
export const RESET_REQUEST_MESSAGE_NO_MAIL =
  "This gateway does not send email (its operator has not set up a mail server), so no link will reach your inbox. " +
  "Ask the operator of this gateway for your reset link: if an account uses this email, the link waits in their outbox. It works once, for 30 minutes.";

const email = z
  .email("must be an email address")
  .max(320)
  .transform((value) => value.trim().toLowerCase());

// ------------------------------------------------------------------------------------------------------ request

export const resetRequestSchema = z.object({ email });

export const requestReset = publicRoute(async (request, _params, context) => {
  const counter = addressCounter("reset-request", context.address);
  // Looked at before the body is read: an address over its limit costs no parsing.
  if (counter) {
    const decision = await peekEvents(counter, RESET_REQUESTS_PER_ADDRESS);
    if (!decision.allowed) throw lockedError(decision);
  }
  const body = await readBody(request, resetRequestSchema, ACCOUNT_BODY_LIMIT_BYTES);
  if (counter) {
    const decision = await countEvent(counter, RESET_REQUESTS_PER_ADDRESS);
    if (!decision.allowed) throw lockedError(decision);
  }
  inBackground("password reset mail", () => sendResetMail(body.email));
  // Whether mail goes out is the gateway's setting, the same for every email: it tells nothing about accounts.
  const mailOff = !env().SMTP_URL;
  return json({ message: mailOff ? RESET_REQUEST_MESSAGE_NO_MAIL : RESET_REQUEST_MESSAGE, mailOff });
});

// -------------------------------------------------------------------------------------------------------- reset

export const resetSchema = z.object({
  email,
  token: z.string().trim().min(1, "is required").max(200, "is too long"),
  password: z.string().max(1000, "is too long").optional(),
});

export const RESET_REFUSALS = {
  invalid: "This reset link is not valid. Request a new one.",
  used: "This reset link has already been used. Request a new one.",
  expired: "This reset link has expired. Request a new one.",
  superseded: "This reset link is no longer valid: the password was changed after it was sent. Request a new one.",
} as const;

type ResetBody = { email: string; token: string };
type Refuse = (reason: keyof typeof RESET_REFUSALS) => Promise<GatewayError>;

/** The counter of refused attempts of this address, after checking it is not over its limit. */
async function failureCounter(address: string | null) {
  // Looked at before the body is read: an address over its limit costs no parsing.
  const counter = addressCounter("reset", address);
  if (counter) {
    const decision = await peekEvents(counter, RESET_FAILURES_PER_ADDRESS);
    if (!decision.allowed) throw lockedError(decision);
  }
  const refuse: Refuse = async (reason) => {
    if (counter) await countEvent(counter, RESET_FAILURES_PER_ADDRESS);
    return new GatewayError("invalid_request", RESET_REFUSALS[reason], { param: "token" });
  };
  return refuse;
}

/** The token's row if it can still reset the password of `body.email`; else the refusal, counted. */
async function usableToken(body: ResetBody, refuse: Refuse) {
  const found = await db().passwordResetToken.findUnique({ where: { tokenHash: sha256(body.token) }, include: { user: true } });
  // A token of another account is as unknown as a made-up one. Only the holder of a real token learns more.
  if (!found || found.user.email !== body.email || found.user.status !== "active") throw await refuse("invalid");
  const now = new Date();
  if (found.usedAt) throw await refuse("used");
  if (found.expiresAt.getTime() <= now.getTime()) throw await refuse("expired");
  if (found.createdAt.getTime() <= found.user.passwordChangedAt.getTime()) throw await refuse("superseded");
  return found;
}

export const resetCheckSchema = z.object({ email, token: resetSchema.shape.token });

/** Whether a link can still be used, asked by the reset page as it opens; refused attempts count like the reset's. */
export const checkResetToken = publicRoute(async (request, _params, context) => {
  const refuse = await failureCounter(context.address);
  const body = await readBody(request, resetCheckSchema, ACCOUNT_BODY_LIMIT_BYTES);
  await usableToken(body, refuse);
  return json({ valid: true });
});

export const resetPassword = publicRoute(async (request, _params, context) => {
  const refuse = await failureCounter(context.address);
  const body = await readBody(request, resetSchema, ACCOUNT_BODY_LIMIT_BYTES);
  if (body.password !== undefined) {
    const weak = checkPasswordStrength(body.password, { email: body.email });
    if (weak) throw new GatewayError("invalid_request", weak, { param: "password" });
  }
  const found = await usableToken(body, refuse);

  const generated = body.password === undefined;
  const password = body.password ?? randomToken(20);
  const passwordHash = await hashPassword(password);
  const changedAt = new Date();
  // Two conditional updates: the first claims the token (single use even in a race), the second applies only if
  // the password did not change since it was read (so a change in between still voids the token).
  const claimed = await db().passwordResetToken.updateMany({
    where: { id: found.id, usedAt: null, expiresAt: { gt: changedAt } },
    data: { usedAt: changedAt },
  });
  if (claimed.count === 0) throw await refuse("used");
  const changed = await db().user.updateMany({
    where: { id: found.userId, passwordChangedAt: found.user.passwordChangedAt },
    // sessionVersion: every session of the user ends. totpEnabled is left alone: a reset never removes 2FA. The mailed
    // token proves control of the address, so an unconfirmed one counts as confirmed from now on.
    data: {
      passwordHash,
      passwordChangedAt: changedAt,
      sessionVersion: { increment: 1 },
      emailVerifiedAt: found.user.emailVerifiedAt ?? changedAt,
    },
  });
  if (changed.count === 0) throw await refuse("superseded");
  // The rows too, not only the version: "Where you are signed in" must not list the browsers just signed out.
  await endUserSessions(found.userId);
  publish({ type: "user.changed", userId: found.userId });
  await sendSecurityNotice(found.user.email, "password-reset");
  // Proven control of the mailbox: lift a sign-in lockout so the new password can be used at once.
  await recordSignInSuccess({ email: found.user.email, ip: context.address });
  return json(
    generated ? { email: found.user.email, passwordGenerated: true, password } : { email: found.user.email, passwordGenerated: false },
  );
});
