// A ledger row as the account API shows it (lib/money/usage-query.ts reads them), as a zod schema of the JSON; the
// operator's view adds the remaining columns (lib/admin-api/answers.ts).
import { z } from "zod";
import { isoDate } from "@/lib/platform/http/route-definition";

const micros = z.number().int();

export const usageRowAnswer = z.object({
  id: z.string(),
  kind: z.enum(["request", "topup", "adjust"]),
  requestId: z.string().nullable(),
  keyId: z.string().nullable(),
  keyPrefix: z.string().nullable(),
  endpoint: z.string(),
  model: z.string(),
  textInputTokens: z.number().int(),
  textOutputTokens: z.number().int(),
  imageInputTokens: z.number().int(),
  imageOutputTokens: z.number().int(),
  cost: micros,
  status: z.string(),
  httpStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
  stream: z.boolean(),
  createdAt: isoDate,
});
