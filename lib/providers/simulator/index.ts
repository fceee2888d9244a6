// The offline simulator: every endpoint answered in-process, in each vendor's shape, with realistic usage.
import type { Provider } from "@/lib/providers/registry";
import { simulatorAdapter } from "./chat";
import { simulatorImageAdapter } from "./images";
import { simulatorResponses } from "./responses";
import { simulatorEmbeddings } from "./embeddings";
import { simulatorSpeechAdapter } from "./speech";
import { simulatorTranscriptionAdapter } from "./transcription";

export const simulator: Provider = {
  nativeText: () => "chat",
  text: simulatorAdapter,
  images: simulatorImageAdapter,
  speech: simulatorSpeechAdapter,
  transcription: simulatorTranscriptionAdapter,
  responses: (call) => Promise.resolve({ ok: true, source: simulatorResponses(call) }),
  embeddings: simulatorEmbeddings,
  // It serves whatever the gateway's catalog names.
  modelList: () => null,
  needsBaseUrl: false,
};
