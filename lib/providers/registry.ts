// What a provider is: the one shape every upstream type fills in (lib/providers/index.ts lists them). The gateway's
// endpoints, the channel test and the operator's model fetch ask this shape and never switch on a channel's type.
import type { TextAdapter } from "./types";
import type { ImageAdapter, ImageOutcome } from "./image-types";
import type { ResponsesCall, ResponsesOutcome } from "./responses-types";

export type Provider = {
  /** The text API the upstream speaks natively: the channel test asks in it. */
  nativeText: "chat" | "messages";
  /** /v1/chat/completions and /v1/messages through this upstream (converted where it speaks the other). */
  text: TextAdapter;
  /** /v1/images/generations and /edits. */
  images: ImageAdapter;
  /**
   * /v1/responses served by the upstream itself, or null when the gateway runs the image tool loop over `text` and
   * `images` for this channel (lib/gateway/responses/tool-loop.ts).
   */
  responses(call: ResponsesCall): Promise<ResponsesOutcome> | null;
  /**
   * Where the upstream lists its models (GET, an OpenAI-style `{data: [{id}]}`), or null when the gateway's own
   * catalog is the list.
   */
  modelList(channel: { baseUrl: string; apiKey: string }): { url: string; headers: Record<string, string> } | null;
  /** Whether a channel of this type needs a base URL. */
  needsBaseUrl: boolean;
};

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
