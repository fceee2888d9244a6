// POST /api/user/playground/renew (handler: lib/user/playground.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { renewPlayground } from "@/lib/user/playground";

export const POST = nextRoute(renewPlayground);
