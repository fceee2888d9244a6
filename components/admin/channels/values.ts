// The channel form's values and the rules between them and the API's channel body (POST and PATCH
// /api/admin/channels): the form holds text (the mapping as "public = upstream" lines, the settings as JSON) that
// is parsed only on submit. The settings a type has its own inputs for (`settings.region`, `settings.project`,
// `settings.apiVersion`; docs/api.md "Channel types") are taken out of the JSON into those inputs and put back on
// submit; every other settings key stays in the JSON as it was.
import type { AdminChannel } from "@/lib/portal/types";

export const CHANNEL_TYPES = [
  { value: "openai", label: "OpenAI-compatible" },
  { value: "anthropic", label: "Anthropic" },
  { value: "azure", label: "Azure OpenAI" },
  { value: "gemini", label: "Google Gemini API" },
  { value: "vertex", label: "Google Vertex AI" },
  { value: "bedrock", label: "Amazon Bedrock" },
  { value: "simulator", label: "Simulator (built-in, offline)" },
] as const;

/** The channel types (lib/providers/index.ts); the API answers a channel's as a string. */
export type ChannelType = (typeof CHANNEL_TYPES)[number]["value"];

/** The settings keys the form shows as inputs of their own. */
export type SettingField = "region" | "project" | "apiVersion";

/** Which of them each type shows. */
export const TYPE_SETTINGS: Record<ChannelType, readonly SettingField[]> = {
  openai: [],
  anthropic: [],
  azure: ["apiVersion"],
  gemini: [],
  vertex: ["region", "project"],
  bedrock: ["region"],
  simulator: [],
};

/** Types whose base URL must be given (the others have a default, or none). */
const BASE_URL_REQUIRED = new Set<string>(["openai", "anthropic", "azure"]);

export function needsBaseUrl(type: string): boolean {
  return BASE_URL_REQUIRED.has(type);
}

export function channelTypeLabel(type: string): string {
  return CHANNEL_TYPES.find((entry) => entry.value === type)?.label ?? type;
}

/** Named as the API's fields, so a server error's `param` lands on its input (`status` is the Enabled switch). */
export type ChannelValues = {
  name: string;
  type: ChannelType;
  baseUrl: string;
  apiKey: string;
  models: string[];
  modelMapping: string;
  settings: string;
  /** `settings.region` (vertex, bedrock), `settings.project` (vertex), `settings.apiVersion` (azure). */
  region: string;
  project: string;
  apiVersion: string;
  priority: number | string;
  weight: number | string;
  enabled: boolean;
};

export const CHANNEL_ALIASES = {
  status: "enabled",
  "settings.region": "region",
  "settings.project": "project",
  "settings.apiVersion": "apiVersion",
};

export function channelValues(channel: AdminChannel | null): ChannelValues {
  if (!channel)
    return {
      name: "",
      type: "openai",
      baseUrl: "",
      apiKey: "",
      models: [],
      modelMapping: "",
      settings: "{}",
      region: "",
      project: "",
      apiVersion: "",
      priority: 0,
      weight: 1,
      enabled: true,
    };
  // The type's own settings inputs take their keys out of the JSON (text values only: another value stays there).
  const settings: Record<string, unknown> = { ...(channel.settings ?? {}) };
  const fields = { region: "", project: "", apiVersion: "" };
  const type = channel.type as ChannelType;
  for (const field of TYPE_SETTINGS[type] ?? []) {
    const value = settings[field];
    if (typeof value !== "string") continue;
    fields[field] = value;
    delete settings[field];
  }
  return {
    name: channel.name,
    type,
    baseUrl: channel.baseUrl,
    apiKey: "",
    models: channel.models,
    modelMapping: Object.entries(channel.modelMapping ?? {})
      .map(([from, to]) => `${from} = ${to}`)
      .join("\n"),
    settings: JSON.stringify(settings, null, 2),
    ...fields,
    priority: channel.priority,
    weight: channel.weight,
    enabled: channel.status === "enabled",
  };
}

/** "public = upstream" per line → {public: upstream}; the bad line's number when one is malformed. */
export function parseMapping(text: string): { mapping: Record<string, string> } | { error: string } {
  const mapping: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (!line) continue;
    const match = /^(.+?)\s*(?:=|->|→)\s*(.+)$/.exec(line);
    if (!match) return { error: `Line ${index + 1}: write it as public-model = upstream-model` };
    mapping[match[1]!.trim()] = match[2]!.trim();
  }
  return { mapping };
}

/** The settings text as an object (empty text: {}), or null when it is not a JSON object. */
export function parseSettings(text: string): Record<string, unknown> | null {
  if (!text.trim()) return {};
  try {
    const settings = JSON.parse(text) as unknown;
    return typeof settings === "object" && settings !== null && !Array.isArray(settings) ? (settings as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const channelRules = {
  name: (value: string) => (value.trim() ? null : "Give the channel a name"),
  baseUrl: (value: string, values: ChannelValues) =>
    needsBaseUrl(values.type) && !value.trim() ? "The upstream's base URL, e.g. https://api.example.com/v1" : null,
  region: (value: string, values: ChannelValues) =>
    TYPE_SETTINGS[values.type]?.includes("region") && !value.trim()
      ? values.type === "bedrock"
        ? "The AWS region, e.g. us-east-1"
        : "The Google Cloud region, e.g. us-east5 or global"
      : null,
  models: (value: string[]) => (value.length ? null : "A channel serves at least one model"),
  modelMapping: (value: string) => {
    const parsed = parseMapping(value);
    return "error" in parsed ? parsed.error : null;
  },
  settings: (value: string) => (parseSettings(value) === null ? "Settings must be a JSON object" : null),
};

/**
 * The body to send (values already validated by `channelRules`); `stored`: the channel being edited (a PATCH, where
 * an empty key keeps the stored one), null for a new one.
 */
export function channelBody(values: ChannelValues, stored: AdminChannel | null): Record<string, unknown> {
  const simulator = values.type === "simulator";
  const mapping = parseMapping(values.modelMapping);
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    type: values.type,
    models: values.models,
    modelMapping: "mapping" in mapping ? mapping.mapping : {},
    settings: settingsOf(values),
    priority: Number(values.priority) || 0,
    weight: Number(values.weight) || 0,
    status: values.enabled ? "enabled" : "disabled",
  };
  // A simulator needs neither: what was typed before switching the type to simulator is not sent. An empty base URL
  // is left out where the type has a default (gemini, vertex, bedrock), unless it clears a stored one: the API
  // takes no empty URL, and its answer says so on the field rather than the old URL staying without a word.
  const baseUrl = values.baseUrl.trim();
  if (!simulator && (baseUrl || needsBaseUrl(values.type) || stored?.baseUrl)) body.baseUrl = baseUrl;
  if (!simulator && (!stored || values.apiKey)) body.apiKey = values.apiKey;
  return body;
}

/** The settings JSON with the type's own inputs put back: a filled input sets its key; an empty one leaves the JSON's. */
export function settingsOf(values: ChannelValues): Record<string, unknown> {
  const settings = { ...(parseSettings(values.settings) ?? {}) };
  for (const field of TYPE_SETTINGS[values.type] ?? []) {
    const value = values[field].trim();
    if (value) settings[field] = value;
  }
  return settings;
}

/** A service-account key file's `project_id`, when the text is such a file (the project input defaults to it). */
export function serviceAccountProject(text: string): string | null {
  try {
    const file = JSON.parse(text) as { project_id?: unknown } | null;
    return typeof file?.project_id === "string" && file.project_id ? file.project_id : null;
  } catch {
    return null;
  }
}
