// DELETE and PATCH /api/user/keys/{id} (handler: lib/user/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { deleteKey, updateOwnKey } from "@/lib/user/handlers";

export const DELETE = nextRoute(deleteKey);
export const PATCH = nextRoute(updateOwnKey);
