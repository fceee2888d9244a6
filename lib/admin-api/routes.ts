// The operator API (/api/admin/*), one definition per endpoint (docs/routes.md). The route table, /openapi.json and
// the portal's answer types are read from this list. Handlers: one file per resource in this folder.
import type { z } from "zod";
import { defineRoute, noBody, type RouteAuth, type RouteDefinition } from "@/lib/platform/http/route-definition";
import { moderationUpdateSchema } from "@/lib/moderation/policy";
import * as answers from "./answers";
import { adminRoute } from "./route";
import { createUser, createUserSchema, listUsers, listUsersQuery, updateUser, updateUserSchema } from "./users";
import { createKey, createKeySchema, deleteKey, listKeys, listKeysQuery, updateKey, updateKeySchema } from "./keys";
import { groupSchema, listGroups, upsertGroup } from "./groups";
import { createChannel, createChannelSchema, deleteChannel, listChannels, updateChannel, updateChannelSchema } from "./channels";
import { listPrices, priceSchema, upsertPrice } from "./prices";
import { codesSchema, createRedeemCodes, listCodesQuery, listRedeemCodes } from "./codes";
import { listOutbox, listOutboxQuery, listUsage, listUsageQuery } from "./ledger";
import { getUsageRow } from "./ledger-detail";
import { getSettings, settingsSchema, updateSettings } from "./settings";
import { getModeration, updateModeration } from "./moderation";
import { getCatalog, overrideBody, putCatalogEntry } from "./catalog";
import { testChannel, testSchema } from "./channel-test";
import {
  fetchChannelModels,
  overview,
  overviewQuery,
  resetUserTwoFactor,
  sendUserResetLink,
  voidCodes,
  voidCodesSchema,
} from "./operator-tools";
import { auditQuery, listAudit } from "./audit";
import {
  createAnnouncement,
  createAnnouncementSchema,
  deleteAnnouncement,
  listAnnouncements,
  updateAnnouncement,
  updateAnnouncementSchema,
} from "./announcements";
import { listKnownModels } from "./known-models";

const operator = { dialect: "plain", auth: "operator" satisfies RouteAuth } as const;

/** An operator call: method, path, summary, what it takes and answers. */
function call<const Request extends RouteDefinition["request"], const Answers extends Record<number, z.ZodType>>(
  method: RouteDefinition["method"],
  path: string,
  summary: string,
  request: Request,
  response: Answers,
  handler: RouteDefinition["handler"],
) {
  return defineRoute({ ...operator, method, path, summary, request, response, handler });
}

