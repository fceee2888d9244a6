// The operator's upstream channels (/api/admin/channels): create, list (never with the upstream key), change, delete.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { decrypt, encrypt } from "@/lib/platform/crypto";
import { json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { CHANNEL_TYPES, providerOf, type ChannelType } from "@/lib/providers";
import type { ChannelConfig } from "@/lib/providers/registry";
import { adminRoute, modelList } from "./route";
import { auditChanges, auditDetail, auditTarget } from "./audit";

const channelFields = {
  name: z.string().trim().min(1).max(100),
  type: z.enum(CHANNEL_TYPES),
  baseUrl: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .max(500)
    .transform((value) => value.replace(/\/+$/, "")),
  // A Vertex AI service-account JSON is ~2.3 KB; 8 KB leaves room for any credential (docs/api.md, "Channel types").
  apiKey: z.string().max(8192),
  models: modelList.min(1, "a channel serves at least one model"),
  modelMapping: z.record(z.string().min(1).max(200), z.string().min(1).max(200)),
  settings: z.record(z.string(), z.unknown()),
  priority: z.number().int().min(-1000).max(1000),
  weight: z.number().int().min(0).max(1000),
  status: z.enum(["enabled", "disabled"]),
};

export const createChannelSchema = z
  .object({
    ...channelFields,
    baseUrl: channelFields.baseUrl.optional(),
    apiKey: channelFields.apiKey.optional(),
    modelMapping: channelFields.modelMapping.default({}),
    settings: channelFields.settings.default({}),
    priority: channelFields.priority.default(0),
    weight: channelFields.weight.default(1),
    status: channelFields.status.default("enabled"),
  })
  .refine((body) => !providerOf(body.type).needsBaseUrl || Boolean(body.baseUrl), {
    message: "baseUrl is required for this channel type",
    path: ["baseUrl"],
  });

/** A 400 naming the first field a channel of this type cannot work with (lib/providers/registry.ts `checkConfig`). */
function checkConfig(type: ChannelType, config: ChannelConfig): void {
  const problem = providerOf(type).checkConfig?.(config)[0];
  if (problem) throw new GatewayError("invalid_request", problem.message, { param: problem.path });
}

export const createChannel = adminRoute(async (request) => {
  const body = await readBody(request, createChannelSchema);
  checkConfig(body.type, { baseUrl: body.baseUrl ?? "", apiKey: body.apiKey ?? "", settings: body.settings });
  const channel = await db().channel.create({
    data: {
      name: body.name,
      type: body.type,
      baseUrl: body.baseUrl ?? "",
      apiKey: encrypt(body.apiKey ?? "", env().secret),
      models: body.models,
      modelMapping: body.modelMapping,
      settings: body.settings as object,
      priority: body.priority,
      weight: body.weight,
      status: body.status,
    },
  });
  auditChanges(request, channel.name, null, body);
  auditTarget(request, channel.id);
  publish({ type: "channels.changed" });
  return json({ id: channel.id }, 201);
});

export const updateChannelSchema = z.object({
  name: channelFields.name.optional(),
  type: channelFields.type.optional(),
  baseUrl: channelFields.baseUrl.optional(),
  apiKey: channelFields.apiKey.optional(),
  models: channelFields.models.optional(),
  modelMapping: channelFields.modelMapping.optional(),
  settings: channelFields.settings.optional(),
  priority: channelFields.priority.optional(),
  weight: channelFields.weight.optional(),
  status: channelFields.status.optional(),
});

export const updateChannel = adminRoute(async (request, params) => {
  const body = await readBody(request, updateChannelSchema);
  const channel = await db().channel.findUnique({ where: { id: params.id } });
  if (!channel) throw new GatewayError("not_found", "No channel with this id");
  const { apiKey, settings, ...rest } = body;
  // The configuration as it will be: a change is checked together with what it leaves as it was.
  checkConfig((body.type ?? channel.type) as ChannelType, {
    baseUrl: body.baseUrl ?? channel.baseUrl,
    apiKey: apiKey ?? (channel.apiKey ? decrypt(channel.apiKey, env().secret) : ""),
    settings: (settings ?? channel.settings ?? {}) as Record<string, unknown>,
  });
  const updated = await db().channel.update({
    where: { id: channel.id },
    data: {
      ...rest,
      ...(apiKey !== undefined ? { apiKey: encrypt(apiKey, env().secret) } : {}),
      ...(settings !== undefined ? { settings: settings as object } : {}),
      // Re-enabling clears the reason it was disabled.
      ...(body.status === "enabled" ? { disabledReason: null } : {}),
    },
  });
  auditChanges(request, updated.name, channel, body);
  publish({ type: "channels.changed" });
  return json(publicChannel(updated));
});

export const deleteChannel = adminRoute(async (request, params) => {
  const channel = await db().channel.findUnique({ where: { id: params.id } });
  if (!channel) throw new GatewayError("not_found", "No channel with this id");
  auditDetail(request, { name: channel.name });
  await db().channel.delete({ where: { id: channel.id } });
  publish({ type: "channels.changed" });
  return json({ id: channel.id, deleted: true });
});

export const listChannels = adminRoute(async () => {
  const channels = await db().channel.findMany({ orderBy: [{ priority: "desc" }, { createdAt: "asc" }] });
  return json({ data: channels.map(publicChannel) });
});

export function publicChannel(channel: {
  id: string;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string;
  models: unknown;
  modelMapping: unknown;
  settings: unknown;
  priority: number;
  weight: number;
  status: string;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}) {
  // The upstream key never leaves the server; the operator sees only whether one is set.
  const { apiKey, ...rest } = channel;
  return { ...rest, hasApiKey: apiKey !== "" };
}
