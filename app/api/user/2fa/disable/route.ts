// POST /api/user/2fa/disable (handler: lib/account-api/two-factor.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { disableTwoFactor } from "@/lib/account-api/two-factor";

export const POST = nextRoute(disableTwoFactor);
