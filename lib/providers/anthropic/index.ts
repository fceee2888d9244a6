// Anthropic's Messages API. Base URLs are the root (as Anthropic's SDK takes them); there is no image API.
import { noImageApi, type Provider } from "@/lib/providers/registry";
import { anthropicAdapter } from "./messages";

export const anthropic: Provider = {
  nativeText: () => "messages",
  text: anthropicAdapter,
  images: noImageApi("anthropic"),
  responses: () => null,
  modelList: (channel) => ({
    url: `${channel.baseUrl.replace(/\/+$/, "")}/v1/models?limit=1000`,
    headers: { "x-api-key": channel.apiKey, "anthropic-version": "2023-06-01" },
  }),
  needsBaseUrl: true,
};
