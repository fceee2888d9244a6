// POST /api/user/signup (handler: lib/account-api/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { signup } from "@/lib/account-api/handlers";

export const POST = nextRoute(signup);
