// /v1/audio/speech and /v1/audio/transcriptions, and the playground's copies: one definition per endpoint
// (docs/routes.md).
import { defineRoute } from "@/lib/platform/http/route-definition";
import { speechRequestSchema } from "@/lib/wire/audio-request";
import { playgroundCopy } from "@/lib/gateway/playground";
import { audioSpeech } from "./speech";
import { audioTranscriptions } from "./transcription";
import { SPEECH_ANSWER_TYPES, speechAnswer, transcriptionAnswer, transcriptionMultipart } from "./schemas";

const speech = defineRoute({
  method: "POST",
  path: "/v1/audio/speech",
  auth: "bearer",
  summary: "Speak a text (std-tts-1, at most 4,096 characters); the audio file's bytes, or events with stream_format 'sse'",
  dialect: "openai",
  request: { body: speechRequestSchema },
  response: { 200: speechAnswer },
  answerTypes: SPEECH_ANSWER_TYPES,
  handler: audioSpeech,
});
const transcriptions = defineRoute({
  method: "POST",
  path: "/v1/audio/transcriptions",
  auth: "bearer",
  summary: "Transcribe an uploaded audio file (multipart, at most 25 MB); JSON, or text for text, srt and vtt",
  dialect: "openai",
  request: { multipart: transcriptionMultipart },
  response: { 200: transcriptionAnswer },
  answerTypes: ["application/json", "text/plain"],
  handler: audioTranscriptions,
});

export const routes = [speech, transcriptions];
export const playgroundRoutes = [playgroundCopy(speech), playgroundCopy(transcriptions)];
