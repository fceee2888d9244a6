// GET /api/user/playground (handler: lib/user/playground.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { playgroundKey } from "@/lib/user/playground";

export const GET = nextRoute(playgroundKey);
