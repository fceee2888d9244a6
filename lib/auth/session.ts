// Reads the portal's next-auth session (a JWT in a cookie) from a plain Request, so the JSON APIs can be served
// without Next.js. next-auth writes the cookie; lib/auth/options.ts configures it with the same secret and name.
import { clientAddress } from "@/lib/platform/http/client-address";
import { decode, encode } from "next-auth/jwt";
import { deriveSecret } from "@/lib/platform/crypto";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";

export type SessionUser = { id: string; email: string; role: "user" | "admin"; totpEnabled: boolean };

/** How long a session cookie lives (next-auth's session.maxAge and the cookies re-issued below). */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

export function authSecret(): string {
  return deriveSecret(env().secret, "next-auth");
}

export function usesSecureCookies(): boolean {
  return env().appUrl.startsWith("https://");
}

export function sessionCookieName(): string {
  return `${usesSecureCookies() ? "__Secure-" : ""}next-auth.session-token`;
}

function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  // Large tokens are split by next-auth into name.0, name.1 ...; ours are small, but join them if present.
  const parts = new Map<string, string>();
  for (const pair of header.split(";")) {
    const index = pair.indexOf("=");
    if (index < 0) continue;
    const raw = pair.slice(index + 1).trim();
    // Another site's cookie on the same host may hold anything ("100%"): one that does not decode is kept as it is.
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    parts.set(pair.slice(0, index).trim(), value);
  }
  if (parts.has(name)) return parts.get(name)!;
  const chunks: string[] = [];
  for (let index = 0; parts.has(`${name}.${index}`); index++) chunks.push(parts.get(`${name}.${index}`)!);
  return chunks.length ? chunks.join("") : null;
}

type UserRow = NonNullable<Awaited<ReturnType<ReturnType<typeof db>["user"]["findUnique"]>>>;

/** The user row of a live session, with the id of that session (the `sid` claim). */
export type SessionRecord = UserRow & { sessionId: string };

/**
 * The signed-in user's database row, or null. A session ends when it is revoked (sign-out, "sign out everywhere"),
 * expires, or when the user is disabled or their sessionVersion moved on (password, reset, 2FA changes).
 */
export async function readSessionRecord(request: Request): Promise<SessionRecord | null> {
  const token = readCookie(request, sessionCookieName());
  if (!token) return null;
  let claims: Awaited<ReturnType<typeof decode>>;
  try {
    claims = await decode({ token, secret: authSecret() });
  } catch {
    return null;
  }
  if (!claims?.sub || typeof claims.sid !== "string") return null;
  const session = await db().session.findUnique({ where: { id: claims.sid }, include: { user: true } });
  if (!session || !sessionIsLive(session, claims)) return null;
  return { ...session.user, sessionId: session.id };
}

/** One rule for the JSON APIs and next-auth's own reads (lib/auth/options.ts). */
export function sessionIsLive(
  session: { userId: string; revokedAt: Date | null; expiresAt: Date; user: { status: string; sessionVersion: number } },
  claims: { sub?: string; sv?: unknown },
): boolean {
  return (
    session.userId === claims.sub &&
    session.revokedAt === null &&
    session.expiresAt.getTime() > Date.now() &&
    session.user.status === "active" &&
    (claims.sv ?? 0) === session.user.sessionVersion
  );
}

/** The signed-in user, or null. */
export async function readSession(request: Request): Promise<SessionUser | null> {
  const user = await readSessionRecord(request);
  if (!user) return null;
  return { id: user.id, email: user.email, role: user.role === "admin" ? "admin" : "user", totpEnabled: user.totpEnabled };
}

/**
 * A new server-side session for a user who just signed in, at `sessionVersion` (the user's when the password was
 * checked); its id goes into the cookie as `sid`. Null when the version moved on meanwhile (a password reset or a 2FA
 * change finished while this sign-in was checking the password): the row is revoked at once, so it is never listed
 * as a live session (its cookie would not have worked either). The version is read after the row is written, and a
 * reset moves the version before it revokes the rows, so one of the two always sees the other.
 */
export async function startSession(
  userId: string,
  sessionVersion: number,
  details: { userAgent?: string | null; address?: string | null },
): Promise<string | null> {
  const session = await db().session.create({
    data: {
      userId,
      expiresAt: new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000),
      userAgent: (details.userAgent ?? "").slice(0, 300),
      address: (details.address ?? "").slice(0, 100),
    },
  });
  const now = await db().user.findUnique({ where: { id: userId }, select: { sessionVersion: true } });
  if (now?.sessionVersion !== sessionVersion) {
    await revokeSession(session.id);
    return null;
  }
  // Housekeeping: the user's ended sessions are of no further use.
  void db()
    .session.deleteMany({
      where: { userId, OR: [{ expiresAt: { lte: new Date() } }, { revokedAt: { lte: new Date(Date.now() - 24 * 3600_000) } }] },
    })
    .catch(() => undefined);
  return session.id;
}

/** Ends one session (sign-out). Returns whether it was live. */
export async function revokeSession(sessionId: string, userId?: string): Promise<boolean> {
  const result = await db().session.updateMany({
    where: { id: sessionId, revokedAt: null, ...(userId ? { userId } : {}) },
    data: { revokedAt: new Date() },
  });
  return result.count > 0;
}

/** Ends every session of the user except `keep` (none when omitted). */
export async function revokeOtherSessions(userId: string, keep?: string): Promise<number> {
  const result = await db().session.updateMany({
    where: { userId, revokedAt: null, ...(keep ? { id: { not: keep } } : {}) },
    data: { revokedAt: new Date() },
  });
  return result.count;
}

/**
 * Ends every session row of the user. Called wherever the user's sessionVersion moves on without a session that
 * continues (a password reset, the operator's 2FA reset, disabling the account): the version already makes their
 * cookies fail, and this makes the rows say so, so "Where you are signed in" lists no browser that is signed out.
 */
export function endUserSessions(userId: string): Promise<number> {
  return revokeOtherSessions(userId);
}

/**
 * A Set-Cookie value carrying session `sessionId` for `user`, in the form next-auth writes it (same secret, name and
 * claims, including `sv` and `sid`). Used after the user changed how they sign in: their sessionVersion moves on,
 * every other session is revoked, and the session making the change continues with this cookie.
 */
export async function sessionCookieFor(
  user: { id: string; email: string; role: string; sessionVersion: number },
  sessionId: string,
): Promise<string> {
  await revokeOtherSessions(user.id, sessionId);
  const token = await encode({
    token: { sub: user.id, email: user.email, name: null, picture: null, role: user.role, sv: user.sessionVersion, sid: sessionId },
    secret: authSecret(),
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
  const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000).toUTCString();
  return `${sessionCookieName()}=${token}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${usesSecureCookies() ? "; Secure" : ""}`;
}

/**
 * The client's address for throttling. `x-gateway-client-address` is what server.ts sets (lib/platform/http/client-address.ts:
 * the socket's peer, or what trusted proxies forwarded; it overwrites any value the client sent). Without it (next
 * dev), Next.js appends the socket's peer to `x-forwarded-for`, so the last entry is the socket and the same rule
 * reads the rest. Null when there is none.
 */
export function clientAddressFrom(header: (name: string) => string | null | undefined): string | null {
  const own = header("x-gateway-client-address")?.trim();
  if (own) return own;
  const hops = (header("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const socket = hops.pop();
  return socket ? clientAddress(socket, hops.join(",")) || null : null;
}
