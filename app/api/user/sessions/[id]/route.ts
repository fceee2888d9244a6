// DELETE /api/user/sessions/{id} (handler: lib/account-api/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { deleteSession } from "@/lib/account-api/sessions";

export const DELETE = nextRoute(deleteSession);
