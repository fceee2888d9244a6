// GET /api/user/usage (handler: lib/account-api/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { usage } from "@/lib/account-api/handlers";

export const GET = nextRoute(usage);
