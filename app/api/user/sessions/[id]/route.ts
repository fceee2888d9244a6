// DELETE /api/user/sessions/{id} (handler: lib/user/sessions.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { deleteSession } from "@/lib/user/sessions";

export const DELETE = nextRoute(deleteSession);
