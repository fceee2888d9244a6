import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { once } from "node:events";
import { SMTPServer } from "smtp-server";
import { closeMailTransports, sendMail, type OutboxEntry } from "@/lib/mail/send";

type Received = { mailFrom: string; recipients: string[]; user: string | null; raw: string };

const received: Received[] = [];
let rejectNext = false;
let port = 0;

const server = new SMTPServer({
  // No TLS certificate in a test, so no STARTTLS; AUTH over plain text is allowed only for this local server.
  disabledCommands: ["STARTTLS"],
  allowInsecureAuth: true,
  authOptional: true,
  logger: false,
  onAuth(auth, _session, callback) {
    if (auth.username === "mailer" && auth.password === "p@ss:word") return callback(null, { user: auth.username });
    callback(new Error("Invalid username or password"));
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      if (rejectNext) {
        rejectNext = false;
        return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
      }
      received.push({
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        recipients: session.envelope.rcptTo.map((recipient) => recipient.address),
        user: (session.user as string | undefined) ?? null,
        raw: Buffer.concat(chunks).toString("utf8"),
      });
      callback();
    });
  },
});

before(async () => {
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  port = (server.server.address() as { port: number }).port;
});

after(async () => {
  closeMailTransports();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Headers (unfolded) and body of a raw RFC 5322 message. */
function parse(raw: string): { headers: Map<string, string[]>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const headers = new Map<string, string[]>();
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { headers, body: raw.slice(split + 4) };
}

function recorder() {
  const outbox: OutboxEntry[] = [];
  const lines: string[] = [];
  return {
    outbox,
    lines,
    dependencies: {
      from: "Model Gateway <no-reply@gateway.test>",
      outbox: async (entry: OutboxEntry) => void outbox.push(entry),
      log: (line: string) => void lines.push(line),
    },
  };
}

test("with an SMTP URL the message is delivered (To, Subject, body) and recorded as sent", async () => {
  const { outbox, lines, dependencies } = recorder();
  const text = "Reset your password:\nhttps://gateway.test/reset?token=abc123\n\nThe link expires in one hour.";
  const result = await sendMail(
    { to: "alice@example.com", subject: "Reset your password", text },
    { ...dependencies, smtpUrl: `smtp://127.0.0.1:${port}` },
  );
  assert.deepEqual(result, { status: "sent", error: null });
  assert.equal(received.length, 1);
  const message = received.at(-1)!;
  assert.equal(message.mailFrom, "no-reply@gateway.test");
  assert.deepEqual(message.recipients, ["alice@example.com"]);
  const { headers, body } = parse(message.raw);
  assert.deepEqual(headers.get("to"), ["alice@example.com"]);
  assert.deepEqual(headers.get("subject"), ["Reset your password"]);
  assert.deepEqual(headers.get("from"), ["Model Gateway <no-reply@gateway.test>"]);
  assert.equal(body.replace(/\r\n/g, "\n").trimEnd(), text);
  assert.deepEqual(outbox, [{ to: "alice@example.com", subject: "Reset your password", text, status: "sent", error: null }]);
  assert.deepEqual(lines, []);
});

test("credentials in the URL are used (percent-encoded characters included), and the transport is reused", async () => {
  const { outbox, dependencies } = recorder();
  const smtpUrl = `smtp://mailer:${encodeURIComponent("p@ss:word")}@127.0.0.1:${port}`;
  for (const to of ["bob@example.com", "carol@example.com"]) {
    const result = await sendMail({ to, subject: `Hello ${to}`, text: "Hi." }, { ...dependencies, smtpUrl });
    assert.equal(result.status, "sent", result.error ?? "");
  }
  const last = received.slice(-2);
  assert.deepEqual(
    last.map((message) => message.user),
    ["mailer", "mailer"],
  );
  assert.deepEqual(
    last.map((message) => parse(message.raw).headers.get("subject")![0]),
    ["Hello bob@example.com", "Hello carol@example.com"],
  );
  assert.deepEqual(
    outbox.map((entry) => entry.status),
    ["sent", "sent"],
  );
});

test("wrong credentials: recorded as failed, not thrown", async () => {
  const { outbox, lines, dependencies } = recorder();
  const result = await sendMail(
    { to: "dave@example.com", subject: "Hi", text: "Hi." },
    { ...dependencies, smtpUrl: `smtp://mailer:wrong@127.0.0.1:${port}` },
  );
  assert.equal(result.status, "failed");
  assert.match(result.error!, /Invalid username or password/);
  assert.equal(outbox[0]!.status, "failed");
  assert.equal(outbox[0]!.error, result.error);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^mail: sending to dave@example\.com \("Hi"\) failed: /);
});

test("a line break in the subject cannot add headers or recipients", async () => {
  const { dependencies } = recorder();
  const before = received.length;
  await sendMail(
    { to: "erin@example.com", subject: "Hello\r\nBcc: attacker@evil.test\r\nX-Injected: yes", text: "Body." },
    { ...dependencies, smtpUrl: `smtp://127.0.0.1:${port}` },
  );
  assert.equal(received.length, before + 1);
  const message = received.at(-1)!;
  assert.deepEqual(message.recipients, ["erin@example.com"]);
  const { headers } = parse(message.raw);
  assert.equal(headers.has("bcc"), false);
  assert.equal(headers.has("x-injected"), false);
  assert.deepEqual(headers.get("subject"), ["Hello Bcc: attacker@evil.test X-Injected: yes"]);
});

test("a server that refuses the message: recorded as failed with its reply", async () => {
  const { outbox, dependencies } = recorder();
  rejectNext = true;
  const result = await sendMail(
    { to: "frank@example.com", subject: "Hi", text: "Hi." },
    { ...dependencies, smtpUrl: `smtp://127.0.0.1:${port}` },
  );
  assert.equal(result.status, "failed");
  assert.match(result.error!, /Mailbox unavailable/);
  assert.equal(outbox[0]!.status, "failed");
});

test("an unreachable server: recorded as failed, quickly, not thrown", async () => {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const { outbox, dependencies } = recorder();
  const result = await sendMail(
    { to: "grace@example.com", subject: "Hi", text: "Hi." },
    { ...dependencies, smtpUrl: `smtp://127.0.0.1:${closedPort}` },
  );
  assert.equal(result.status, "failed");
  assert.match(result.error!, /ECONNREFUSED/);
  assert.deepEqual(
    outbox.map((entry) => entry.status),
    ["failed"],
  );
});

test("without an SMTP URL the message goes to the outbox as logged, with one log line that omits the body", async () => {
  const { outbox, lines, dependencies } = recorder();
  const before = received.length;
  const text = "https://gateway.test/reset?token=SECRET-TOKEN";
  const result = await sendMail({ to: "heidi@example.com", subject: "Reset your password", text }, dependencies);
  assert.deepEqual(result, { status: "logged", error: null });
  assert.deepEqual(outbox, [{ to: "heidi@example.com", subject: "Reset your password", text, status: "logged", error: null }]);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /heidi@example\.com/);
  assert.match(lines[0]!, /Reset your password/);
  assert.ok(!lines[0]!.includes("SECRET-TOKEN"), "the reset link stays out of the log");
  assert.equal(received.length, before, "nothing was sent");
  // An empty string counts as unset too.
  assert.equal((await sendMail({ to: "heidi@example.com", subject: "s", text: "t" }, { ...dependencies, smtpUrl: "" })).status, "logged");
});

test("an outbox failure propagates: a message must not disappear silently", async () => {
  await assert.rejects(
    sendMail(
      { to: "ivan@example.com", subject: "s", text: "t" },
      {
        from: "x@gateway.test",
        outbox: async () => {
          throw new Error("database is down");
        },
        log: () => {},
      },
    ),
    /database is down/,
  );
});
