// GET /api/user/models (handler: lib/user/models.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { listUserModels } from "@/lib/user/models";

export const GET = nextRoute(listUserModels);
