// Where an upstream that speaks OpenAI's API takes a call, and how it is told whose key calls. The adapters of that
// dialect (./chat-completions.ts, ./images-api.ts) take one, so a channel type that speaks it with another URL layout
// or another key header is one small object in its own folder:
//   `openai` channels: POST {baseUrl}/chat/completions with `authorization: Bearer {key}` (lib/providers/openai/);
//   `azure` channels:  POST {baseUrl}/openai/deployments/{deployment}/chat/completions?api-version={v} with
//                      `api-key: {key}` (lib/providers/azure/).
import type { Channel } from "@/lib/channels";

/** The OpenAI API operations the shared adapters call, as paths under the API's root. */
export type OpenAiOperation =
  | "chat/completions"
  | "images/generations"
  | "images/edits"
  | "embeddings"
  | "audio/speech"
  | "audio/transcriptions";

export type Endpoint = {
  /** The URL of `operation` for the upstream model (the channel's mapping of the public model). */
  url(channel: Channel, operation: OpenAiOperation, upstreamModel: string): string;
  /** The headers that carry the channel's key (none when it has no key). */
  auth(channel: Channel): Record<string, string>;
};
