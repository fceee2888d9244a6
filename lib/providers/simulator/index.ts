// The offline simulator: every endpoint answered in-process, in each vendor's shape, with realistic usage.
import type { Provider } from "@/lib/providers/registry";
import { simulatorAdapter } from "./chat";
import { simulatorImageAdapter } from "./images";
import { simulatorResponses } from "./responses";
import { simulatorEmbeddings } from "./embeddings";

export const simulator: Provider = {
  nativeText: () => "chat",
  text: simulatorAdapter,
  images: simulatorImageAdapter,
  responses: (call) => Promise.resolve({ ok: true, source: simulatorResponses(call) }),
  embeddings: simulatorEmbeddings,
  // It serves whatever the gateway's catalog names.
  modelList: () => null,
  needsBaseUrl: false,
};
