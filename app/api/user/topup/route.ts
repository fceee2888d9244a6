// POST /api/user/topup (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { topup } from "@/lib/user/handlers";

export const POST = nextRoute(topup);
