// The channel form's values and the rules between them and the API's channel body (POST and PATCH
// /api/admin/channels): the form holds text (the mapping as "public = upstream" lines, the settings as JSON) that
// is parsed only on submit.
import type { AdminChannel } from "@/lib/portal/types";

export const CHANNEL_TYPES = [
  { value: "openai", label: "OpenAI-compatible" },
  { value: "anthropic", label: "Anthropic" },
  { value: "azure", label: "Azure OpenAI" },
  { value: "simulator", label: "Simulator (built-in, offline)" },
];

export function channelTypeLabel(type: string): string {
  return CHANNEL_TYPES.find((entry) => entry.value === type)?.label ?? type;
}

/** Named as the API's fields, so a server error's `param` lands on its input (`status` is the Enabled switch). */
export type ChannelValues = {
  name: string;
  type: AdminChannel["type"];
  baseUrl: string;
  apiKey: string;
  models: string[];
  modelMapping: string;
  settings: string;
  priority: number | string;
  weight: number | string;
  enabled: boolean;
};

export const CHANNEL_ALIASES = { status: "enabled" };

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
      priority: 0,
      weight: 1,
      enabled: true,
    };
  return {
    name: channel.name,
    type: channel.type,
    baseUrl: channel.baseUrl,
    apiKey: "",
    models: channel.models,
    modelMapping: Object.entries(channel.modelMapping ?? {})
      .map(([from, to]) => `${from} = ${to}`)
      .join("\n"),
    settings: JSON.stringify(channel.settings ?? {}, null, 2),
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
    values.type !== "simulator" && !value.trim() ? "The upstream's base URL, e.g. https://api.example.com/v1" : null,
  models: (value: string[]) => (value.length ? null : "A channel serves at least one model"),
  modelMapping: (value: string) => {
    const parsed = parseMapping(value);
    return "error" in parsed ? parsed.error : null;
  },
  settings: (value: string) => (parseSettings(value) === null ? "Settings must be a JSON object" : null),
};

/** The body to send (values already validated by `channelRules`); `editing`: a PATCH, where an empty key keeps the stored one. */
export function channelBody(values: ChannelValues, editing: boolean): Record<string, unknown> {
  const simulator = values.type === "simulator";
  const mapping = parseMapping(values.modelMapping);
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    type: values.type,
    models: values.models,
    modelMapping: "mapping" in mapping ? mapping.mapping : {},
    settings: parseSettings(values.settings) ?? {},
    priority: Number(values.priority) || 0,
    weight: Number(values.weight) || 0,
    status: values.enabled ? "enabled" : "disabled",
  };
  // A simulator needs neither: what was typed before switching the type to simulator is not sent.
  if (!simulator) body.baseUrl = values.baseUrl.trim();
  if (!simulator && (!editing || values.apiKey)) body.apiKey = values.apiKey;
  return body;
}
