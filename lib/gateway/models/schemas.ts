// What GET /v1/models and GET /v1/models/{id} answer, for /openapi.json and the answer check (docs/routes.md).
import { z } from "zod";

const openaiModel = z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() });
const anthropicModel = z.object({ type: z.literal("model"), id: z.string(), display_name: z.string(), created_at: z.string() });

/** OpenAI's list, or Anthropic's page when the caller speaks Anthropic (x-api-key or anthropic-version). */
export const modelListAnswer = z.union([
  z.object({ object: z.literal("list"), data: z.array(openaiModel) }),
  z.object({ data: z.array(anthropicModel), has_more: z.boolean(), first_id: z.string().nullable(), last_id: z.string().nullable() }),
]);
export const modelAnswer = z.union([openaiModel, anthropicModel]);
