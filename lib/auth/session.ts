// Reads the portal's next-auth session (a JWT in a cookie) from a plain Request, so the JSON APIs can be served
// without Next.js. next-auth writes the cookie; lib/auth/options.ts configures it with the same secret and name.
import { decode } from "next-auth/jwt";
import { deriveSecret } from "../crypto/secrets";
import { db } from "../db/client";
import { env } from "../env";

export type SessionUser = { id: string; email: string; role: "user" | "admin"; totpEnabled: boolean };

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

/** The signed-in user, or null. A session ends when the user is disabled or their sessionVersion moved on. */
export async function readSession(request: Request): Promise<SessionUser | null> {
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
  return { id: user.id, email: user.email, role: user.role === "admin" ? "admin" : "user", totpEnabled: user.totpEnabled };
}
