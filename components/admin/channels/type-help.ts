// What the channel form says about each upstream type (docs/api.md "Channel types"): the base URL and credential
// inputs' labels and help, and a note on how the type reads the model mapping. The form's inputs are in
// form-upstream.tsx.
import type { ChannelType } from "./values";

export type TypeHelp = {
  baseUrl: { description: string; placeholder: string };
  key: { label: string; description: string; placeholder?: string };
  /** How the model mapping's upstream names are read, where the type has a rule. */
  note?: string;
};

export const TYPE_HELP: Record<Exclude<ChannelType, "simulator">, TypeHelp> = {
  openai: {
    baseUrl: { description: "The API root, with /v1.", placeholder: "https://api.openai.com/v1" },
    key: {
      label: "API key",
      description: "Sent as Authorization: Bearer. Leave it empty for a server that takes none, such as a local Ollama.",
    },
  },
  anthropic: {
    baseUrl: { description: "The API root, without /v1.", placeholder: "https://api.anthropic.com" },
    key: { label: "API key", description: "Sent as x-api-key." },
  },
  azure: {
    baseUrl: {
      description: "Your Azure OpenAI resource's endpoint, without /openai/… (https; plain http only for localhost).",
      placeholder: "https://RESOURCE.openai.azure.com",
    },
    key: { label: "Resource key", description: "One of the resource's two keys (Keys and Endpoint in the Azure portal), sent as api-key." },
    note: "Azure runs each model as a deployment you named: map every public model to its deployment's name in Model mapping, e.g. std-5.5 = my-gpt-deployment.",
  },
  gemini: {
    baseUrl: { description: "Optional: leave it empty for Google's endpoint.", placeholder: "https://generativelanguage.googleapis.com" },
    key: { label: "Gemini API key", description: "From Google AI Studio; sent as x-goog-api-key." },
    note: "Map public models to Gemini model names in Model mapping, e.g. std-5.5 = gemini-2.5-pro.",
  },
  vertex: {
    baseUrl: {
      description: "Optional: leave it empty for Google's endpoint in the region (aiplatform.googleapis.com for global).",
      placeholder: "https://REGION-aiplatform.googleapis.com",
    },
    key: {
      label: "Service account key (JSON)",
      description: "Or paste the key file's contents here.",
      placeholder: '{"type": "service_account", "project_id": "…", "private_key": "-----BEGIN PRIVATE KEY-----…", …}',
    },
    note: "The upstream model name picks the API: a name starting with claude- (e.g. claude-sonnet-4-5@20250929) is Anthropic's Claude on Vertex AI; any other name (e.g. gemini-2.5-pro) is a Gemini model.",
  },
  bedrock: {
    baseUrl: {
      description: "Optional: leave it empty for AWS's endpoint in the region.",
      placeholder: "https://bedrock-runtime.REGION.amazonaws.com",
    },
    key: {
      label: "AWS credential",
      description: "ACCESS_KEY_ID:SECRET_ACCESS_KEY, with :SESSION_TOKEN added for temporary credentials; or a Bedrock API key.",
      placeholder: "AKIA…:…",
    },
    note: "The upstream model id picks the API: an id containing anthropic. (e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0) is called with InvokeModel in Anthropic's format; any other (e.g. amazon.nova-pro-v1:0) with Converse.",
  },
};

/** The credential input's help: the type's, or that a stored one is kept when editing. */
export function keyDescription(help: TypeHelp, hasKey: boolean): string {
  return hasKey
    ? `${help.key.description} A credential is set: leave this empty to keep it.`
    : `${help.key.description} Stored encrypted; never shown again.`;
}
