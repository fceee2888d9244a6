// DELETE /api/user/keys/{id} (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { deleteKey } from "@/lib/user/handlers";

export const DELETE = nextRoute(deleteKey);
