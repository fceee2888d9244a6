// OpenAI (and every upstream that speaks its API: vLLM, LiteLLM, other gateways). Base URLs carry the /v1.
import type { Provider } from "@/lib/providers/registry";
import { openaiAdapter } from "./chat";
import { openaiImageAdapter } from "./images";
import { openaiResponses } from "./responses";

export const openai: Provider = {
  nativeText: () => "chat",
  text: openaiAdapter,
  images: openaiImageAdapter,
  // Only where the operator says the upstream has the Responses API with the image tool (channel setting).
  responses: (call) => (call.channel.settings.responsesApi === true ? openaiResponses(call) : null),
  modelList: (channel) => ({
    url: `${channel.baseUrl.replace(/\/+$/, "")}/models`,
    headers: { authorization: `Bearer ${channel.apiKey}` },
  }),
  needsBaseUrl: true,
};
