// Outgoing mail (password reset and the like). With SMTP_URL it goes through nodemailer; without it the message is
// only written to the outbox (readable by the operator in the admin API) and one line is logged, so a fresh install
// works with no mail server. Every message lands in the outbox either way, with what happened to it.
import nodemailer, { type Transporter } from "nodemailer";

export type MailMessage = { to: string; subject: string; text: string };

/**
 * `secrets`: values in the text (a reset token, say) that the outbox copy must not keep once the message has been
 * delivered by SMTP, so a database dump yields no usable secret (SECURITY.md: a database dump yields no usable secret). Without SMTP, or when delivery
 * failed, the outbox is how the operator can still pass the message on, so it keeps the full text then.
 */
export type OutgoingMail = MailMessage & { secrets?: string[] };

export type MailStatus = "logged" | "sent" | "failed";

export type OutboxEntry = MailMessage & { status: MailStatus; error: string | null };

export type MailDependencies = {
  /** smtp:// or smtps:// URL; unset means log-only. */
  smtpUrl?: string | null;
  /** The From header, e.g. `Model Gateway <no-reply@example.com>`. */
  from: string;
  /** Stores the entry (the EmailOutbox table in the app). Its errors propagate: a lost message must not be silent. */
  outbox: (entry: OutboxEntry) => Promise<void>;
  log?: (line: string) => void;
};

export type MailResult = { status: MailStatus; error: string | null };

// nodemailer's defaults wait up to 2 minutes to connect and 10 to send, while a user waits on the reset form.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

const transports = new Map<string, Transporter>();

/** The URL with our timeouts added unless the operator set them in its query string. */
function withTimeouts(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  for (const [name, value] of Object.entries(TIMEOUTS)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/** One transport per URL, created on first use and reused, so SMTP settings are parsed once. */
function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport(withTimeouts(smtpUrl));
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** Closes and forgets the cached transports (tests; shutdown). */
export function closeMailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}

// A line break in a header value would start a new header (header injection); addresses and subjects never need one.
const oneLine = (value: string) =>
  String(value)
    .replace(/[\r\n]+/g, " ")
    .trim();

function redact(text: string, secrets: string[]): string {
  let kept = text;
  for (const secret of secrets) if (secret) kept = kept.split(secret).join("[redacted]");
  return kept;
}

/**
 * Sends `message`, or only records it when no SMTP URL is configured. A delivery failure does not throw: it is
 * recorded as "failed" and returned, so a caller such as the reset endpoint answers the same either way.
 */
export async function sendMail(message: OutgoingMail, dependencies: MailDependencies): Promise<MailResult> {
  const log = dependencies.log ?? ((line: string) => console.log(line));
  const entry: MailMessage = { to: oneLine(message.to), subject: oneLine(message.subject), text: String(message.text) };

  if (!dependencies.smtpUrl) {
    await dependencies.outbox({ ...entry, status: "logged", error: null });
    // The body is not logged: it may carry a reset link, and logs must hold no usable secret.
    log(`mail: no SMTP_URL set; message to ${entry.to} ("${entry.subject}") kept in the outbox only`);
    return { status: "logged", error: null };
  }

  let result: MailResult;
  try {
    await transportFor(dependencies.smtpUrl).sendMail({ from: dependencies.from, ...entry });
    result = { status: "sent", error: null };
  } catch (error) {
    result = { status: "failed", error: error instanceof Error ? error.message : String(error) };
    log(`mail: sending to ${entry.to} ("${entry.subject}") failed: ${result.error}`);
  }
  const kept = result.status === "sent" ? redact(entry.text, message.secrets ?? []) : entry.text;
  await dependencies.outbox({ ...entry, text: kept, ...result });
  return result;
}
