// Google Cloud's Vertex AI: Claude models by Anthropic's Messages (`:rawPredict`, `:streamRawPredict`, with
// `anthropic_version: vertex-2023-10-16` in the body and no model), Gemini models by Gemini's dialect
// (`:generateContent`). The credential is a service-account JSON; its access tokens come from the account's own
// `token_uri` and are reused until shortly before they expire (lib/providers/google-token.ts).
import { noImageApi, type ChannelConfig, type ConfigProblem, type Provider } from "@/lib/providers/registry";
import { channelDeadlines, jsonBody, upstreamFetch } from "@/lib/providers/http";
import { fetchedAnswer, relayText } from "@/lib/providers/text-relay";
import { GEMINI_DIALECT, geminiBody, geminiMethod } from "@/lib/providers/gemini-family";
import { cloudMessagesBody, upstreamBetas } from "@/lib/providers/messages-family";
import { forgetGoogleToken, googleAccessToken, parseServiceAccount, serviceAccountOf } from "@/lib/providers/google-token";
import type { Outcome, TextCall } from "@/lib/providers/types";
import { vertexEmbeddings } from "./embeddings";

export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** A Claude model on Vertex AI (its upstream name, e.g. `claude-sonnet-4-5@20250929`). */
export function isClaude(upstreamModel: string): boolean {
  return upstreamModel.startsWith("claude-");
}

const REGION = /^[a-z]+(?:-[a-z]+)*\d*$|^global$/;
const PROJECT = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/** The API root: the channel's base URL, else the region's endpoint (`global` has none of its own). */
export function apiRoot(channel: ChannelConfig): string {
  if (channel.baseUrl) return channel.baseUrl.replace(/\/+$/, "");
  const region = String(channel.settings.region);
  return region === "global" ? "https://aiplatform.googleapis.com" : `https://${region}-aiplatform.googleapis.com`;
}

/** The call's URL and body: Claude by rawPredict (Anthropic's family), Gemini by generateContent (through the hub). */
function request(call: TextCall, client: "chat" | "messages", project: string) {
  const settings = call.channel.settings;
  const claude = isClaude(call.upstreamModel);
  const model = encodeURIComponent(call.upstreamModel).replace(/%40/g, "@");
  const resource = `${apiRoot(call.channel)}/v1/projects/${project}/locations/${String(settings.region)}/publishers/${claude ? "anthropic" : "google"}/models/${model}`;
  if (!claude) return { claude, url: `${resource}${geminiMethod(call.stream)}`, body: geminiBody(call, client), betas: [] };
  return {
    claude,
    url: `${resource}:${call.stream ? "streamRawPredict" : "rawPredict"}`,
    body: { ...cloudMessagesBody(call, client, VERTEX_ANTHROPIC_VERSION), ...(call.stream ? { stream: true } : {}) },
    betas: upstreamBetas(call),
  };
}

async function predict(call: TextCall, client: "chat" | "messages"): Promise<Outcome> {
  const parsed = serviceAccountOf(call.channel.apiKey);
  if (!parsed.ok)
    return {
      ok: false,
      retryable: true,
      status: 502,
      message: "This channel's service account is unusable",
      cause: "channel_config",
      disable: parsed.message,
    };
  const account = parsed.account;
  const settings = call.channel.settings;
  const project = typeof settings.project === "string" && settings.project ? settings.project : (account.project_id ?? "");
  const { claude, url, body, betas } = request(call, client, project);
  const payload = await jsonBody(body, call.bodyBytes);
  const send = async () => {
    const token = await googleAccessToken(account, { signal: call.signal });
    if (!token.ok) return token;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${token.token}`,
      ...(betas.length ? { "anthropic-beta": betas.join(",") } : {}),
    };
    return upstreamFetch(url, { method: "POST", headers, body: payload }, { signal: call.signal, ...channelDeadlines(settings) });
  };
  let result = await send();
  // A token Google no longer takes (revoked, or the clock moved) is fetched again once before the channel is blamed.
  if (!result.ok && result.cause === "upstream_401") {
    forgetGoogleToken(account);
    result = await send();
  }
  if (!result.ok) return result;
  return relayText(call, claude ? "messages" : GEMINI_DIALECT, client, fetchedAnswer(call, result));
}

function checkConfig(channel: ChannelConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const account = parseServiceAccount(channel.apiKey);
  if (!account.ok) problems.push({ path: "apiKey", message: account.message });
  const { region, project } = channel.settings;
  if (typeof region !== "string" || !REGION.test(region))
    problems.push({ path: "settings.region", message: "Give the Vertex AI region, such as us-east5, europe-west1 or global" });
  if (project !== undefined && project !== "" && (typeof project !== "string" || !PROJECT.test(project)))
    problems.push({ path: "settings.project", message: "A Google Cloud project id is 6-30 lowercase letters, digits and dashes" });
  return problems;
}

export const vertex: Provider = {
  nativeText: (upstreamModel) => (isClaude(upstreamModel) ? "messages" : "hub"),
  text: { chat: (call) => predict(call, "chat"), messages: (call) => predict(call, "messages") },
  images: noImageApi("vertex"),
  responses: () => null,
  embeddings: (call) => vertexEmbeddings(call, apiRoot(call.channel)),
  // Vertex AI lists no publisher models on its prediction endpoint: the catalog is the list.
  modelList: () => null,
  needsBaseUrl: false,
  checkConfig,
};
