// Who may call /api/admin: the operator's master key (Bearer GATEWAY_MASTER_KEY) or a signed-in admin.
// A user's own sk- key or a non-admin session is recognised and refused with 403; anything else is 401.
import { checkCookieWrite } from "./cross-site";
import { GatewayError } from "@/lib/platform/errors";
import { env } from "@/lib/platform/env";
import { safeEqual, sha256 } from "@/lib/platform/crypto";
import { findKey } from "@/lib/keys/lookup";
import { KEY_PATTERN } from "@/lib/keys/format";
import { readSession, type SessionUser } from "./session";

export type AdminActor = { kind: "master" } | { kind: "admin"; user: SessionUser };

export async function requireAdmin(request: Request): Promise<AdminActor> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!match) throw new GatewayError("unauthenticated", "Authorization must be 'Bearer <master key>'");
    const token = match[1]!;
    const master = env().GATEWAY_MASTER_KEY;
    if (master && safeEqual(sha256(token), sha256(master))) return { kind: "master" };
    if (KEY_PATTERN.test(token)) {
      const principal = await findKey(sha256(token));
      if (principal && !principal.deleted)
        throw new GatewayError("forbidden", "API keys cannot use the operator API; it needs the master key or an admin session");
    }
    throw new GatewayError("unauthenticated", "Invalid operator credentials");
  }
  const user = await readSession(request);
  if (!user) throw new GatewayError("unauthenticated", "Sign in as an admin or send 'Authorization: Bearer <master key>'");
  if (user.role !== "admin") throw new GatewayError("forbidden", "This needs an admin account");
  checkCookieWrite(request);
  return { kind: "admin", user };
}
