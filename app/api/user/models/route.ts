// GET /api/user/models (handler: lib/account-api/models.ts; the production server calls it directly).
import { nextRoute } from "@/lib/server/next-route";
import { listUserModels } from "@/lib/account-api/models";

export const GET = nextRoute(listUserModels);
