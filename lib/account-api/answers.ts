// What the account API answers (/api/user/*), as zod schemas of the JSON: the route definitions declare them
// (lib/account-api/routes.ts), /openapi.json shows them and lib/portal/types.ts derives the portal's types from them.
// Dates arrive as ISO strings; money as integer micro-USD.
import { z } from "zod";
import { isoDate } from "@/lib/platform/http/route-definition";
import { apiKeyAnswer } from "@/lib/keys/answer";
import { usageRowAnswer } from "@/lib/money/usage-answer";

export { apiKeyAnswer, usageRowAnswer };

const micros = z.number().int();

export const selfAnswer = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["user", "admin"]),
  status: z.string(),
  balance: micros,
  totpEnabled: z.boolean(),
  backupCodesRemaining: z.number().int(),
  groups: z.array(z.string()),
  createdAt: isoDate,
  passwordChangedAt: isoDate,
});

/** The full key appears in this answer only. */
export const createdKeyAnswer = apiKeyAnswer.extend({ key: z.string() });
export const keyListAnswer = z.object({ data: z.array(apiKeyAnswer) });
export const deletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) });

const tokenSums = {
  requests: z.number().int(),
  spent: micros,
  credited: micros,
  textInputTokens: z.number().int(),
  textOutputTokens: z.number().int(),
  imageInputTokens: z.number().int(),
  imageOutputTokens: z.number().int(),
};

export const dailyTotalAnswer = z.object({ date: z.string(), ...tokenSums });

export const usagePageAnswer = z.object({
  data: z.array(usageRowAnswer),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  daily: z.array(dailyTotalAnswer),
  dailyRange: z.object({ from: isoDate, to: isoDate }),
  /** Requests and spend per day, model and key over `dailyRange` (requests only). */
  breakdown: z.array(
    z.object({
      date: z.string(),
      model: z.string(),
      keyId: z.string().nullable(),
      keyPrefix: z.string().nullable(),
      requests: z.number().int(),
      spent: micros,
    }),
  ),
  /** Sums over every row the filters match (all pages, any date the filters allow). */
  totals: z.object({ rows: z.number().int(), ...tokenSums }),
});

/** mailOff: the gateway sends no mail (no SMTP_URL), so a link the message speaks of waits in the operator's outbox. */
export const signupAnswer = z.object({ email: z.string(), message: z.string(), mailOff: z.boolean() });
export const resetRequestAnswer = z.object({ message: z.string(), mailOff: z.boolean() });
export const resetCheckAnswer = z.object({ valid: z.literal(true) });
export const topupAnswer = z.object({ quota: micros, balance: micros });
export const passwordChangedAnswer = z.object({ changed: z.literal(true) });

export const twoFactorSetupAnswer = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCode: z.string() });
export const backupCodesAnswer = z.object({ backupCodes: z.array(z.string()) });
export const twoFactorOffAnswer = z.object({ totpEnabled: z.literal(false) });

export const resetAnswer = z.union([
  z.object({ email: z.string(), passwordGenerated: z.literal(false) }),
  z.object({ email: z.string(), passwordGenerated: z.literal(true), password: z.string() }),
]);

export const sessionListAnswer = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      createdAt: isoDate,
      expiresAt: isoDate,
      userAgent: z.string(),
      address: z.string(),
      current: z.boolean(),
    }),
  ),
});
export const sessionRevokedAnswer = z.object({ id: z.string(), revoked: z.literal(true), current: z.boolean() });
export const sessionsRevokedAnswer = z.object({ revoked: z.number().int() });

export const verifiedAnswer = z.object({ email: z.string(), verified: z.literal(true) });

/** USD per 1M units: tokens, characters (speech) or seconds of audio (transcription). */
const perMillion = z.number();
/** One model of GET /api/user/models (lib/account-api/models.ts); the portal's UserModel (lib/portal/types.ts). */
export const userModelAnswer = z.object({
  id: z.string(),
  displayName: z.string(),
  /** The catalog's kinds (lib/catalog/index.ts, ModelKind). */
  kind: z.enum(["text", "image", "embedding", "speech", "transcription"]),
  endpoints: z.array(z.string()),
  /** Tokens; for a speech model the most characters one request speaks. */
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
  /** The groups that offer the model, among those open to the person and those of their keys. */
  groups: z.array(z.string()),
  source: z.enum(["simulator", "mixed", "upstream"]).nullable(),
  price: z.object({
    textInput: perMillion,
    textOutput: perMillion,
    imageInput: perMillion,
    imageOutput: perMillion,
    /** Speech: USD per 1M input characters. */
    characterInput: perMillion,
    /** Transcription: USD per 1M seconds of audio. */
    audioInputSecond: perMillion,
    /** Multipliers of the text input rate. */
    cacheRead: z.number(),
    cacheWrite: z.number(),
    tier: z.object({ threshold: z.number(), textInput: perMillion, textOutput: perMillion }).nullable(),
    /** Micro-USD per use, by tool name. */
    toolPrices: z.record(z.string(), z.number()),
  }),
  /** Micro-USD per image by size and quality (output tokens only), for image models. */
  imagePrices: z.array(z.object({ size: z.string(), low: micros, medium: micros, high: micros })).nullable(),
});
export const userModelsAnswer = z.object({
  data: z.array(userModelAnswer),
  /** The groups open to the person's new keys. */
  groups: z.array(z.string()),
  /** The groups of the person's own keys (not the playground's): a model outside them answers 403 to those keys. */
  keyGroups: z.array(z.string()),
});

export const playgroundKeyAnswer = z.object({
  key: z
    .object({
      id: z.string(),
      prefix: z.string(),
      group: z.string(),
      cap: micros,
      remaining: micros,
      createdAt: isoDate,
    })
    .nullable(),
  cap: micros,
});

/** An operator's notice in force now (GET /api/user/announcements): plain text, shown on the dashboard. */
export const announcementAnswer = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  level: z.enum(["info", "warning"]),
  startsAt: isoDate.nullable(),
  endsAt: isoDate.nullable(),
  updatedAt: isoDate,
});
export const announcementListAnswer = z.object({ data: z.array(announcementAnswer) });
