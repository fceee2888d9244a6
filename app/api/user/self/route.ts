// GET /api/user/self (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { self } from "@/lib/user/handlers";

export const GET = nextRoute(self);
