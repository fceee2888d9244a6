// Reads the portal's next-auth session (a JWT in a cookie) from a plain Request, so the JSON APIs can be served
// without Next.js. next-auth writes the cookie; lib/auth/options.ts configures it with the same secret and name.
import { decode, encode } from "next-auth/jwt";
import { deriveSecret } from "../crypto/secrets";
import { db } from "../db/client";
import { env } from "../env";

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
    parts.set(pair.slice(0, index).trim(), decodeURIComponent(pair.slice(index + 1).trim()));
  }
  if (parts.has(name)) return parts.get(name)!;
  const chunks: string[] = [];
  for (let index = 0; parts.has(`${name}.${index}`); index++) chunks.push(parts.get(`${name}.${index}`)!);
  return chunks.length ? chunks.join("") : null;
}

type UserRow = NonNullable<Awaited<ReturnType<ReturnType<typeof db>["user"]["findUnique"]>>>;

/** The signed-in user's database row, or null. A session ends when the user is disabled or their sessionVersion moved on. */
export async function readSessionRecord(request: Request): Promise<UserRow | null> {
  const token = readCookie(request, sessionCookieName());
  if (!token) return null;
  let claims: Awaited<ReturnType<typeof decode>>;
  try {
    claims = await decode({ token, secret: authSecret() });
  } catch {
    return null;
  }
  if (!claims?.sub) return null;
  const user = await db().user.findUnique({ where: { id: claims.sub } });
  if (!user || user.status !== "active") return null;
  if ((claims.sv ?? 0) !== user.sessionVersion) return null;
  return user;
}

/** The signed-in user, or null. */
export async function readSession(request: Request): Promise<SessionUser | null> {
  const user = await readSessionRecord(request);
  if (!user) return null;
  return { id: user.id, email: user.email, role: user.role === "admin" ? "admin" : "user", totpEnabled: user.totpEnabled };
}

/**
 * A Set-Cookie value carrying a fresh session for `user`, in the form next-auth writes it (same secret, name and
 * claims, including `sv`). Used after the user changed how they sign in: their sessionVersion moves on, which ends
 * every other session, and the session making the change continues with this cookie.
 */
export async function sessionCookieFor(user: { id: string; email: string; role: string; sessionVersion: number }): Promise<string> {
  const token = await encode({
    token: { sub: user.id, email: user.email, name: null, picture: null, role: user.role, sv: user.sessionVersion },
    secret: authSecret(),
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
  const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000).toUTCString();
  return `${sessionCookieName()}=${token}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${usesSecureCookies() ? "; Secure" : ""}`;
}

/**
 * The client's address for throttling. `x-gateway-client-address` is what server.ts sets from the socket (it
 * overwrites any value the client sent); otherwise the last `x-forwarded-for` entry, which is the address the
 * nearest proxy saw (Next.js fills it from the socket when absent). The first entry is never used: any client
 * can write it. Null when there is none.
 */
export function clientAddressFrom(header: (name: string) => string | null | undefined): string | null {
  const own = header("x-gateway-client-address")?.trim();
  if (own) return own;
  const forwarded = header("x-forwarded-for");
  const last = forwarded?.split(",").map((part) => part.trim()).filter(Boolean).at(-1);
  return last || null;
}
