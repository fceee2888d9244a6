// The request schemas of /v1/chat/completions, /v1/messages and /v1/messages/count_tokens, apart from the handlers
// (lib/gateway/text.ts, lib/gateway/models.ts) so that the body workers (lib/gateway/text-request-worker.ts) load them
// without the relay and the providers.
import { z } from "zod";

const MAX_OUTPUT_CAP = 1_000_000;

const content = z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]);

// Lenient schemas: what the gateway needs is checked; everything else is passed on to the upstream.
export const chatSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
          message: "must be one of system, developer, user, assistant, tool",
        }),
        content: content.optional(),
      }),
      { message: "must be an array of messages" },
    )
    .min(1, "must hold at least one message"),
  max_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).max(MAX_OUTPUT_CAP).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().min(1).max(1, "must be 1: the gateway returns one choice").nullable().optional(),
});

const block = z.looseObject({ type: z.string({ message: "each content block needs a type" }) });
export const messagesSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  max_tokens: z
    .number({ message: "is required and must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_OUTPUT_CAP),
  messages: z
    // `system` turns inside `messages` are the vendor's mid-conversation system messages (Claude Code sends them).
    .array(
      z.looseObject({
        role: z.enum(["user", "assistant", "system"], { message: "must be user, assistant or system" }),
        content: z.union([z.string(), z.array(block)]),
      }),
      { message: "must be an array of messages" },
    )
    .min(1, "must hold at least one message"),
  system: z.union([z.string(), z.array(block)]).optional(),
  stream: z.boolean().optional(),
});

/** count_tokens takes a Messages request without max_tokens; the count reads what it knows and the rest as JSON. */
export const countSchema = z.looseObject({
  model: z.string({ message: "is required and must be a string" }).min(1, "is required"),
  messages: z
    .array(z.looseObject({ role: z.string(), content: z.unknown() }), { message: "must be an array of messages" })
    .min(1, "must hold at least one message"),
});
