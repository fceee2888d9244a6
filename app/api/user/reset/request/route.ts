// POST /api/user/reset/request (handler: lib/user/reset.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { requestReset } from "@/lib/user/reset";

export const POST = nextRoute(requestReset);
