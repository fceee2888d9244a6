// What an `azure` channel's configuration must be (docs/api.md, "Channel types"): the resource's endpoint, its key, and
// the data-plane API version the calls carry.
import type { ChannelConfig, ConfigProblem } from "@/lib/providers/registry";

/** The API version a channel without `settings.apiVersion` calls with (a GA version). */
export const DEFAULT_API_VERSION = "2024-10-21";

/** A dated version, GA (`2024-10-21`) or preview (`2025-04-01-preview`). */
const API_VERSION = /^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(-preview)?$/;

/**
 * The oldest version the gateway calls with: a stream's usage is asked for with `stream_options` (taken from
 * 2024-08-01-preview on; older versions refuse the request, tests/fakes/azure.ts) and the output cap is sent as
 * `max_completion_tokens` (from 2024-09-01-preview on).
 */
export const OLDEST_API_VERSION = "2024-09-01";

/** Plain http only to this machine (a local proxy, the tests' fakes): the key would otherwise cross the network in clear. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The channel's API version: its setting, or the default. */
export function apiVersion(settings: Record<string, unknown>): string {
  return typeof settings.apiVersion === "string" && settings.apiVersion ? settings.apiVersion : DEFAULT_API_VERSION;
}

function baseUrlProblem(baseUrl: string): string | null {
  if (!baseUrl) return "An azure channel needs its resource's endpoint, e.g. https://RESOURCE.openai.azure.com";
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "Must be the resource's endpoint, e.g. https://RESOURCE.openai.azure.com";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname)))
    return "Must be an https URL (plain http is taken only for localhost)";
  if (/\/openai(\/|$)/.test(url.pathname))
    return "Give the resource's endpoint without /openai/…: the gateway adds /openai/deployments/{deployment}/…";
  if (url.search || url.hash) return "Give the endpoint without a query: the gateway adds api-version itself (settings.apiVersion)";
  return null;
}

export function checkAzureConfig(channel: ChannelConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const baseUrl = baseUrlProblem(channel.baseUrl);
  if (baseUrl) problems.push({ path: "baseUrl", message: baseUrl });
  if (!channel.apiKey) problems.push({ path: "apiKey", message: "An azure channel needs one of the resource's keys (sent as api-key)" });
  const version = channel.settings.apiVersion;
  if (version !== undefined) {
    if (typeof version !== "string" || !API_VERSION.test(version))
      problems.push({ path: "settings.apiVersion", message: "Must be an Azure OpenAI API version, e.g. 2024-10-21 or 2025-04-01-preview" });
    else if (version.slice(0, 10) < OLDEST_API_VERSION)
      problems.push({
        path: "settings.apiVersion",
        message: `Must be ${OLDEST_API_VERSION}-preview or newer: older versions take neither stream_options (the usage of a stream) nor max_completion_tokens`,
      });
  }
  const field = channel.settings.maxTokensField;
  if (field !== undefined && field !== "max_tokens" && field !== "max_completion_tokens")
    problems.push({ path: "settings.maxTokensField", message: 'Must be "max_completion_tokens" (the default) or "max_tokens"' });
  return problems;
}
