// Shapes of the JSON the portal reads, derived from the answer schemas the route definitions declare
// (lib/account-api/answers.ts, lib/admin-api/answers.ts): the answer check of the integration tests parses every
// answer with those schemas, so these types are what the server sends. Type-only imports: nothing of the server
// reaches the browser. Dates arrive as ISO strings; money as integer micro-USD.
import type { z } from "zod";
import type * as userAnswers from "@/lib/account-api/answers";
import type * as adminAnswers from "@/lib/admin-api/answers";
import type {
  apiKeyAnswer,
  createdKeyAnswer,
  dailyTotalAnswer,
  selfAnswer,
  usagePageAnswer,
  usageRowAnswer,
  userModelAnswer,
  userModelsAnswer,
  announcementAnswer,
} from "@/lib/account-api/answers";
import type {
  adminChannelAnswer,
  adminGroupAnswer,
  adminPriceAnswer,
  adminRedeemCodeAnswer,
  adminUsageRowAnswer,
  adminUsageDetailAnswer,
  adminUserAnswer,
  channelTestAnswer,
  createdCodesAnswer,
  outboxMailAnswer,
  adminAnnouncementAnswer,
  knownModelAnswer,
} from "@/lib/admin-api/answers";

export type Self = z.infer<typeof selfAnswer>;
export type ApiKey = z.infer<typeof apiKeyAnswer>;
export type CreatedKey = z.infer<typeof createdKeyAnswer>;
export type UsageRow = z.infer<typeof usageRowAnswer>;
export type DailyTotal = z.infer<typeof dailyTotalAnswer>;
export type UsagePage = z.infer<typeof usagePageAnswer>;
/** A model of the Models & pricing page and the playground's pickers (GET /api/user/models). */
export type UserModel = z.infer<typeof userModelAnswer>;
export type ModelKind = UserModel["kind"];

/** The operator's view of a ledger row (every column of UsageLog). */
export type AdminUsageRow = z.infer<typeof adminUsageRowAnswer>;
export type AdminUsageDetail = z.infer<typeof adminUsageDetailAnswer>;
export type AdminUser = z.infer<typeof adminUserAnswer>;
export type AdminChannel = z.infer<typeof adminChannelAnswer>;
export type ChannelTestResult = z.infer<typeof channelTestAnswer>;
export type AdminGroup = z.infer<typeof adminGroupAnswer>;
/** USD per 1M tokens (characterInput: per 1M characters; audioInputSecond: per 1M seconds). */
export type AdminPrice = z.infer<typeof adminPriceAnswer>;
export type AdminRedeemCode = z.infer<typeof adminRedeemCodeAnswer>;
export type CreatedCodes = z.infer<typeof createdCodesAnswer>;
export type OutboxMail = z.infer<typeof outboxMailAnswer>;

/** GET /api/user/models: the models, the groups open to new keys, and the groups of the person's own keys. */
export type UserModels = z.infer<typeof userModelsAnswer>;
/** A notice in force, for the dashboard (GET /api/user/announcements). */
export type Announcement = z.infer<typeof announcementAnswer>;
/** An announcement as the operator manages it (GET /api/admin/announcements). */
export type AdminAnnouncement = z.infer<typeof adminAnnouncementAnswer>;
/** A model the operator's pickers offer (GET /api/admin/models). */
export type KnownModel = z.infer<typeof knownModelAnswer>;

/** Any answer of the account API by its schema's name, e.g. `UserAnswer<"apiKeyAnswer">`: a new endpoint's answer is
 *  typed in the portal without a line here. */
export type UserAnswer<Name extends keyof typeof userAnswers> = z.infer<(typeof userAnswers)[Name]>;
/** Any answer of the operator API by its schema's name, e.g. `AdminAnswer<"adminUserAnswer">`. */
export type AdminAnswer<Name extends keyof typeof adminAnswers> = z.infer<(typeof adminAnswers)[Name]>;
