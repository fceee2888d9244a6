// The voices of /v1/audio/speech (OpenAI's built-in ones) and the size limit of a transcription upload, apart from the
// request rules (lib/wire/audio-request.ts) so that the portal's playground can use them without loading the
// validation code into the browser.
export const VOICES = [
  "alloy",
  "ash",
  "ballad",
  "cedar",
  "coral",
  "echo",
  "fable",
  "marin",
  "nova",
  "onyx",
  "sage",
  "shimmer",
  "verse",
] as const;

/** Each transcription upload (OpenAI's 25 MB). */
export const MAX_AUDIO_UPLOAD_BYTES = 25 * 1024 * 1024;
