// Operator API for the content policy's prompt filter:
//   GET  /api/admin/moderation   -> { auto: [...], low: [...], customised, updatedAt }
//   POST /api/admin/moderation   <- { auto?: [...], low?: [...] } replaces the lists given; { reset: true } restores
//                                   the shipped defaults. `low` checks only its list; `auto` checks both.
import { GatewayError } from "@/lib/platform/errors";
import { json, readBody } from "@/lib/platform/http/json";
import { moderationUpdateSchema } from "@/lib/moderation/policy";
import { readModeration, saveModeration, type StoredModeration } from "@/lib/moderation/store";
import { adminRoute } from "./route";

function view(stored: StoredModeration) {
  return { auto: stored.terms.auto, low: stored.terms.low, customised: stored.customised, updatedAt: stored.updatedAt };
}

export const getModeration = adminRoute(async () => json(view(await readModeration())));

export const updateModeration = adminRoute(async (request) => {
  const body = await readBody(request, moderationUpdateSchema);
  if (body.reset) {
    if (body.auto || body.low)
      throw new GatewayError("invalid_request", "Send either 'reset: true' or new lists, not both", { param: "reset" });
    return json(view(await saveModeration(null)));
  }
  if (!body.auto && !body.low)
    throw new GatewayError("invalid_request", "Nothing to change: send 'auto' and/or 'low' (arrays of terms), or 'reset: true'");
  const current = await readModeration();
  return json(view(await saveModeration({ auto: body.auto ?? current.terms.auto, low: body.low ?? current.terms.low })));
});
