// /v1/images/generations and /v1/images/edits, and the playground's copies: one definition per endpoint
// (docs/routes.md).
import { defineRoute } from "@/lib/platform/http/route-definition";
import { imageRequestSchema } from "@/lib/wire/image-request";
import { playgroundCopy } from "@/lib/gateway/playground";
import { imageEdits, imageGenerations } from "./handler";
import { imageEditsMultipart, imagesAnswer } from "./schemas";

const generations = defineRoute({
  method: "POST",
  path: "/v1/images/generations",
  auth: "bearer",
  summary: "Generate one image (std-image-2). Sizes above 2560x1440 are experimental; background 'transparent' is refused",
  dialect: "openai",
  request: { body: imageRequestSchema },
  response: { 200: imagesAnswer },
  handler: imageGenerations,
});
const edits = defineRoute({
  method: "POST",
  path: "/v1/images/edits",
  auth: "bearer",
  summary: "Edit uploaded images (multipart); the mask applies to the first image; each file at most 50 MB",
  dialect: "openai",
  request: { multipart: imageEditsMultipart },
  response: { 200: imagesAnswer },
  handler: imageEdits,
});

export const routes = [generations, edits];
export const playgroundRoutes = [playgroundCopy(generations), playgroundCopy(edits)];
