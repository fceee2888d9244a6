// The image endpoints and the content-policy operator API in /openapi.json (lib/server/openapi.ts), described from
// the same zod schemas the handlers validate with.
import type { Documented } from "@/lib/server/openapi";
import { moderationUpdateSchema } from "@/lib/moderation/policy";
import { imageRequestSchema, MAX_EDIT_IMAGES } from "@/lib/wire/image-request";

const option = (description: string) => ({ type: "string", description });

export const documentedRoutes: Documented[] = [
  {
    method: "post",
    path: "/v1/images/generations",
    tag: "Gateway",
    security: "bearer",
    body: imageRequestSchema,
    summary: "Generate one image (std-image-2). Sizes above 2560x1440 are experimental; background 'transparent' is refused",
  },
  {
    method: "post",
    path: "/v1/images/edits",
    tag: "Gateway",
    security: "bearer",
    summary: "Edit uploaded images (multipart); the mask applies to the first image; each file at most 50 MB",
    multipart: {
      "image[]": {
        type: "string",
        format: "binary",
        description: `One to ${MAX_EDIT_IMAGES} PNG, JPEG or WebP files (also accepted as 'image'); the first is the edit base`,
      },
      mask: {
        type: "string",
        format: "binary",
        description: "Optional; same format and dimensions as the first image, with an alpha channel",
      },
      prompt: option("Required: the desired result"),
      model: option("std-image-2 (the default)"),
      size: option("auto or WIDTHxHEIGHT (multiples of 16, longest side at most 3840, at most 3:1, 655,360 to 8,294,400 pixels)"),
      quality: option("low, medium, high or auto"),
      output_format: option("png, jpeg or webp"),
      output_compression: { type: "integer", description: "0 to 100; jpeg and webp only" },
      response_format: option("b64_json or url (a data URI)"),
      moderation: option("auto or low"),
      background: option("auto or opaque"),
    },
  },
  {
    method: "get",
    path: "/api/admin/moderation",
    tag: "Operator",
    security: "operator",
    summary: "The content policy's blocked terms per moderation level",
  },
  {
    method: "post",
    path: "/api/admin/moderation",
    tag: "Operator",
    security: "operator",
    body: moderationUpdateSchema,
    summary: "Replace the blocked terms of 'auto' and/or 'low' ('low' checks its list only, 'auto' both), or reset to the defaults",
  },
];
