// GET /api/user/sessions (handler: lib/account-api/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { listSessions } from "@/lib/account-api/sessions";

export const GET = nextRoute(listSessions);
