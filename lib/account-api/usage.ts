// GET /api/user/usage: the signed-in user's ledger (lib/money/usage-query.ts reads it).
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { json, parseQuery } from "@/lib/platform/http/json";
import { accountUsage } from "@/lib/money/usage-query";
import { userHadKey } from "@/lib/keys/store";
import { keyId } from "./keys";
import { sessionRoute } from "./route";

const HOUR_MS = 60 * 60 * 1000;

const dayStart = z.iso.date().transform((value) => new Date(`${value}T00:00:00.000Z`));
const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
/** Neither database takes a date from year 10000 on (Prisma writes it as "+010000-…"), so a range ends before it. */
const END_OF_DATES = Date.UTC(10000, 0, 1);
const LAST_DAY = "9999-12-30";
const beforeYear10000 = (value: Date) => value.getTime() < END_OF_DATES && value.getTime() >= Date.UTC(1, 0, 1);

export const usageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    model: z.string().trim().min(1).max(200).optional(),
    status: z.enum(["success", "error", "cancelled", "refused"]).optional(),
    kind: z.enum(["request", "topup", "adjust"]).optional(),
    keyId: keyId.optional(),
    // from: inclusive. to: exclusive; a plain date means through the end of that day (UTC).
    from: z.union([instant, dayStart]).refine(beforeYear10000, `must be a date from 0001-01-01 to ${LAST_DAY}`).optional(),
    to: z
      .union([instant, dayStart.transform((value) => new Date(value.getTime() + 24 * HOUR_MS))])
      .refine(beforeYear10000, `must be a date from 0001-01-01 to ${LAST_DAY} (a plain date counts through the end of its day)`)
      .optional(),
  })
  .refine((query) => !query.from || !query.to || query.from < query.to, { message: "must be after 'from'", path: ["to"] });

export const usage = sessionRoute(async (request, _params, { user }) => {
  const query = parseQuery(request, usageQuery);
  // Deleted keys still have history; another user's key is "not found", like everywhere else.
  if (query.keyId && !(await userHadKey(user.id, query.keyId)))
    throw new GatewayError("not_found", "No key with this id", { param: "keyId" });
  return json(await accountUsage({ userId: user.id, ...query }));
});
