// Server-side helpers for the portal's pages (server components and layouts only: they read the database).
import { headers } from "next/headers";
import { readSession, sessionCookieName, type SessionUser } from "@/lib/auth/session";

/** The signed-in user of the page being rendered, or null (the same rule as the JSON APIs: lib/auth/session.ts). */
export async function pageSession(): Promise<SessionUser | null> {
  const incoming = await headers();
  return readSession(new Request("http://portal.invalid/", { headers: new Headers(incoming) }));
}

/**
 * Where a page without a live session sends the browser: the sign-in page, told (`ended=1`) when the browser still
 * holds a session cookie, which means its session was ended (signed out elsewhere, a password or 2FA change, the
 * operator) or ran out, so the page can say why instead of showing a bare sign-in form.
 */
export async function signInPath(): Promise<string> {
  const cookies = (await headers()).get("cookie") ?? "";
  const name = sessionCookieName();
  const held = cookies.split(";").some((pair) => {
    const cookie = pair.trim();
    return cookie.startsWith(`${name}=`) || cookie.startsWith(`${name}.0=`);
  });
  return held ? "/sign-in?ended=1" : "/sign-in";
}

export { modelSources, type ModelSource } from "./model-sources";
