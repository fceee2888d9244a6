// Azure OpenAI: a resource's deployments, in OpenAI's dialect under another URL layout and key header. baseUrl is the
// resource's endpoint (https://RESOURCE.openai.azure.com); every call goes to
// {baseUrl}/openai/deployments/{deployment}/{operation}?api-version={settings.apiVersion}, where the deployment is the
// channel's mapping of the public model, with the key in `api-key` (no Authorization). Usage, streaming, the
// content_filter finish reason and its 400 are OpenAI's (tests/fakes/azure-wire.ts shows Azure's bodies), so text and
// images go through the adapters every OpenAI-dialect type shares (lib/providers/endpoint.ts).
import type { Provider } from "@/lib/providers/registry";
import type { Endpoint } from "@/lib/providers/endpoint";
import { chatCompletionsAdapter } from "@/lib/providers/chat-completions";
import { imagesApiAdapter } from "@/lib/providers/images-api";
import { embeddingsApiAdapter } from "@/lib/providers/embeddings-api";
import { speechApiAdapter, transcriptionApiAdapter } from "@/lib/providers/audio-api";
import { apiVersion, checkAzureConfig } from "./config";

const endpoint: Endpoint = {
  url: (channel, operation, deployment) =>
    `${channel.baseUrl.replace(/\/+$/, "")}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(apiVersion(channel.settings))}`,
  auth: (channel) => ({ "api-key": channel.apiKey }),
};

export const azure: Provider = {
  nativeText: () => "chat",
  text: chatCompletionsAdapter(endpoint),
  images: imagesApiAdapter(endpoint),
  embeddings: embeddingsApiAdapter(endpoint),
  speech: speechApiAdapter(endpoint),
  transcription: transcriptionApiAdapter(endpoint),
  // No Responses API here: /v1/responses runs the gateway's image tool loop over the deployments' chat and images.
  responses: () => null,
  // The data plane lists no deployments: the gateway's catalog is the list.
  modelList: () => null,
  needsBaseUrl: true,
  checkConfig: checkAzureConfig,
};
