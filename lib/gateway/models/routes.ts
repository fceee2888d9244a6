// GET /v1/models and GET /v1/models/{id}: one definition per endpoint (docs/routes.md).
import { defineRoute } from "@/lib/platform/http/route-definition";
import { listModels, retrieveModel } from "./handler";
import { modelAnswer, modelListAnswer } from "./schemas";

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/models",
    auth: "bearer",
    dialect: "caller",
    summary:
      "The models this key may use: OpenAI's list shape, or Anthropic's (paged with limit, after_id, before_id) when the key is sent in x-api-key or with anthropic-version",
    request: {},
    response: { 200: modelListAnswer },
    handler: listModels,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/models/{id}",
    auth: "bearer",
    dialect: "caller",
    summary: "One model this key may use (404 otherwise), in the caller's shape",
    request: {},
    response: { 200: modelAnswer },
    handler: retrieveModel,
  }),
];
