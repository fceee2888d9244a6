// The password-reset mail: a random token (~250 bits) stored as SHA-256, valid 30 minutes, single use, with a link
// built from APP_URL (never from the request's Host header). Sent for a person's own request (lib/account-api/reset.ts,
// which also redeems the token) and by the operator (lib/admin-api/operator-tools.ts).
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { randomToken, sha256 } from "@/lib/platform/crypto";
import { log } from "@/lib/platform/log";
import { sendAppMail } from "@/lib/mail/outbox";
import { accountCounter, countEvent } from "./throttle";

export const RESET_TOKEN_TTL_MS = 30 * 60 * 1000;
/** Reset mails per account per 15 minutes; further requests are answered as usual but send nothing. */
export const RESET_MAILS_PER_ACCOUNT = 5;

/** The link in the mail. `${APP_URL}/reset-password?token=…&email=…` */
export function resetLink(token: string, address: string): string {
  const query = new URLSearchParams({ token, email: address });
  return `${env().appUrl}/reset-password?${query}`;
}

export async function sendResetMail(address: string): Promise<void> {
  // Counted for unknown emails too: the counters never say whether an account exists.
  const decision = await countEvent(accountCounter("reset-mail", address), RESET_MAILS_PER_ACCOUNT);
  if (!decision.allowed) {
    log.info("password reset mail not sent: too many requests for this account in 15 minutes");
    return;
  }
  const user = await db().user.findUnique({ where: { email: address } });
  if (user?.status !== "active") return;
  const now = new Date();
  // Housekeeping: the user's spent and expired tokens are of no further use.
  await db().passwordResetToken.deleteMany({ where: { userId: user.id, OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] } });
  const token = randomToken(43);
  await db().passwordResetToken.create({
    // createdAt from this clock, like passwordChangedAt: the two are compared to void tokens.
    data: { userId: user.id, tokenHash: sha256(token), expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS), createdAt: now },
  });
  await sendAppMail({
    to: user.email,
    subject: "Reset your Model Gateway password",
    text:
      `Someone (hopefully you) asked to reset the password of the Model Gateway account ${user.email}.\n\n` +
      `Open this link within 30 minutes to choose a new password:\n${resetLink(token, user.email)}\n\n` +
      `The link works once. If you did not ask for this, ignore this message: your password stays as it is.\n`,
    secrets: [token],
  });
}
