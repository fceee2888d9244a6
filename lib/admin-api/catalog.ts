// The model catalog in the operator API: every model with its limits (lib/catalog/index.ts), and an operator's override
// of one model's fields (default and largest output cap, context window, aliases, ...). PUT with `null` drops the
// override and restores the code default.
import { z } from "zod";
import { json, readBody } from "@/lib/platform/http/json";
import { catalogOverrideSchema, listCatalog, setCatalogOverride } from "@/lib/catalog";
import { adminRoute } from "./route";

export const getCatalog = adminRoute(async () => json({ data: await listCatalog() }));

export const overrideBody = z.object({ override: catalogOverrideSchema.nullable() });

export const putCatalogEntry = adminRoute(async (request, params) => {
  const { override } = await readBody(request, overrideBody);
  return json(await setCatalogOverride(params.model!, override));
});
