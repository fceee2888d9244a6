// Amazon Bedrock's runtime: Anthropic models (ids containing `anthropic.`) by InvokeModel with the Messages body
// (`anthropic_version: bedrock-2023-05-31`, no model, no stream flag), every other model by the Converse API, in
// Converse's dialect through the hub (lib/dialects/converse/). Every call is signed with SigV4 (service `bedrock`),
// or carries a Bedrock API key as a Bearer (lib/providers/aws-sign.ts).
import { noImageApi, type ChannelConfig, type ConfigProblem, type Provider } from "@/lib/providers/registry";
import { channelDeadlines, jsonBody, upstreamFetch } from "@/lib/providers/http";
import { fetchedAnswer, relayText, type HubDialect } from "@/lib/providers/text-relay";
import { cloudMessagesBody } from "@/lib/providers/messages-family";
import { hubRequest } from "@/lib/providers/hub-request";
import { awsCredentialProblem, bedrockModelPath, parseAwsCredential, signBedrockRequest } from "@/lib/providers/aws-sign";
import { chatRequestToConverse } from "@/lib/dialects/converse/chat-to-converse";
import { converseResponseToChat, ConverseStreamToChat } from "@/lib/dialects/converse/converse-to-chat";
import type { Outcome, TextCall } from "@/lib/providers/types";
import { converseEvents, invokeEvents } from "./stream";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** An Anthropic model on Bedrock (`anthropic.claude-…`, or a cross-region profile such as `us.anthropic.claude-…`). */
export function isAnthropic(upstreamModel: string): boolean {
  return upstreamModel.includes("anthropic.");
}

const CONVERSE: HubDialect = {
  lastEvent: "messageStop and metadata",
  answer: (body, publicModel) => converseResponseToChat(body, publicModel),
  stream: (publicModel) => new ConverseStreamToChat({ publicModel }),
};

const REGION = /^[a-z]{2}(?:-gov)?-[a-z]+-\d$/;

export function apiRoot(channel: ChannelConfig): string {
  return (channel.baseUrl || `https://bedrock-runtime.${String(channel.settings.region)}.amazonaws.com`).replace(/\/+$/, "");
}

async function call(call: TextCall, client: "chat" | "messages"): Promise<Outcome> {
  const anthropic = isAnthropic(call.upstreamModel);
  const operation = anthropic ? (call.stream ? "invoke-with-response-stream" : "invoke") : call.stream ? "converse-stream" : "converse";
  const url = `${apiRoot(call.channel)}${bedrockModelPath(call.upstreamModel, operation)}`;
  const body = anthropic
    ? cloudMessagesBody(call, client, BEDROCK_ANTHROPIC_VERSION)
    : (chatRequestToConverse(hubRequest(call, client), { outputCap: call.outputCap }) as unknown as Record<string, unknown>);
  // Signed over the exact bytes sent (a large body hashed slice by slice, lib/providers/aws-sign.ts).
  const bytes = await jsonBody(body, call.bodyBytes);
  const headers = await signBedrockRequest({
    url,
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: call.stream ? "application/vnd.amazon.eventstream" : "application/json",
    },
    body: bytes,
    credential: parseAwsCredential(call.channel.apiKey),
    region: String(call.channel.settings.region),
  });
  const result = await upstreamFetch(
    url,
    { method: "POST", headers, body: bytes },
    { signal: call.signal, ...channelDeadlines(call.channel.settings) },
  );
  if (!result.ok) return result;
  return anthropic
    ? relayText(call, "messages", client, fetchedAnswer(call, result, invokeEvents))
    : relayText(call, CONVERSE, client, fetchedAnswer(call, result, converseEvents));
}

function checkConfig(channel: ChannelConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const credential = channel.apiKey.trim()
    ? awsCredentialProblem(channel.apiKey)
    : "Give ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN], or a Bedrock API key";
  if (credential) problems.push({ path: "apiKey", message: credential });
  const region = channel.settings.region;
  if (typeof region !== "string" || !REGION.test(region))
    problems.push({ path: "settings.region", message: "Give the AWS region of the Bedrock runtime, such as us-east-1 or eu-central-1" });
  return problems;
}

export const bedrock: Provider = {
  nativeText: (upstreamModel) => (isAnthropic(upstreamModel) ? "messages" : "hub"),
  text: { chat: (c) => call(c, "chat"), messages: (c) => call(c, "messages") },
  images: noImageApi("bedrock"),
  responses: () => null,
  // Bedrock's model list is on its control plane (another service and host), not the runtime: the catalog is the list.
  modelList: () => null,
  needsBaseUrl: false,
  checkConfig,
};
