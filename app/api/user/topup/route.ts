// POST /api/user/topup (handler: lib/account-api/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { topup } from "@/lib/account-api/handlers";

export const POST = nextRoute(topup);
