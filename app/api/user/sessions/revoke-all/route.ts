// POST /api/user/sessions/revoke-all (handler: lib/account-api/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { revokeAllSessions } from "@/lib/account-api/sessions";

export const POST = nextRoute(revokeAllSessions);
