// POST /api/user/2fa/enable (handler: lib/user/two-factor.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { enableTwoFactor } from "@/lib/user/two-factor";

export const POST = nextRoute(enableTwoFactor);
