// POST /api/user/signup (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { signup } from "@/lib/user/handlers";

export const POST = nextRoute(signup);
