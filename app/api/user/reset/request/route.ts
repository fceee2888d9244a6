// POST /api/user/reset/request (handler: lib/account-api/reset.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { requestReset } from "@/lib/account-api/reset";

export const POST = nextRoute(requestReset);
