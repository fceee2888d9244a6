// GET /api/user/usage (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { usage } from "@/lib/user/handlers";

export const GET = nextRoute(usage);
