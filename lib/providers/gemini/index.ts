// Google's Gemini API (generativelanguage.googleapis.com): Gemini's own dialect, reached through the hub (Chat
// Completions, lib/dialects/gemini/). The key goes in `x-goog-api-key` (https://ai.google.dev/api/generate-content).
import { noImageApi, type Provider } from "@/lib/providers/registry";
import { channelDeadlines, jsonBody, upstreamFetch } from "@/lib/providers/http";
import { fetchedAnswer, relayText } from "@/lib/providers/text-relay";
import { GEMINI_DIALECT, geminiBody, geminiMethod } from "@/lib/providers/gemini-family";
import type { Outcome, TextCall } from "@/lib/providers/types";
import { geminiEmbeddings } from "./embeddings";

export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com";

export function base(baseUrl: string): string {
  return (baseUrl || GEMINI_BASE_URL).replace(/\/+$/, "");
}

async function generate(call: TextCall, client: "chat" | "messages"): Promise<Outcome> {
  const url = `${base(call.channel.baseUrl)}/v1beta/models/${encodeURIComponent(call.upstreamModel)}${geminiMethod(call.stream)}`;
  const body = geminiBody(call, client);
  const result = await upstreamFetch(
    url,
    {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-goog-api-key": call.channel.apiKey },
      body: await jsonBody(body, call.bodyBytes),
    },
    { signal: call.signal, ...channelDeadlines(call.channel.settings) },
  );
  return result.ok ? relayText(call, GEMINI_DIALECT, client, fetchedAnswer(call, result)) : result;
}

/** The ids of `GET /v1beta/models` (`{models: [{name: "models/…", supportedGenerationMethods}]}`): those that generate. */
function generatingModels(body: unknown): string[] {
  const models = (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(models)) throw new TypeError("not a model list");
  return models
    .filter((model) => {
      const methods = (model as { supportedGenerationMethods?: unknown }).supportedGenerationMethods;
      return !Array.isArray(methods) || methods.includes("generateContent");
    })
    .map((model) => (model as { name?: unknown }).name)
    .filter((name): name is string => typeof name === "string")
    .map((name) => name.replace(/^models\//, ""));
}

export const gemini: Provider = {
  nativeText: () => "hub",
  text: { chat: (call) => generate(call, "chat"), messages: (call) => generate(call, "messages") },
  images: noImageApi("gemini"),
  responses: () => null,
  embeddings: (call) => geminiEmbeddings(call, base(call.channel.baseUrl)),
  modelList: (channel) => ({
    url: `${base(channel.baseUrl)}/v1beta/models?pageSize=1000`,
    headers: { "x-goog-api-key": channel.apiKey },
    ids: generatingModels,
  }),
  needsBaseUrl: false,
  checkConfig: (channel) => (channel.apiKey.trim() ? [] : [{ path: "apiKey", message: "A Gemini channel needs its API key" }]),
};
