// POST /api/user/2fa/setup (handler: lib/account-api/two-factor.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { setupTwoFactor } from "@/lib/account-api/two-factor";

export const POST = nextRoute(setupTwoFactor);
