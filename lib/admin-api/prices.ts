// The operator's prices (/api/admin/prices): per model, USD per 1M tokens, cache multipliers, the long-context tier,
// server-tool prices and the price modifiers (docs/billing.md).
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { MODIFIER_KEY } from "@/lib/money/price-modifiers";
import { adminRoute } from "./route";
import { auditChanges } from "./audit";

const price = z.number().min(0).max(1_000_000);
const multiplier = z.number().min(0).max(100);
export const priceSchema = z
  .object({
    model: z.string().trim().min(1).max(200),
    textInput: price.optional(),
    textOutput: price.optional(),
    imageInput: price.optional(),
    imageOutput: price.optional(),
    // Speech: USD per 1M input characters; transcription: USD per 1M seconds of audio.
    characterInput: price.optional(),
    audioInputSecond: price.optional(),
    cacheReadMultiplier: multiplier.optional(),
    cacheWriteMultiplier: multiplier.optional(),
    cacheWrite1hMultiplier: multiplier.optional(),
    // The long-context tier: all three together, or all three null to remove it.
    tierThreshold: z.number().int().min(1).nullable().optional(),
    tierTextInput: price.nullable().optional(),
    tierTextOutput: price.nullable().optional(),
    // micro-USD per use of a server tool, by tool name (web_search, web_fetch, code_execution, ...).
    toolPrices: z
      .record(
        z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "tool names are lowercase words such as web_search"),
        z.number().int().min(0).max(100_000_000),
      )
      .optional(),
    // Price modifiers (docs/billing.md): the multiplier of every token rate for a request carrying `field:value`
    // (service_tier:priority, speed:fast, inference_geo:us), an operator's field name, or `anthropic-beta:<beta>`.
    // The whole map is replaced; a modifier left out is refused again (or, for flex, charged at the standard rate).
    modifiers: z
      .record(z.string(), z.number().positive("must be above 0").max(100, "must be at most 100"))
      .superRefine((modifiers, context) => {
        const keys = Object.keys(modifiers);
        if (keys.length > 100) context.addIssue({ code: "custom", message: "at most 100 modifiers" });
        for (const key of keys.filter((key) => !MODIFIER_KEY.test(key)))
          context.addIssue({
            code: "custom",
            path: [key],
            message: `'${key.slice(0, 120)}' is not a modifier: write field:value (service_tier:priority), a field name, or anthropic-beta:<beta>`,
          });
      })
      .optional(),
  })
  .refine(
    (body) => {
      const tier = [body.tierThreshold, body.tierTextInput, body.tierTextOutput];
      return (
        tier.every((value) => value === undefined) ||
        tier.every((value) => value === null) ||
        tier.every((value) => typeof value === "number")
      );
    },
    { message: "set tierThreshold, tierTextInput and tierTextOutput together (or all three to null)", path: ["tierThreshold"] },
  );

export const upsertPrice = adminRoute(async (request) => {
  const { model, ...prices } = await readBody(request, priceSchema);
  const existing = await db().modelPrice.findUnique({ where: { model } });
  const row = await db().modelPrice.upsert({
    where: { model },
    create: { model, ...prices, editedByOperator: true },
    update: { ...prices, editedByOperator: true, version: { increment: 1 } },
  });
  auditChanges(request, model, existing, prices);
  publish({ type: "prices.changed" });
  return json(row);
});

export const listPrices = adminRoute(async () => {
  return json({ data: await db().modelPrice.findMany({ orderBy: { model: "asc" } }) });
});
