// OpenAI-compatible services the operator's channel form offers as presets for an `openai` channel
// (components/admin/channels/form-preset.tsx): choosing one fills the base URL, the name when it is empty, and the
// settings the service needs. The gateway always asks a stream for its usage (`stream_options.include_usage`) and
// sends the output cap in `max_completion_tokens` unless `settings.maxTokensField` is "max_tokens" (docs/api.md,
// "Channel types"); a service whose API reads only `max_tokens` would otherwise ignore the cap, or refuse the request.
// What each service's API documentation says, as of this list:
//   DeepSeek    documents only max_tokens (max_completion_tokens is ignored); takes stream_options.include_usage.
//   OpenRouter  documents max_tokens in its request schema.
//   Groq        takes max_completion_tokens (max_tokens is its deprecated alias).
//   xAI         takes max_completion_tokens.
//   Mistral     reads max_tokens and refuses fields it does not know (422 "Extra inputs are not permitted"),
//               max_completion_tokens among them, and has refused stream_options too (its streams carry their
//               usage unasked): the preset sets streamUsage "unasked", and stream_options is left out.
//   Ollama      its OpenAI-compatible endpoint lists max_tokens and stream_options.include_usage, not
//               max_completion_tokens; it needs no key.
//   vLLM        takes max_completion_tokens (max_tokens deprecated) and stream_options.include_usage.

export type ChannelPreset = {
  id: string;
  label: string;
  baseUrl: string;
  /** Settings the service needs; every key any preset sets is replaced when another preset is chosen. */
  settings: Record<string, unknown>;
  /** One line for the operator, shown when the preset is chosen. */
  note: string;
};

export const CHANNEL_PRESETS: readonly ChannelPreset[] = [
  {
    id: "deepseek",
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    settings: { maxTokensField: "max_tokens" },
    note: "Models such as deepseek-chat and deepseek-reasoner; the output cap is sent as max_tokens, the field DeepSeek reads.",
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    settings: { maxTokensField: "max_tokens" },
    note: "Model names carry their vendor, e.g. anthropic/claude-sonnet-4.5; the output cap is sent as max_tokens.",
  },
  {
    id: "groq",
    label: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    settings: {},
    note: "Model names as Groq lists them, e.g. llama-3.3-70b-versatile.",
  },
  {
    id: "xai",
    label: "xAI",
    baseUrl: "https://api.x.ai/v1",
    settings: {},
    note: "Grok models, e.g. grok-4.",
  },
  {
    id: "mistral",
    label: "Mistral",
    baseUrl: "https://api.mistral.ai/v1",
    settings: { maxTokensField: "max_tokens", streamUsage: "unasked" },
    note: "The output cap is sent as max_tokens, the field Mistral reads; streams go without stream_options, which Mistral refuses (its streams carry their usage unasked).",
  },
  {
    id: "ollama",
    label: "Ollama",
    baseUrl: "http://localhost:11434/v1",
    settings: { maxTokensField: "max_tokens" },
    note: "Needs no key. Use the address where the gateway reaches Ollama; model names as `ollama list` shows them.",
  },
  {
    id: "vllm",
    label: "vLLM",
    baseUrl: "http://localhost:8000/v1",
    settings: {},
    note: "The key is the server's --api-key, if it has one; model names as `vllm serve` was given them.",
  },
];

/** Every settings key some preset sets. */
export const PRESET_SETTING_KEYS: readonly string[] = [...new Set(CHANNEL_PRESETS.flatMap((preset) => Object.keys(preset.settings)))];

export function presetById(id: string | null | undefined): ChannelPreset | null {
  return CHANNEL_PRESETS.find((preset) => preset.id === id) ?? null;
}

/** The preset whose base URL this is (trailing slashes aside), or null. */
export function presetForBaseUrl(baseUrl: string): ChannelPreset | null {
  const wanted = baseUrl.trim().replace(/\/+$/, "");
  return wanted ? (CHANNEL_PRESETS.find((preset) => preset.baseUrl === wanted) ?? null) : null;
}

/**
 * The settings with `preset` applied: the keys presets set are replaced by this preset's (dropped where it sets
 * none), every other key kept as it was.
 */
export function withPresetSettings(settings: Record<string, unknown>, preset: ChannelPreset): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) if (!PRESET_SETTING_KEYS.includes(key)) next[key] = value;
  return { ...next, ...preset.settings };
}
