// POST /api/user/sessions/revoke-all (handler: lib/user/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { revokeAllSessions } from "@/lib/user/sessions";

export const POST = nextRoute(revokeAllSessions);
