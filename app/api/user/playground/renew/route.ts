// POST /api/user/playground/renew (handler: lib/account-api/playground.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { renewPlayground } from "@/lib/account-api/playground";

export const POST = nextRoute(renewPlayground);
