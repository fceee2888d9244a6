// DELETE and PATCH /api/user/keys/{id} (handler: lib/account-api/handlers.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { deleteKey, updateOwnKey } from "@/lib/account-api/handlers";

export const DELETE = nextRoute(deleteKey);
export const PATCH = nextRoute(updateOwnKey);