export const adminRoutes = [
  call(
    "POST",
    "/api/admin/users",
    "Create a user (quota = starting balance in micro-USD)",
    { body: createUserSchema },
    { 201: answers.createdUserAnswer },
    createUser,
  ),
  call(
    "GET",
    "/api/admin/users",
    "List users (?q= searches emails)",
    { query: listUsersQuery },
    { 200: answers.adminUserListAnswer },
    listUsers,
  ),
  call(
    "PATCH",
    "/api/admin/users/{id}",
    "Disable/enable a user, change role, adjust balance",
    { body: updateUserSchema },
    { 200: answers.updatedUserAnswer },
    updateUser,
  ),
  call(
    "POST",
    "/api/admin/keys",
    "Create a key for a user (the full key appears only in this answer)",
    { body: createKeySchema },
    { 201: answers.adminCreatedKeyAnswer },
    createKey,
  ),
  call("GET", "/api/admin/keys", "List keys (?userId=)", { query: listKeysQuery }, { 200: answers.adminKeyListAnswer }, listKeys),
  call(
    "PATCH",
    "/api/admin/keys/{id}",
    "Change a key: status is the operator's switch (the owner cannot lift it); a quota or expiry set here the owner may only tighten",
    { body: updateKeySchema },
    { 200: answers.adminKeyAnswer },
    updateKey,
  ),
  call("DELETE", "/api/admin/keys/{id}", "Revoke a key", {}, { 200: answers.deletedAnswer }, deleteKey),
  call(
    "POST",
    "/api/admin/groups",
    "Create (201) or update (200) a group (which models its keys may call)",
    { body: groupSchema },
    { 200: answers.adminGroupAnswer, 201: answers.adminGroupAnswer },
    upsertGroup,
  ),
  call("GET", "/api/admin/groups", "List groups", {}, { 200: answers.adminGroupListAnswer }, listGroups),
  call(
    "POST",
    "/api/admin/channels",
    "Create an upstream channel",
    { body: createChannelSchema },
    { 201: answers.createdChannelAnswer },
    createChannel,
  ),
  call(
    "GET",
    "/api/admin/channels",
    "List channels (upstream keys are never returned)",
    {},
    { 200: answers.adminChannelListAnswer },
    listChannels,
  ),
  call(
    "PATCH",
    "/api/admin/channels/{id}",
    "Change a channel",
    { body: updateChannelSchema },
    { 200: answers.adminChannelAnswer },
    updateChannel,
  ),
  call("DELETE", "/api/admin/channels/{id}", "Delete a channel", {}, { 200: answers.deletedAnswer }, deleteChannel),
  call(
    "POST",
    "/api/admin/channels/{id}/test",
    "Send one small request through the channel (a model it serves, or ?model in the body) and report how it went",
    { body: testSchema },
    { 200: answers.channelTestAnswer },
    testChannel,
  ),
  call(
    "POST",
    "/api/admin/prices",
    "Set a model's prices (USD per 1M tokens)",
    { body: priceSchema },
    { 200: answers.adminPriceAnswer },
    upsertPrice,
  ),
  call("GET", "/api/admin/prices", "List prices", {}, { 200: answers.adminPriceListAnswer }, listPrices),
  call(
    "GET",
    "/api/admin/catalog",
    "The model catalog: every model with its limits and the operator's overrides",
    {},
    { 200: answers.catalogAnswer },
    getCatalog,
  ),
  call(
    "PUT",
    "/api/admin/catalog/{model}",
    "Override one model's catalog fields; `override: null` restores the defaults",
    { body: overrideBody },
    { 200: answers.catalogEntryAnswer },
    putCatalogEntry,
  ),
  call(
    "POST",
    "/api/admin/redeem-codes",
    "Generate a batch of redeem codes (plain codes only in this answer)",
    { body: codesSchema },
    { 201: answers.createdCodesAnswer },
    createRedeemCodes,
  ),
  call(
    "GET",
    "/api/admin/redeem-codes",
    "List codes (?batch=) with their status",
    { query: listCodesQuery },
    { 200: answers.adminRedeemCodeListAnswer },
    listRedeemCodes,
  ),
  call(
    "GET",
    "/api/admin/usage",
    "The ledger, newest first (?key= a key's shown prefix or name, ?channel=, ?status=, ?from=, ?to=, ?after= the last row's id)",
    { query: listUsageQuery },
    { 200: answers.adminUsageListAnswer },
    listUsage,
  ),
  call(
    "GET",
    "/api/admin/usage/{id}",
    "One ledger row with its timing, tokens by kind, the price that charged it and the channels tried before",
    {},
    { 200: answers.adminUsageDetailAnswer },
    getUsageRow,
  ),
  call(
    "GET",
    "/api/admin/outbox",
    "Mail written to the outbox (?to=)",
    { query: listOutboxQuery },
    { 200: answers.outboxListAnswer },
    listOutbox,
  ),
  call("GET", "/api/admin/settings", "Sign-up open or not, groups users may pick", {}, { 200: answers.settingsAnswer }, getSettings),
  call("POST", "/api/admin/settings", "Change those settings", { body: settingsSchema }, { 200: answers.settingsAnswer }, updateSettings),
  call(
    "GET",
    "/api/admin/moderation",
    "The content policy's blocked terms per moderation level",
    {},
    { 200: answers.moderationAnswer },
    getModeration,
  ),
  call(
    "POST",
    "/api/admin/moderation",
    "Replace the blocked terms of 'auto' and/or 'low' ('low' checks its list only, 'auto' both), or reset to the defaults",
    { body: moderationUpdateSchema },
    { 200: answers.moderationAnswer },
    updateModeration,
  ),
  call(
    "POST",
    "/api/admin/users/{id}/reset-2fa",
    "Turn a user's two-factor off (they set it up again)",
    { body: noBody },
    { 200: answers.twoFactorResetAnswer },
    resetUserTwoFactor,
  ),
  call(
    "POST",
    "/api/admin/users/{id}/send-reset",
    "Mail the user a password-reset link",
    { body: noBody },
    { 200: answers.resetLinkSentAnswer },
    sendUserResetLink,
  ),
  call(
    "POST",
    "/api/admin/redeem-codes/void",
    "Void the unused codes of a batch, or a list of code ids",
    { body: voidCodesSchema },
    { 200: answers.voidedCodesAnswer },
    voidCodes,
  ),
  call(
    "POST",
    "/api/admin/channels/{id}/fetch-models",
    "The models the channel's upstream lists",
    { body: noBody },
    { 200: answers.fetchedModelsAnswer },
    fetchChannelModels,
  ),
  call(
    "GET",
    "/api/admin/overview",
    "Requests, errors, revenue and latency per channel over the last hours",
    { query: overviewQuery },
    { 200: answers.overviewAnswer },
    overview,
  ),
  call(
    "GET",
    "/api/admin/audit",
    "The operator writes, newest first, each in words (?targetId=, ?actor=, ?kind=, ?from=, ?to=)",
    { query: auditQuery },
    { 200: answers.auditListAnswer },
    adminRoute(listAudit),
  ),
  call(
    "GET",
    "/api/admin/models",
    "Every model known: the catalog's, every channel's, every priced one and every one a group names, with where each appears",
    {},
    { 200: answers.knownModelListAnswer },
    listKnownModels,
  ),
  call(
    "POST",
    "/api/admin/announcements",
    "Post a notice for the users' dashboards (plain text; level info or warning; optional startsAt/endsAt window)",
    { body: createAnnouncementSchema },
    { 201: answers.adminAnnouncementAnswer },
    createAnnouncement,
  ),
  call(
    "GET",
    "/api/admin/announcements",
    "Every announcement, newest first",
    {},
    { 200: answers.adminAnnouncementListAnswer },
    listAnnouncements,
  ),
  call(
    "PATCH",
    "/api/admin/announcements/{id}",
    "Change an announcement's text, level or window",
    { body: updateAnnouncementSchema },
    { 200: answers.adminAnnouncementAnswer },
    updateAnnouncement,
  ),
  call("DELETE", "/api/admin/announcements/{id}", "Delete an announcement", {}, { 200: answers.deletedAnswer }, deleteAnnouncement),
];
