// POST /api/user/reset (handler: lib/account-api/reset.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { resetPassword } from "@/lib/account-api/reset";

export const POST = nextRoute(resetPassword);
