// GET /api/user/playground (handler: lib/account-api/playground.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { playgroundKey } from "@/lib/account-api/playground";

export const GET = nextRoute(playgroundKey);
