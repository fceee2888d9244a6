// POST /api/user/2fa/enable (handler: lib/account-api/two-factor.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { enableTwoFactor } from "@/lib/account-api/two-factor";

export const POST = nextRoute(enableTwoFactor);
