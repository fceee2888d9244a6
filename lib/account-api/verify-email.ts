// Email confirmation for new accounts (SECURITY.md, "Web hardening": enumeration and unverified email; whether it is on: lib/accounts/email-verification.ts).
//   sign-up (lib/account-api/handlers.ts) → sendVerificationMail: a link `${APP_URL}/verify-email?token=…&email=…`
//   POST /api/user/verify-email {email, token}   → {email, verified: true}; the account can sign in
//   POST /api/user/verify-email/resend {email}   → always the same answer; a new link if the account waits for one
// Tokens: random (~250 bits), stored as SHA-256, valid 24 hours, single use. The page behind the link asks for a
// click before it posts, so a mail scanner that follows links does not use the token up.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { randomToken, sha256 } from "@/lib/platform/crypto";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { accountCounter, addressCounter, countEvent, peekEvents } from "@/lib/accounts/throttle";
import { sendAppMail } from "@/lib/mail/outbox";
import { inBackground, lockedError, publicRoute } from "./route";

export const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;
/** Confirmation mails per account per 15 minutes (sign-up and resend together). */
const VERIFY_MAILS_PER_ACCOUNT = 3;
/** Resend requests and refused tokens per client address per 15 minutes. */
const VERIFY_REQUESTS_PER_ADDRESS = 30;

export const RESEND_MESSAGE =
  "If an account with this email is waiting for confirmation, a new link is on its way. It works once, for 24 hours.";
/** The same, when the gateway cannot send mail (no SMTP_URL): the new link waits in the operator's outbox. */
export const RESEND_MESSAGE_NO_MAIL =
  "This gateway does not send email (its operator has not set up a mail server), so no link will reach your inbox. " +
  "Ask the operator of this gateway to confirm your account or to pass the new link on to you: it waits in their outbox.";
export const VERIFY_REFUSAL = "This confirmation link is not valid, used or expired. Ask for a new one on the sign-in page.";

const email = z
  .email("must be an email address")
  .max(320)
  .transform((value) => value.trim().toLowerCase());

export function verifyLink(token: string, address: string): string {
  return `${env().appUrl}/verify-email?${new URLSearchParams({ token, email: address })}`;
}

/** Makes a token for the (unverified) user and mails the link; at most VERIFY_MAILS_PER_ACCOUNT per 15 minutes. */
export async function sendVerificationMail(user: { id: string; email: string }): Promise<void> {
  const decision = await countEvent(accountCounter("verify-mail", user.email), VERIFY_MAILS_PER_ACCOUNT);
  if (!decision.allowed) return;
  const now = new Date();
  await db().emailVerificationToken.deleteMany({
    where: { userId: user.id, OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] },
  });
  const token = randomToken(43);
  await db().emailVerificationToken.create({
    data: { userId: user.id, tokenHash: sha256(token), expiresAt: new Date(now.getTime() + VERIFY_TOKEN_TTL_MS) },
  });
  await sendAppMail({
    to: user.email,
    subject: "Confirm your email for Model Gateway",
    text:
      `Someone (hopefully you) created a Model Gateway account with ${user.email}.\n\n` +
      `Open this link within 24 hours to confirm the address, then sign in:\n${verifyLink(token, user.email)}\n\n` +
      `If it was not you, ignore this message: the account cannot be used without this link.\n`,
    secrets: [token],
  });
}

export const verifySchema = z.object({ email, token: z.string().trim().min(1, "is required").max(200, "is too long") });

export const verifyEmail = publicRoute(async (request, _params, context) => {
  const counter = addressCounter("verify", context.address);
  if (counter) {
    const decision = await peekEvents(counter, VERIFY_REQUESTS_PER_ADDRESS);
    if (!decision.allowed) throw lockedError(decision);
  }
  const body = await readBody(request, verifySchema, ACCOUNT_BODY_LIMIT_BYTES);
  const refuse = async () => {
    if (counter) await countEvent(counter, VERIFY_REQUESTS_PER_ADDRESS);
    return new GatewayError("invalid_request", VERIFY_REFUSAL, { param: "token" });
  };
  const found = await db().emailVerificationToken.findUnique({ where: { tokenHash: sha256(body.token) }, include: { user: true } });
  if (!found || found.user.email !== body.email) throw await refuse();
  const now = new Date();
  if (found.user.emailVerifiedAt) return json({ email: found.user.email, verified: true });
  const claimed = await db().emailVerificationToken.updateMany({
    where: { id: found.id, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (claimed.count === 0) throw await refuse();
  await db().user.updateMany({ where: { id: found.userId, emailVerifiedAt: null }, data: { emailVerifiedAt: now } });
  publish({ type: "user.changed", userId: found.userId });
  return json({ email: found.user.email, verified: true });
});

export const resendSchema = z.object({ email });

export const resendVerification = publicRoute(async (request, _params, context) => {
  const counter = addressCounter("verify-resend", context.address);
  if (counter) {
    const decision = await countEvent(counter, VERIFY_REQUESTS_PER_ADDRESS);
    if (!decision.allowed) throw lockedError(decision);
  }
  const body = await readBody(request, resendSchema, ACCOUNT_BODY_LIMIT_BYTES);
  // After the answer, so neither it nor its timing says whether the account exists or waits for confirmation.
  inBackground("verification mail", async () => {
    const user = await db().user.findUnique({ where: { email: body.email } });
    if (user && user.status === "active" && !user.emailVerifiedAt) await sendVerificationMail(user);
  });
  const mailOff = !env().SMTP_URL;
  return json({ email: body.email, message: mailOff ? RESEND_MESSAGE_NO_MAIL : RESEND_MESSAGE, mailOff }, 202);
});
