import type { Documented } from "../runtime/openapi";

export const documentedRoutes: Documented[] = [];
