// The app's mailer: lib/mail/send.ts with the EmailOutbox table as its outbox and the configured SMTP_URL and
// MAIL_FROM. Without SMTP_URL the message lands in the outbox (readable with GET /api/admin/outbox) and the log.
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { log } from "@/lib/platform/log";
import { sendMail, type MailResult, type OutboxEntry, type OutgoingMail } from "./send";

/** Stores one outbox row; the recipient lowercased, as the operator API filters by it. */
export async function writeOutbox(entry: OutboxEntry): Promise<void> {
  await db().emailOutbox.create({
    data: { to: entry.to.trim().toLowerCase(), subject: entry.subject, text: entry.text, status: entry.status, error: entry.error },
  });
}

export function sendAppMail(message: OutgoingMail): Promise<MailResult> {
  const config = env();
  return sendMail(message, {
    smtpUrl: config.SMTP_URL ?? null,
    from: config.MAIL_FROM,
    outbox: writeOutbox,
    log: (line) => (line.includes(" failed: ") ? log.warn(line) : log.info(line)),
  });
}
