// Server-side helpers for the portal's pages (server components and layouts only: they read the database).
import { headers } from "next/headers";
import { readSession, type SessionUser } from "@/lib/auth/session";

/** The signed-in user of the page being rendered, or null (the same rule as the JSON APIs: lib/auth/session.ts). */
export async function pageSession(): Promise<SessionUser | null> {
  const incoming = await headers();
  return readSession(new Request("http://portal.invalid/", { headers: new Headers(incoming) }));
}

export { modelSources, type ModelSource } from "./model-sources";
