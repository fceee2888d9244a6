// Security notices: a short mail to the account's address whenever how it signs in changed, so that a change the
// owner did not make is noticed (SECURITY.md, "Security notices"). Sent through the app's mailer (lib/mail/outbox.ts):
// without SMTP_URL they land in the outbox like every other message. They carry no link or secret, only what
// happened, when, and what to do if it was not the owner.
import { env } from "@/lib/platform/env";
import { log } from "@/lib/platform/log";
import { sendAppMail } from "@/lib/mail/outbox";

export type SecurityEvent = "password-reset" | "password-changed" | "two-factor-on" | "two-factor-off" | "two-factor-reset-by-operator";

const NOTICES: Record<SecurityEvent, { subject: string; what: string; ifNotYou: string }> = {
  "password-reset": {
    subject: "Your Model Gateway password was reset",
    what: "The password of your Model Gateway account was reset through a password-reset link. Every browser that was signed in has been signed out.",
    ifNotYou: "If this was not you, someone can read your email: secure your mailbox, then reset the password again and tell the operator.",
  },
  "password-changed": {
    subject: "Your Model Gateway password was changed",
    what: "The password of your Model Gateway account was changed from the Security page. Your other browsers have been signed out.",
    ifNotYou: "If this was not you, reset your password now (Forgot password on the sign-in page) and tell the operator.",
  },
  "two-factor-on": {
    subject: "Two-factor authentication is on for your Model Gateway account",
    what: "Two-factor authentication was turned on: signing in now needs your password and a code from your authenticator app. Your other browsers have been signed out.",
    ifNotYou:
      "If this was not you, reset your password now (Forgot password on the sign-in page) and ask the operator to reset your two-factor authentication.",
  },
  "two-factor-off": {
    subject: "Two-factor authentication is off for your Model Gateway account",
    what: "Two-factor authentication was turned off: signing in now needs only your password. Your other browsers have been signed out.",
    ifNotYou:
      "If this was not you, reset your password now (Forgot password on the sign-in page) and set two-factor authentication up again.",
  },
  "two-factor-reset-by-operator": {
    subject: "The operator reset your Model Gateway two-factor authentication",
    what: "An operator of this Model Gateway turned two-factor authentication off for your account (for example after a lost phone). Your backup codes no longer work and every browser has been signed out. Sign in with your password, then set two-factor authentication up again on the Security page.",
    ifNotYou: "If you did not ask for this, tell the operator at once.",
  },
};

/** The notice's subject and text (exported for the tests and the docs). */
export function securityNotice(event: SecurityEvent, at: Date = new Date()): { subject: string; text: string } {
  const notice = NOTICES[event];
  const base = env().appUrl;
  return {
    subject: notice.subject,
    text: `${notice.what}\n\nWhen: ${at.toISOString()}\n\n${notice.ifNotYou}\n\nSign in: ${base}/sign-in\n`,
  };
}

/**
 * Mails the notice of `event` to `address`. It never throws: the change it reports is already made, and a notice
 * that cannot be written must not turn that change into an error (the failure is logged).
 */
export async function sendSecurityNotice(address: string, event: SecurityEvent): Promise<void> {
  try {
    await sendAppMail({ to: address, ...securityNotice(event) });
  } catch (error) {
    log.warn("security notice not written", { event, error: error instanceof Error ? error.message : String(error) });
  }
}
