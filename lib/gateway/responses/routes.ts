// /v1/responses and the playground's copy: one definition per endpoint (docs/routes.md).
import { defineRoute } from "@/lib/platform/http/route-definition";
import { playgroundCopy } from "@/lib/gateway/playground";
import { responses } from "./handler";
import { responseObjectAnswer, responsesRequestDocumentation } from "./schemas";

const responsesCall = defineRoute({
  method: "POST",
  path: "/v1/responses",
  auth: "bearer",
  summary:
    "std-5.5 with the image_generation tool, streamed; several images by asking for them in the prompt (n and previous_response_id are refused)",
  dialect: "openai",
  request: { body: responsesRequestDocumentation },
  response: { 200: responseObjectAnswer },
  stream: true,
  handler: responses,
});

export const routes = [responsesCall];
export const playgroundRoutes = [playgroundCopy(responsesCall)];
