// GET /api/user/sessions (handler: lib/user/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { listSessions } from "@/lib/user/sessions";

export const GET = nextRoute(listSessions);
