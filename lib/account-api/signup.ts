// POST /api/user/signup: a new account, with the same answer whether or not the email was taken (the owner of an
// existing account gets a mail instead).
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { ACCOUNT_BODY_LIMIT_BYTES, json, readBody } from "@/lib/platform/http/json";
import { checkPasswordStrength, hashPassword } from "@/lib/accounts/password";
import { accountCounter, addressCounter, countEvent, peekEvents } from "@/lib/accounts/throttle";
import { sendAppMail } from "@/lib/mail/outbox";
import { emailVerificationRequired } from "@/lib/accounts/email-verification";
import { sendVerificationMail } from "./verify-email";
import { inBackground, lockedError, publicRoute } from "./route";

const HOUR_MS = 60 * 60 * 1000;

/** At most this many sign-ups per client address per hour. */
export const SIGNUP_PER_ADDRESS = 10;
/** At most this many "you already have an account" mails per account per hour. */
const SIGNUP_NOTICES_PER_ACCOUNT = 3;

const email = z
  .email("must be an email address")
  .max(320)
  .transform((value) => value.trim().toLowerCase());

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
/** The same, when verification is on but the gateway cannot send mail (no SMTP_URL): the link waits in the outbox. */
export const SIGNUP_MESSAGE_VERIFY_NO_MAIL =
  "This gateway does not send email (its operator has not set up a mail server), so no confirmation link will reach your inbox. " +
  "Ask the operator of this gateway to confirm your account or to pass the link on to you: it waits in their outbox. " +
  "If this email already had an account, sign in with it instead.";

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
  // mailOff matters only when a link must arrive: without verification a new account signs in at once.
  const mailOff = verify && !env().SMTP_URL;
  const message = !verify ? SIGNUP_MESSAGE : mailOff ? SIGNUP_MESSAGE_VERIFY_NO_MAIL : SIGNUP_MESSAGE_VERIFY;
  return json({ email: body.email, message, mailOff }, 202);
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
