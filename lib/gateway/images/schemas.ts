// What the images endpoints take and answer, for /openapi.json and the answer check (docs/routes.md): the multipart body
// of /v1/images/edits as the document describes it; the JSON body of /v1/images/generations is the very schema the
// handler validates with (lib/wire/image-request.ts).
import { z } from "zod";
import type { MultipartField } from "@/lib/platform/http/route-definition";
import { MAX_EDIT_IMAGES } from "@/lib/wire/image-request";

const option = (description: string) => ({ type: "string", description });

/** The multipart body of /v1/images/edits, field by field (zod has no file type). */
export const imageEditsMultipart: Record<string, MultipartField> = {
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
};

export const imagesAnswer = z.looseObject({
  created: z.number().int(),
  data: z.array(z.looseObject({ b64_json: z.string().optional(), url: z.string().optional() })),
});
