// What the operator API answers (/api/admin/*), as zod schemas of the JSON: the route definitions declare them
// (lib/admin-api/routes.ts), /openapi.json shows them and lib/portal/types.ts derives the portal's types from them.
// Dates arrive as ISO strings; money as integer micro-USD; prices in USD per 1M tokens (characters, seconds).
import { z } from "zod";
import { isoDate } from "@/lib/platform/http/route-definition";
import { apiKeyAnswer } from "@/lib/keys/answer";
import { usageRowAnswer } from "@/lib/money/usage-answer";

const micros = z.number().int();
const list = <Item extends z.ZodType>(item: Item) => z.object({ data: z.array(item) });

export const createdUserAnswer = z.object({ id: z.string(), email: z.string(), role: z.enum(["user", "admin"]), quota: micros });

export const adminUserAnswer = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["user", "admin"]),
  status: z.enum(["active", "disabled"]),
  balance: micros,
  totpEnabled: z.boolean(),
  emailVerified: z.boolean(),
  createdAt: isoDate,
});
export const adminUserListAnswer = list(adminUserAnswer);

export const updatedUserAnswer = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["user", "admin"]),
  status: z.enum(["active", "disabled"]),
  balance: micros,
});

export const adminCreatedKeyAnswer = apiKeyAnswer.extend({ key: z.string(), quota: micros });
export const adminKeyListAnswer = list(apiKeyAnswer);

export const adminGroupAnswer = z.object({
  id: z.string(),
  name: z.string(),
  models: z.array(z.string()),
  rateLimitPerMinute: z.number().int().nullable(),
});
export const adminGroupListAnswer = list(adminGroupAnswer);

export const adminChannelAnswer = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  baseUrl: z.string(),
  models: z.array(z.string()),
  modelMapping: z.record(z.string(), z.string()),
  settings: z.record(z.string(), z.unknown()),
  priority: z.number().int(),
  weight: z.number().int(),
  status: z.enum(["enabled", "disabled"]),
  disabledReason: z.string().nullable(),
  hasApiKey: z.boolean(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export const adminChannelListAnswer = list(adminChannelAnswer);
export const createdChannelAnswer = z.object({ id: z.string() });
export const deletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) });

export const channelTestAnswer = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  /** The upstream's HTTP status (or the gateway's status for a failure before any answer). */
  status: z.number().int(),
  model: z.string(),
  kind: z.enum(["chat", "messages", "image", "embedding", "speech", "transcription"]),
  error: z.string().optional(),
  /** The channel's models without a price: the test may pass, but users are told they do not exist. */
  unpriced: z.array(z.string()),
});

/** A price row, every column of ModelPrice. */
export const adminPriceAnswer = z.looseObject({
  id: z.string(),
  model: z.string(),
  textInput: z.number(),
  textOutput: z.number(),
  imageInput: z.number(),
  imageOutput: z.number(),
  /** Speech: USD per 1M input characters. */
  characterInput: z.number(),
  /** Transcription: USD per 1M seconds of audio. */
  audioInputSecond: z.number(),
  /** Price modifiers: multiplier by `field:value`, an operator's field name or `anthropic-beta:<beta>`. */
  modifiers: z.record(z.string(), z.number()).optional(),
  version: z.number().int(),
  updatedAt: isoDate.optional(),
});
export const adminPriceListAnswer = list(adminPriceAnswer);

export const catalogAnswer = list(z.looseObject({ id: z.string(), kind: z.string() }));
/** The model's entry with the override applied; null when the model is not in the catalog. */
export const catalogEntryAnswer = z.looseObject({ id: z.string() }).nullable();

export const createdCodesAnswer = z.object({ batch: z.string(), codes: z.array(z.string()), quota: micros, expiresAt: isoDate.nullable() });

export const adminRedeemCodeAnswer = z.object({
  id: z.string(),
  prefix: z.string(),
  batch: z.string(),
  quota: micros,
  status: z.string(),
  expiresAt: isoDate.nullable(),
  redeemedById: z.string().nullable(),
  redeemedAt: isoDate.nullable(),
  createdAt: isoDate,
});
export const adminRedeemCodeListAnswer = list(adminRedeemCodeAnswer);
export const voidedCodesAnswer = z.object({ voided: z.number().int() });

