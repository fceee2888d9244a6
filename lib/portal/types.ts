// Shapes of the JSON the portal reads (lib/account-api/handlers.ts, lib/account-api/two-factor.ts, lib/admin-api/handlers.ts).
// Dates arrive as ISO strings; money as integer micro-USD.

export type Self = {
  id: string;
  email: string;
  role: "user" | "admin";
  status: string;
  balance: number;
  totpEnabled: boolean;
  backupCodesRemaining: number;
  groups: string[];
  createdAt: string;
  passwordChangedAt: string;
};

export type ApiKey = {
  id: string;
  prefix: string;
  name: string;
  userId: string;
  group: string;
  quotaRemaining: number;
  unlimited: boolean;
  expiresAt: string | null;
  /** "disabled" when the operator disabled it or its owner paused it; the two fields below say which. */
  status: "active" | "disabled" | "expired" | "deleted";
  disabledByOperator: boolean;
  pausedByOwner: boolean;
  /** The operator set the quota (or made it unlimited): the owner may lower it, not raise it. */
  quotaByOperator: boolean;
  /** The expiry the operator set: the owner may bring the key's expiry forward, never past this. */
  operatorExpiresAt: string | null;
  lastUsedAt: string | null;
  rateLimitPerMinute: number | null;
  createdAt: string;
  /** "playground" for the playground's own key (made and used by the server), else null. */
  purpose: string | null;
  /** The models the key may call within its group; empty: all the group allows. */
  models: string[];
  /** Micro-USD spent by the key's requests, all time (in the list only). */
  spent?: number;
};

export type CreatedKey = ApiKey & { key: string };

export type UsageRow = {
  id: string;
  kind: "request" | "topup" | "adjust";
  requestId: string | null;
  keyId: string | null;
  keyPrefix: string | null;
  endpoint: string;
  model: string;
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  cost: number;
  status: string;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  stream: boolean;
  createdAt: string;
};

export type DailyTotal = {
  date: string;
  requests: number;
  spent: number;
  credited: number;
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
};

export type UsagePage = {
  data: UsageRow[];
  total: number;
  limit: number;
  offset: number;
  daily: DailyTotal[];
  dailyRange: { from: string; to: string };
  /** Requests and spend per day, model and key over `dailyRange` (requests only). */
  breakdown: { date: string; model: string; keyId: string | null; keyPrefix: string | null; requests: number; spent: number }[];
  /** Sums over every row the filters match (all pages, any date the filters allow). */
  totals: {
    rows: number;
    requests: number;
    spent: number;
    credited: number;
    textInputTokens: number;
    textOutputTokens: number;
    imageInputTokens: number;
    imageOutputTokens: number;
  };
};

/** The operator's view of a ledger row (every column of UsageLog). */
export type AdminUsageRow = UsageRow & {
  userId: string;
  channelId: string | null;
  channelName: string | null;
  reserved: number;
  priceVersion: number;
  detail: unknown;
};

export type AdminUser = {
  id: string;
  email: string;
  role: "user" | "admin";
  status: "active" | "disabled";
  balance: number;
  totpEnabled: boolean;
  createdAt: string;
};

export type AdminChannel = {
  id: string;
  name: string;
  type: "openai" | "anthropic" | "simulator";
  baseUrl: string;
  models: string[];
  modelMapping: Record<string, string>;
  settings: Record<string, unknown>;
  priority: number;
  weight: number;
  status: "enabled" | "disabled";
  disabledReason: string | null;
  hasApiKey: boolean;
  createdAt: string;
  updatedAt: string;
};

export type ChannelTestResult = {
  ok: boolean;
  latencyMs: number;
  status: number;
  model: string;
  kind: "chat" | "messages" | "image";
  error?: string;
};

export type AdminGroup = { id: string; name: string; models: string[]; rateLimitPerMinute: number | null };

/** USD per 1M tokens. */
export type AdminPrice = {
  id: string;
  model: string;
  textInput: number;
  textOutput: number;
  imageInput: number;
  imageOutput: number;
  /** Price modifiers: multiplier by `field:value`, an operator's field name or `anthropic-beta:<beta>`. */
  modifiers?: Record<string, number>;
  version: number;
  updatedAt?: string;
};

export type AdminRedeemCode = {
  id: string;
  prefix: string;
  batch: string;
  quota: number;
  status: string;
  expiresAt: string | null;
  redeemedById: string | null;
  redeemedAt: string | null;
  createdAt: string;
};

export type CreatedCodes = { batch: string; codes: string[]; quota: number; expiresAt: string | null };

export type OutboxMail = { id: string; to: string; subject: string; text: string; status: string; createdAt: string };
