// The product's public model names (docs/api.md §2, §2.6). `[1m]` turns on the 1M-token context of a msg-* model.
export const IMAGE_MODEL = "std-image-2";
export const TEXT_MODEL = "std-5.5";
export const MESSAGE_MODELS = ["msg-haiku-4-5-20251001", "msg-sonnet-4-6", "msg-opus-4-6"] as const;
export const LONG_CONTEXT_SUFFIX = "[1m]";
/** Embeddings (`/v1/embeddings`): their vectors' sizes are the vendor's (1536 and 3072). */
export const EMBEDDING_MODELS = ["std-embedding-3-small", "std-embedding-3-large"] as const;
/** Speech (`/v1/audio/speech`) and transcription (`/v1/audio/transcriptions`). */
export const SPEECH_MODEL = "std-tts-1";
export const TRANSCRIPTION_MODEL = "std-transcribe-1";

export const ALL_MODELS = [
  IMAGE_MODEL,
  TEXT_MODEL,
  ...MESSAGE_MODELS,
  ...MESSAGE_MODELS.map((model) => `${model}${LONG_CONTEXT_SUFFIX}`),
  ...EMBEDDING_MODELS,
  SPEECH_MODEL,
  TRANSCRIPTION_MODEL,
];

export function splitLongContext(model: string): { base: string; longContext: boolean } {
  return model.endsWith(LONG_CONTEXT_SUFFIX)
    ? { base: model.slice(0, -LONG_CONTEXT_SUFFIX.length), longContext: true }
    : { base: model, longContext: false };
}
