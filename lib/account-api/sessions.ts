// The signed-in browsers of the account (the Session table; lib/auth/session.ts):
//   GET    /api/user/sessions            → {data: [{id, createdAt, expiresAt, userAgent, address, current}]}
//   DELETE /api/user/sessions/{id}       → ends one session (another browser, or this one)
//   POST   /api/user/sessions/revoke-all → "sign out everywhere": ends every session, this one included
// Signing out through the portal (next-auth's /api/auth/signout) revokes the current session the same way.
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json } from "@/lib/platform/http/json";
import { revokeOtherSessions, revokeSession, sessionCookieName, usesSecureCookies } from "@/lib/auth/session";
import { sessionRoute } from "./route";

/** Clears the session cookie in the browser that asked (the server-side session is already revoked). */
function clearedCookie(): string {
  return `${sessionCookieName()}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${usesSecureCookies() ? "; Secure" : ""}`;
}

export const listSessions = sessionRoute(async (_request, _params, { user }) => {
  const rows = await db().session.findMany({
    where: { userId: user.id, revokedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      userAgent: row.userAgent,
      address: row.address,
      current: row.id === user.sessionId,
    })),
  });
});

export const deleteSession = sessionRoute(async (_request, params, { user }) => {
  const id = params.id ?? "";
  if (!(await revokeSession(id, user.id))) throw new GatewayError("not_found", "No such session (it may have ended already)");
  const current = id === user.sessionId;
  return json({ id, revoked: true, current }, 200, current ? { "set-cookie": clearedCookie() } : {});
});

export const revokeAllSessions = sessionRoute(async (_request, _params, { user }) => {
  const revoked = await revokeOtherSessions(user.id);
  return json({ revoked }, 200, { "set-cookie": clearedCookie() });
});
