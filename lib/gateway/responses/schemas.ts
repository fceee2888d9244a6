// /v1/responses in /openapi.json (declared in ./routes.ts). The tool is described by the very schema the handler
// validates it with; the rest of the request is checked by hand in responses-request.ts (the spec fixes some of its
// messages), so this schema states those rules for readers and the tests keep both in step.
import { z } from "zod";
import { TEXT_MODEL } from "@/lib/catalog/models";
import { imageToolSchema, MAX_INPUT_IMAGES } from "@/lib/wire/responses-request";

const part = z.union([
  z.object({ type: z.literal("input_text"), text: z.string() }),
  z.object({
    type: z.literal("input_image"),
    image_url: z.string().describe("A base64 data URI of a PNG, JPEG or WebP image (data:image/png;base64,...); links are refused"),
    detail: z.enum(["low", "high", "auto"]).optional(),
  }),
  z.object({ type: z.literal("output_text"), text: z.string() }).describe("In assistant messages"),
]);

export const responsesRequestDocumentation = z.object({
  model: z.literal(TEXT_MODEL),
  stream: z.literal(true).describe("Required: the answer is always a server-sent event stream"),
  instructions: z.string().min(1).describe("Required"),
  input: z
    .array(
      z.object({
        type: z.literal("message").optional(),
        role: z.enum(["user", "assistant", "system", "developer"]),
        content: z.union([z.string(), z.array(part)]),
      }),
    )
    .min(1)
    .describe(`Must be a list (a plain string is refused); at most ${MAX_INPUT_IMAGES} input images`),
  tools: z.array(imageToolSchema).length(1),
});

/** /v1/responses always streams (the request must say `stream: true`); this is the `response` object of its events. */
export const responseObjectAnswer = z.looseObject({ id: z.string(), object: z.literal("response"), status: z.string() });
