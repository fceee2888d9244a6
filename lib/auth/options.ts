// next-auth configuration: email + password (+ second factor when 2FA is on), JWT session cookie.
// The same secret and cookie name are used by lib/auth/session.ts to read sessions outside Next.js.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { authSecret, usesSecureCookies } from "./session";
import { signInWithPassword } from "../accounts/sign-in";

export function authOptions(): NextAuthOptions {
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
    useSecureCookies: usesSecureCookies(),
    pages: { signIn: "/sign-in" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
          code: { label: "Authenticator or backup code", type: "text" },
        },
        async authorize(credentials, request) {
          const headers = (request?.headers ?? {}) as Record<string, string | undefined>;
          const address = headers["x-forwarded-for"]?.split(",")[0]?.trim() || headers["x-gateway-client-address"] || "unknown";
          const user = await signInWithPassword({
            email: credentials?.email ?? "",
            password: credentials?.password ?? "",
            code: credentials?.code || undefined,
            address,
          });
          return { id: user.id, email: user.email, role: user.role, sessionVersion: user.sessionVersion };
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const signedIn = user as unknown as { id: string; role: string; sessionVersion: number };
          token.sub = signedIn.id;
          token.role = signedIn.role;
          token.sv = signedIn.sessionVersion;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, user: { ...session.user, id: token.sub, role: token.role } } as typeof session;
      },
    },
  };
}
