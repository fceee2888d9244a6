// The /v1 routes, merged into lib/server/routes.ts.
import type { RouteHandler } from "@/lib/server/routes";
import { chatCompletions, messages } from "./text";
import { imageEdits, imageGenerations } from "./images/handler";
import { responses } from "./responses/handler";
import { countTokens, listModels, retrieveModel } from "./models";

export const gatewayRoutes: [method: string, path: string, handler: RouteHandler][] = [
  ["POST", "/v1/chat/completions", chatCompletions],
  ["POST", "/v1/messages", messages],
  ["POST", "/v1/images/generations", imageGenerations],
  ["POST", "/v1/images/edits", imageEdits],
  ["POST", "/v1/responses", responses],
  ["GET", "/v1/models", listModels],
  ["GET", "/v1/models/{id}", retrieveModel],
  ["POST", "/v1/messages/count_tokens", countTokens],
];
