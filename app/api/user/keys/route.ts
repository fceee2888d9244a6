// GET, POST and DELETE (?id=) /api/user/keys (handlers: lib/user/handlers.ts; the production server calls them directly).
import { nextRoute } from "@/lib/http/next-route";
import { createKey, deleteKeyByQuery, listKeys } from "@/lib/user/handlers";

export const GET = nextRoute(listKeys);
export const POST = nextRoute(createKey);
export const DELETE = nextRoute(deleteKeyByQuery);
