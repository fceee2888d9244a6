"use client";
// The playground's plumbing: models per endpoint, the request bodies it sends (also used for the code snippets; the
// Audio panel's speech body, voices and playable formats), and reading back what a request cost from the user's own
// ledger (the row carries the x-request-id of the call).
import { IMAGE_MODEL, LONG_CONTEXT_SUFFIX, MESSAGE_MODELS, SPEECH_MODEL, TEXT_MODEL } from "@/lib/catalog/models";
import { MAX_AUDIO_UPLOAD_BYTES, VOICES } from "@/lib/wire/audio-options";
import type { SpeechFormat } from "@/lib/wire/audio-request";
import { api } from "./api";
import type { UsagePage, UsageRow } from "./types";
import type { PlaygroundEndpoint } from "./snippets";

export type EndpointId = "images" | "edits" | "responses" | "chat" | "messages" | "audio";

export const ENDPOINTS: { id: EndpointId; path: PlaygroundEndpoint; label: string; description: string; models: string[] }[] = [
  {
    id: "images",
    path: "/v1/images/generations",
    label: "Images",
    description: "Generate one image from a prompt (JSON answer).",
    models: [IMAGE_MODEL],
  },
  {
    id: "edits",
    path: "/v1/images/edits",
    label: "Edit",
    description: "Change images you upload, optionally only where a mask is transparent.",
    models: [IMAGE_MODEL],
  },
  {
    id: "responses",
    path: "/v1/responses",
    label: "Responses",
    description: "A text model that calls the image tool, streamed event by event.",
    models: [TEXT_MODEL],
  },
  {
    id: "chat",
    path: "/v1/chat/completions",
    label: "Chat",
    description: "Chat Completions with streamed answers.",
    models: [TEXT_MODEL, ...MESSAGE_MODELS],
  },
  {
    id: "messages",
    path: "/v1/messages",
    label: "Messages",
    description: "The Messages API with streamed answers; [1m] turns on the 1M-token context.",
    models: [...MESSAGE_MODELS, ...MESSAGE_MODELS.map((model) => `${model}${LONG_CONTEXT_SUFFIX}`)],
  },
  {
    // The panel also transcribes (/v1/audio/transcriptions), with a model of its own picked in the panel.
    id: "audio",
    path: "/v1/audio/speech",
    label: "Audio",
    description: "Speak a text, then transcribe it or a file you upload.",
    models: [SPEECH_MODEL],
  },
];

export { MAX_AUDIO_UPLOAD_BYTES, VOICES };
export type Voice = (typeof VOICES)[number];
/** The speech formats the panel offers: those a browser's <audio> plays (pcm has no header to play it by). */
export const PLAYABLE_FORMATS = ["mp3", "wav"] as const satisfies readonly SpeechFormat[];
export type PlayableFormat = (typeof PLAYABLE_FORMATS)[number];

export function speechBody(model: string, input: string, voice: Voice, format: PlayableFormat): Record<string, unknown> {
  return { model, input, voice, response_format: format };
}

/** Characters as the gateway bills them: Unicode code points (an emoji is one). */
export function characterCount(text: string): number {
  return Array.from(text).length;
}

export type Quality = "low" | "medium" | "high" | "auto";
export type OutputFormat = "png" | "jpeg" | "webp";

export type ImageSettings = { size: string; quality: Quality; format: OutputFormat; compression: number; moderation: "auto" | "low" };

export const DEFAULT_IMAGE_SETTINGS: ImageSettings = {
  size: "1024x1024",
  quality: "low",
  format: "png",
  compression: 80,
  moderation: "auto",
};

/** The output options as the image API and the image_generation tool name them; compression only for jpeg/webp. */
export function imageFields(settings: ImageSettings): Record<string, string | number> {
  return {
    size: settings.size,
    quality: settings.quality,
    output_format: settings.format,
    ...(settings.format === "png" ? {} : { output_compression: settings.compression }),
    ...(settings.moderation === "auto" ? {} : { moderation: settings.moderation }),
  };
}

export function imagesBody(model: string, prompt: string, settings: ImageSettings): Record<string, unknown> {
  return { model, prompt, ...imageFields(settings) };
}

export const DEFAULT_INSTRUCTIONS = "You are an image assistant. Use the image_generation tool to make exactly what the user asks for.";

export function responsesBody(
  model: string,
  instructions: string,
  prompt: string,
  settings: ImageSettings,
  action: string,
  previews = 0,
): Record<string, unknown> {
  return {
    model,
    instructions,
    input: [{ role: "user", content: [{ type: "input_text", text: prompt }] }],
    stream: true,
    tools: [
      {
        type: "image_generation",
        ...imageFields(settings),
        ...(action === "auto" ? {} : { action }),
        ...(previews > 0 ? { partial_images: previews } : {}),
      },
    ],
  };
}

export type ChatTurn = { role: "user" | "assistant"; content: string };

export function chatBody(model: string, system: string, turns: ChatTurn[], maxTokens: number): Record<string, unknown> {
  return {
    model,
    messages: [...(system.trim() ? [{ role: "system", content: system.trim() }] : []), ...turns],
    max_tokens: maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  };
}

export function messagesBody(model: string, system: string, turns: ChatTurn[], maxTokens: number): Record<string, unknown> {
  return { model, max_tokens: maxTokens, ...(system.trim() ? { system: system.trim() } : {}), messages: turns, stream: true };
}

/** Headers for a /v1 call with `key`, in the scheme the endpoint expects (docs/api.md §5). */
export function authHeaders(endpoint: EndpointId, key: string, multipart = false): Record<string, string> {
  if (multipart) return { authorization: `Bearer ${key}` }; // an edit or a transcription: the browser sets the content type
  return endpoint === "messages"
    ? { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" }
    : { authorization: `Bearer ${key}`, "content-type": "application/json" };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The ledger row of the call with this request id (what it really cost), from the user's own usage. A streamed
 * call is settled right after its last event, so the row may take a moment to appear: a few tries.
 */
export async function findLedgerRow(requestId: string | null, model: string): Promise<UsageRow | null> {
  if (!requestId) return null;
  for (let attempt = 0; attempt < 6; attempt++) {
    const page = await api<UsagePage>(`/api/user/usage?kind=request&limit=20&model=${encodeURIComponent(model)}`);
    const row = page.data.find((entry) => entry.requestId === requestId);
    if (row) return row;
    await sleep(300 + attempt * 300);
  }
  return null;
}

/**
 * Resolves once a playground run's ledger row exists (its settlement is written with it), or after a few tries: the
 * moment to read the money figures again. `body`: the request's JSON text, for its model; a form is not looked up.
 */
export async function afterSettlement(requestId: string | null, body: BodyInit | string): Promise<void> {
  if (typeof body !== "string") return;
  let model = "";
  try {
    model = String((JSON.parse(body) as { model?: unknown }).model ?? "");
  } catch {
    return;
  }
  if (model) await findLedgerRow(requestId, model).catch(() => null);
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
