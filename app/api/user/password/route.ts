// POST /api/user/password (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { changePassword } from "@/lib/user/handlers";

export const POST = nextRoute(changePassword);
