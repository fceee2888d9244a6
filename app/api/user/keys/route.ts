// GET, POST and DELETE (?id=) /api/user/keys (handlers: lib/account-api/handlers.ts; the production server calls them directly).
import { nextRoute } from "@/lib/server/next-route";
import { createKey, deleteKeyByQuery, listKeys } from "@/lib/account-api/handlers";

export const GET = nextRoute(listKeys);
export const POST = nextRoute(createKey);
export const DELETE = nextRoute(deleteKeyByQuery);
