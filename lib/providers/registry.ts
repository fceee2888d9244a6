// What a provider is: the one shape every upstream type fills in (lib/providers/index.ts lists them). The gateway's
// endpoints, the channel test and the operator's model fetch ask this shape and never switch on a channel's type.
import type { TextAdapter } from "./types";
import type { ImageAdapter, ImageOutcome } from "./image-types";
import type { ResponsesCall, ResponsesOutcome } from "./responses-types";
import type { EmbeddingsAdapter } from "./embeddings-types";
import type { SpeechAdapter, TranscriptionAdapter } from "./audio-types";

export type Provider = {
  /**
   * The text API the upstream speaks natively for this (upstream) model: the channel test asks in it, and a price
   * modifier reaches the upstream only in it (lib/gateway/modified-price.ts). "hub": a dialect of the vendor's own
   * (Gemini, Converse), reached through Chat Completions (lib/dialects/hub.ts); no client field passes as sent.
   */
  nativeText(upstreamModel: string): "chat" | "messages" | "hub";
  /** /v1/chat/completions and /v1/messages through this upstream (converted where it speaks the other). */
  text: TextAdapter;
  /** /v1/images/generations and /edits. */
  images: ImageAdapter;
  /**
   * /v1/responses served by the upstream itself, or null when the gateway runs the image tool loop over `text` and
   * `images` for this channel (lib/gateway/responses/tool-loop.ts).
   */
  responses(call: ResponsesCall): Promise<ResponsesOutcome> | null;
  /** /v1/embeddings; a type without it fails over with a plain reason (lib/providers/embeddings-types.ts). */
  embeddings?: EmbeddingsAdapter;
  /** /v1/audio/speech and /v1/audio/transcriptions, where the upstream has them (lib/providers/audio-types.ts). */
  speech?: SpeechAdapter;
  transcription?: TranscriptionAdapter;
  /**
   * Where the upstream lists its models (GET), and how to read the ids from its answer (an OpenAI-style
   * `{data: [{id}]}` unless `ids` says otherwise), or null when the gateway's own catalog is the list.
   */
  modelList(channel: ChannelConfig): ModelListing | null;
  /** Whether a channel of this type needs a base URL. */
  needsBaseUrl: boolean;
  /** What is wrong with a channel's configuration of this type, as field errors for people (the operator API answers
   *  them as a 400 naming the field; the portal's form shows them), or an empty list. */
  checkConfig?(channel: ChannelConfig): ConfigProblem[];
};

/** A channel's configuration as the operator gives it: the key decrypted, the settings as stored. */
export type ChannelConfig = { baseUrl: string; apiKey: string; settings: Record<string, unknown> };

export type ModelListing = { url: string; headers: Record<string, string>; ids?: (body: unknown) => string[] };

/** `path`: the field at fault (`apiKey`, `baseUrl`, `settings.region`). */
export type ConfigProblem = { path: string; message: string };

/** For a type that has no image API: every call fails over to the next channel with a plain reason. */
export function noImageApi(type: string): ImageAdapter {
  const refuse = async (): Promise<ImageOutcome> => ({
    ok: false,
    retryable: true,
    status: 502,
    message: `A '${type}' channel cannot serve the image API`,
    cause: "unsupported_channel",
  });
  return { generate: refuse, edit: refuse };
}
