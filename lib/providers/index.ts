// The provider registry: channel type → what that upstream can do (lib/providers/registry.ts). Adding an upstream
// type is a folder under lib/providers/ and one line here; nothing above this layer names a vendor.
import type { Provider } from "./registry";
import { anthropic } from "./anthropic";
import { azure } from "./azure";
import { openai } from "./openai";
import { simulator } from "./simulator";
import { gemini } from "./gemini";
import { vertex } from "./vertex";
import { bedrock } from "./bedrock";

export const PROVIDERS = { openai, anthropic, azure, gemini, vertex, bedrock, simulator } satisfies Record<string, Provider>;

export type ChannelType = keyof typeof PROVIDERS;

/** The channel types, for schemas (`z.enum(CHANNEL_TYPES)`). */
export const CHANNEL_TYPES = Object.keys(PROVIDERS) as [ChannelType, ...ChannelType[]];

/** Each channel type's name in OpenTelemetry's GenAI conventions (gen_ai.provider.name), for the upstream spans. */
export const TELEMETRY_NAMES = {
  openai: "openai",
  anthropic: "anthropic",
  azure: "azure.ai.openai",
  gemini: "gcp.gemini",
  vertex: "gcp.vertex_ai",
  bedrock: "aws.bedrock",
  simulator: "simulator",
} satisfies Record<ChannelType, string>;

export function providerOf(type: ChannelType): Provider {
  return PROVIDERS[type];
}

export type { Provider } from "./registry";