/** The operator's view of a ledger row (every column of UsageLog). */
export const adminUsageRowAnswer = usageRowAnswer.extend({
  userId: z.string(),
  channelId: z.string().nullable(),
  channelName: z.string().nullable(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  reserved: micros,
  overReservation: micros,
  priceVersion: z.number().int(),
  /** From arrival to the first upstream attempt, and to the serving upstream's answer starting (ms; 0: not recorded). */
  queueMs: z.number().int(),
  firstByteMs: z.number().int(),
  detail: z.unknown(),
});
export const adminUsageListAnswer = list(adminUsageRowAnswer);

/** One ledger row in full (lib/admin-api/ledger-detail.ts). */
export const adminUsageDetailAnswer = z.object({
  row: adminUsageRowAnswer,
  userEmail: z.string().nullable(),
  keyName: z.string().nullable(),
  timing: z.object({
    queueMs: z.number().int().nullable(),
    firstByteMs: z.number().int().nullable(),
    totalMs: z.number().int().nullable(),
  }),
  counts: z.array(z.object({ kind: z.string(), label: z.string(), count: z.number() })),
  pricing: z.object({
    priceVersion: z.number().int(),
    price: adminPriceAnswer.nullable(),
    currentVersion: z.number().int().nullable(),
    modifiers: z.array(z.object({ name: z.string(), multiplier: z.number() })),
    rule: z.enum(["usage", "meter"]).nullable(),
    parts: z.array(z.object({ model: z.string(), cost: micros })),
  }),
  failovers: z.array(
    z.object({
      channelId: z.string().nullable(),
      channel: z.string(),
      status: z.number().int(),
      error: z.string(),
      ms: z.number().nullable(),
    }),
  ),
});

export const outboxMailAnswer = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  status: z.string(),
  createdAt: isoDate,
});
export const outboxListAnswer = list(outboxMailAnswer);

export const settingsAnswer = z.object({
  signupEnabled: z.boolean(),
  signupForcedOffByEnvironment: z.boolean(),
  userGroups: z.array(z.string()),
  priceModifierFields: z.array(z.string()),
  /** The vendors' own modifiers, always known (lib/money/price-modifiers.ts). */
  builtInPriceModifierFields: z.array(z.string()),
  verifyEmail: z.boolean(),
  verifyEmailSource: z.string(),
  mailConfigured: z.boolean(),
});

export const moderationAnswer = z.object({
  auto: z.array(z.string()),
  low: z.array(z.string()),
  customised: z.boolean(),
  updatedAt: isoDate.nullable(),
});

/** mailOff: no SMTP_URL, so the mail to the user waits in the outbox (GET /api/admin/outbox). */
export const twoFactorResetAnswer = z.object({ id: z.string(), totpEnabled: z.literal(false), mailOff: z.boolean() });
export const resetLinkSentAnswer = z.object({ id: z.string(), sent: z.literal(true), mailOff: z.boolean() });
export const fetchedModelsAnswer = z.object({ models: z.array(z.string()) });

export const overviewAnswer = z.object({
  hours: z.number().int(),
  since: isoDate,
  truncated: z.boolean(),
  deadLetters: z.number().int(),
  /** Whether mail goes out (SMTP_URL), and how many messages were not delivered: kept in the outbox ("logged") or "failed". */
  mail: z.object({ configured: z.boolean(), waiting: z.number().int(), failed: z.number().int() }),
  channels: z.array(
    z.object({
      channel: z.string(),
      requests: z.number().int(),
      errors: z.number().int(),
      revenue: micros,
      errorRate: z.number(),
      latencyP50: z.number().nullable(),
    }),
  ),
  series: z.array(z.object({ at: isoDate, requests: z.number().int(), errors: z.number().int(), revenue: micros })),
});

export const auditListAnswer = list(
  z.looseObject({
    id: z.string(),
    actor: z.string(),
    action: z.string(),
    path: z.string(),
    targetId: z.string().nullable(),
    status: z.number().int(),
    createdAt: isoDate,
    /** What the change concerned (channel, group, price, settings, user, key, code, catalog, moderation), and it in words. */
    kind: z.string().nullable(),
    summary: z.string(),
    /** What the handler recorded: `name`, and `changes` as {field: {before, after}} (secrets never shown). */
    detail: z.record(z.string(), z.unknown()),
  }),
);
export const adminKeyAnswer = apiKeyAnswer;

/** An announcement (lib/admin-api/announcements.ts): `state` says whether dashboards show it now. */
export const adminAnnouncementAnswer = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  level: z.enum(["info", "warning"]),
  startsAt: isoDate.nullable(),
  endsAt: isoDate.nullable(),
  state: z.enum(["scheduled", "current", "ended"]),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export const adminAnnouncementListAnswer = list(adminAnnouncementAnswer);

/** Every model the operator's pickers offer (lib/admin-api/known-models.ts). */
export const knownModelAnswer = z.object({
  id: z.string(),
  /** The catalog's kind; a model it does not list counts as text (lib/catalog/index.ts). */
  kind: z.enum(["text", "image", "embedding", "speech", "transcription"]),
  /** Listed by the built-in catalog or an operator's catalog override. */
  inCatalog: z.boolean(),
  /** The channels that list it. */
  channels: z.array(z.object({ id: z.string(), name: z.string() })),
  /** The groups that include it. */
  groups: z.array(z.string()),
  /** Whether it has a price (without one, users are told it does not exist). */
  priced: z.boolean(),
});
export const knownModelListAnswer = list(knownModelAnswer);
