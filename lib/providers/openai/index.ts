// OpenAI (and every upstream that speaks its API: vLLM, LiteLLM, other gateways). Base URLs carry the /v1; the key
// goes as a Bearer token. Text and images through the adapters every OpenAI-dialect type shares (lib/providers/endpoint.ts).
import type { Provider } from "@/lib/providers/registry";
import type { Endpoint } from "@/lib/providers/endpoint";
import { chatCompletionsAdapter } from "@/lib/providers/chat-completions";
import { imagesApiAdapter } from "@/lib/providers/images-api";
import { embeddingsApiAdapter } from "@/lib/providers/embeddings-api";
import { speechApiAdapter, transcriptionApiAdapter } from "@/lib/providers/audio-api";
import { joinUrl } from "@/lib/providers/http";
import { openaiResponses } from "./responses";

/** {baseUrl}/{operation}, the model in the body only. */
const endpoint: Endpoint = {
  url: (channel, operation) => joinUrl(channel.baseUrl, operation),
  auth: (channel): Record<string, string> => (channel.apiKey ? { authorization: `Bearer ${channel.apiKey}` } : {}),
};

export const openai: Provider = {
  nativeText: () => "chat",
  text: chatCompletionsAdapter(endpoint),
  images: imagesApiAdapter(endpoint),
  embeddings: embeddingsApiAdapter(endpoint),
  speech: speechApiAdapter(endpoint),
  transcription: transcriptionApiAdapter(endpoint),
  // Only where the operator says the upstream has the Responses API with the image tool (channel setting).
  responses: (call) => (call.channel.settings.responsesApi === true ? openaiResponses(call) : null),
  modelList: (channel) => ({
    url: `${channel.baseUrl.replace(/\/+$/, "")}/models`,
    headers: { authorization: `Bearer ${channel.apiKey}` },
  }),
  needsBaseUrl: true,
};
