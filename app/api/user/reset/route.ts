// POST /api/user/reset (handler: lib/user/reset.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { resetPassword } from "@/lib/user/reset";

export const POST = nextRoute(resetPassword);
