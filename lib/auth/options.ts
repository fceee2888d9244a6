// next-auth configuration: email + password (+ second factor when 2FA is on), JWT session cookie.
// The same secret and cookie name are used by lib/auth/session.ts to read sessions outside Next.js.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import {
  authSecret,
  clientAddressFrom,
  revokeSession,
  SESSION_MAX_AGE_SECONDS,
  sessionIsLive,
  startSession,
  usesSecureCookies,
} from "./session";
import { SIGN_IN_MESSAGES, SignInError, signInWithPassword } from "@/lib/accounts/sign-in";
import { db } from "@/lib/platform/db/client";
import { log } from "@/lib/platform/log";
import { sameOriginRedirect } from "./redirect";

/** Thrown from the jwt callback for a session that has ended; next-auth then clears the cookie. */
class SessionEnded extends Error {
  constructor() {
    super("The session has ended");
    this.name = "SessionEnded";
  }
}

/** The same rule as readSessionRecord (lib/auth/session.ts): the session row is live and so is its user. */
async function stillValid(token: { sub?: string; sv?: unknown; sid?: unknown }): Promise<boolean> {
  if (!token.sub || typeof token.sid !== "string") return false;
  const session = await db().session.findUnique({
    where: { id: token.sid },
    include: { user: { select: { status: true, sessionVersion: true } } },
  });
  return Boolean(session && sessionIsLive(session, token));
}

export function authOptions(): NextAuthOptions {
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    useSecureCookies: usesSecureCookies(),
    pages: { signIn: "/sign-in" },
    logger: {
      error(code, metadata) {
        // An ended session is the expected outcome of a password change, reset or 2FA change, not an error.
        if (code === "JWT_SESSION_ERROR" && (metadata as { name?: string } | undefined)?.name === "SessionEnded") return;
        log.error("next-auth error", { code, error: metadata instanceof Error ? metadata : undefined });
      },
    },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
          code: { label: "Authenticator or backup code", type: "text" },
        },
        async authorize(credentials, request) {
          const headers = (request?.headers ?? {}) as Record<string, string | string[] | undefined>;
          const address = clientAddressFrom((name) => {
            const value = headers[name];
            return Array.isArray(value) ? value.join(",") : (value ?? null);
          });
          const user = await signInWithPassword({
            email: credentials?.email ?? "",
            password: credentials?.password ?? "",
            code: credentials?.code || undefined,
            address,
          });
          const userAgent = headers["user-agent"];
          const sessionId = await startSession(user.id, user.sessionVersion, {
            userAgent: Array.isArray(userAgent) ? userAgent[0] : userAgent,
            address,
          });
          if (sessionId === null) throw new SignInError(SIGN_IN_MESSAGES.changed, "invalid");
          return { id: user.id, email: user.email, role: user.role, sessionVersion: user.sessionVersion, sessionId };
        },
      }),
    ],
    events: {
      // POST /api/auth/signout: the session row is revoked, so a copy of the cookie taken earlier stops working.
      async signOut(message) {
        const sid = (message as { token?: { sid?: unknown } | null }).token?.sid;
        if (typeof sid === "string") await revokeSession(sid);
      },
    },
    callbacks: {
      // Where next-auth's own answers send the browser (the callbackUrl of a sign-out form, of a sign-in POST): the
      // same check as the sign-in page's, on the URL as the browser will resolve it (lib/auth/redirect.ts).
      async redirect({ url, baseUrl }) {
        return sameOriginRedirect(url, baseUrl);
      },
      async jwt({ token, user }) {
        if (user) {
          const signedIn = user as unknown as { id: string; role: string; sessionVersion: number; sessionId: string };
          token.sub = signedIn.id;
          token.role = signedIn.role;
          token.sv = signedIn.sessionVersion;
          token.sid = signedIn.sessionId;
          return token;
        }
        // Every later read (GET /api/auth/session, getServerSession) ends a session whose user was disabled or
        // whose sessionVersion moved on, as the JSON APIs do.
        if (!(await stillValid(token))) throw new SessionEnded();
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { ...session.user, id: token.sub, role: token.role } } as typeof session;
      },
    },
  };
}
