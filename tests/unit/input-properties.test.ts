// Property-based tests of every request schema and of what runs on a validated body before anything is reserved or
// sent: for random JSON, shaped like each endpoint's request or not, the parsers either accept
// or throw a GatewayError with a 4xx status, never anything else (which would be a 500). For Chat Completions and
// Messages also the token counting (runs before the reservation) and the cross-protocol converters (run inside an
// attempt: a throw there that is not a GatewayError would be the gateway's bug, not the client's).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { GatewayError } from "@/lib/platform/errors";
import { parseWith, readJsonObject } from "@/lib/platform/http/json";
import { chatSchema, messagesSchema } from "@/lib/gateway/text/schemas";
import { fromFormFields, parseImageOptions } from "@/lib/wire/image-request";
import { parseResponsesRequest } from "@/lib/wire/responses-request";
import { countChatRequestInputTokens, countMessagesInputTokens } from "@/lib/money/tokens";
import { chatRequestFromMessages } from "@/lib/dialects/convert/messages-to-chat";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { chatRequestToMessages } from "@/lib/dialects/convert/chat-to-messages";
import { messagesRequestSchema } from "@/lib/dialects/messages/wire";
import * as adminUsers from "@/lib/admin-api/users";
import * as adminKeys from "@/lib/admin-api/keys";
import { groupSchema } from "@/lib/admin-api/groups";
import { createChannelSchema, updateChannelSchema } from "@/lib/admin-api/channels";
import { priceSchema } from "@/lib/admin-api/prices";
import { codesSchema } from "@/lib/admin-api/codes";
import { settingsSchema } from "@/lib/admin-api/settings";
import { moderationUpdateSchema } from "@/lib/moderation/policy";
import { createKeySchema as userKeySchema } from "@/lib/account-api/keys";
import { passwordSchema } from "@/lib/account-api/profile";
import { signupSchema } from "@/lib/account-api/signup";
import { topupSchema } from "@/lib/account-api/topup";
import { usageQuery } from "@/lib/account-api/usage";
import { codeSchema } from "@/lib/account-api/two-factor";
import { resetRequestSchema, resetSchema } from "@/lib/account-api/reset";

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "",
    " ",
    "std-5.5",
    "msg-sonnet-4-6",
    "std-image-2",
    "auto",
    "1024x1024",
    "png",
    "low",
    "data:image/png;base64,AAAA",
    "http://127.0.0.1/x.png",
    "' OR 1=1--",
    "\u0000",
    "💥",
    "-1",
    "1e309",
  ),
  fc.integer(),
  fc.double(),
  fc.constant(null),
);
/** Mostly the plausible values, sometimes anything at all. */
const mostly = <T>(plausible: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: anyValue });
const optional = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });

const chatPart = optional({
  type: mostly(fc.constantFrom("text", "image_url", "input_audio", "file", "refusal")),
  text: mostly(fc.string()),
  image_url: mostly(
    optional({
      url: mostly(
        fc.constantFrom(
          "data:image/png;base64,iVBORw0KGgo=",
          "data:image/gif;base64,R0lGOD==",
          "data:,x",
          "https://example.com/a.png",
          "ftp://x",
        ),
      ),
      detail: anyValue,
    }),
  ),
  input_audio: anyValue,
  file: mostly(
    optional({
      file_data: mostly(fc.constantFrom("data:application/pdf;base64,JVBER", "data:text/plain;base64,aGk=")),
      filename: anyValue,
    }),
  ),
});
const toolCall = optional({
  id: mostly(fc.string()),
  type: mostly(fc.constant("function")),
  function: mostly(optional({ name: mostly(fc.string()), arguments: mostly(fc.constantFrom("{}", '{"a":1}', "[1]", "not json", "null")) })),
});
const chatMessage = optional({
  role: mostly(fc.constantFrom("system", "developer", "user", "assistant", "tool", "function")),
  content: mostly(fc.oneof(fc.string(), fc.array(chatPart, { maxLength: 3 }), fc.constant(null))),
  tool_calls: mostly(fc.array(toolCall, { maxLength: 2 })),
  tool_call_id: anyValue,
  name: anyValue,
});
const chatBody = fc.oneof(
  anyValue,
  optional({
    model: mostly(fc.constantFrom("std-5.5", "msg-sonnet-4-6")),
    messages: mostly(fc.array(chatMessage, { maxLength: 4 })),
    max_tokens: mostly(fc.integer({ min: -5, max: 2_000_000 })),
    max_completion_tokens: anyValue,
    stream: mostly(fc.boolean()),
    stream_options: anyValue,
    n: mostly(fc.integer({ min: 0, max: 3 })),
    tools: mostly(
      fc.array(
        optional({
          type: mostly(fc.constant("function")),
          function: mostly(optional({ name: mostly(fc.string()), parameters: anyValue, description: anyValue })),
        }),
        { maxLength: 2 },
      ),
    ),
    tool_choice: mostly(
      fc.oneof(
        fc.constantFrom("none", "auto", "required"),
        optional({ type: mostly(fc.constant("function")), function: mostly(optional({ name: fc.string() })) }),
      ),
    ),
    stop: anyValue,
    temperature: anyValue,
    response_format: anyValue,
  }),
);

const block = optional({
  type: mostly(fc.constantFrom("text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking")),
  text: mostly(fc.string()),
  source: mostly(
    optional({
      type: mostly(fc.constantFrom("base64", "url", "text")),
      media_type: mostly(fc.constantFrom("image/png", "image/gif", "application/pdf", "text/plain")),
      data: mostly(fc.string()),
      url: anyValue,
    }),
  ),
  id: anyValue,
  name: anyValue,
  input: anyValue,
  tool_use_id: anyValue,
  content: mostly(
    fc.oneof(fc.string(), fc.array(optional({ type: mostly(fc.constant("text")), text: mostly(fc.string()) }), { maxLength: 2 })),
  ),
  is_error: anyValue,
  thinking: anyValue,
});
const messagesBody = fc.oneof(
  anyValue,
  optional({
    model: mostly(fc.constantFrom("msg-sonnet-4-6", "std-5.5")),
    max_tokens: mostly(fc.integer({ min: -5, max: 2_000_000 })),
    messages: mostly(
      fc.array(
        optional({
          role: mostly(fc.constantFrom("user", "assistant")),
          content: mostly(fc.oneof(fc.string(), fc.array(block, { maxLength: 3 }))),
        }),
        { maxLength: 4 },
      ),
    ),
    system: mostly(fc.oneof(fc.string(), fc.array(block, { maxLength: 2 }))),
    stream: mostly(fc.boolean()),
    tools: mostly(
      fc.array(optional({ name: mostly(fc.string()), description: anyValue, input_schema: anyValue, type: anyValue }), { maxLength: 2 }),
    ),
    tool_choice: mostly(optional({ type: mostly(fc.constantFrom("auto", "any", "none", "tool")), name: anyValue })),
    stop_sequences: anyValue,
    temperature: anyValue,
    thinking: anyValue,
    metadata: anyValue,
  }),
);

const imageBody = fc.oneof(
  anyValue,
  optional({
    model: mostly(fc.constant("std-image-2")),
    prompt: mostly(fc.string()),
    size: mostly(
      fc.oneof(
        fc.constantFrom(
          "auto",
          "1024x1024",
          "3840x2160",
          "16x16",
          "1024x1025",
          "9999x9999",
          "0x0",
          "-1024x-1024",
          "1024X1024",
          " 1024x1024",
        ),
        fc.tuple(fc.integer({ min: -10, max: 5000 }), fc.integer({ min: -10, max: 5000 })).map(([w, h]) => `${w}x${h}`),
      ),
    ),
    quality: mostly(fc.constantFrom("low", "medium", "high", "auto", "hd")),
    output_format: mostly(fc.constantFrom("png", "jpeg", "webp", "gif")),
    output_compression: mostly(fc.integer({ min: -5, max: 105 })),
    response_format: mostly(fc.constantFrom("b64_json", "url", "file")),
    moderation: mostly(fc.constantFrom("auto", "low", "off")),
    background: mostly(fc.constantFrom("auto", "opaque", "transparent")),
    input_fidelity: anyValue,
    n: anyValue,
    user: anyValue,
  }),
);

const responsesBody = fc.oneof(
  anyValue,
  optional({
    model: mostly(fc.constant("std-5.5")),
    stream: mostly(fc.constant(true)),
    instructions: mostly(fc.string()),
    input: mostly(
      fc.array(
        optional({
          type: anyValue,
          role: mostly(fc.constantFrom("user", "assistant", "system", "developer", "tool")),
          content: mostly(
            fc.oneof(
              fc.string(),
              fc.array(
                optional({
                  type: mostly(fc.constantFrom("input_text", "output_text", "input_image", "input_file")),
                  text: mostly(fc.string()),
                  image_url: mostly(
                    fc.constantFrom(
                      "data:image/png;base64,iVBORw0KGgo=",
                      "data:image/png;base64,@@",
                      "data:text/plain;base64,aGk=",
                      "https://x/y.png",
                      "data:image/png,raw",
                    ),
                  ),
                  file_id: anyValue,
                  detail: anyValue,
                }),
                { maxLength: 3 },
              ),
            ),
          ),
        }),
        { maxLength: 3 },
      ),
    ),
    tools: mostly(
      fc.array(
        optional({
          type: mostly(fc.constant("image_generation")),
          quality: anyValue,
          size: mostly(fc.constantFrom("auto", "1024x1024", "1x1")),
          action: mostly(fc.constantFrom("auto", "generate", "edit", "paint")),
          output_format: anyValue,
          output_compression: anyValue,
          moderation: anyValue,
          background: anyValue,
          partial_images: anyValue,
          input_image_mask: anyValue,
          model: anyValue,
        }),
        { maxLength: 2 },
      ),
    ),
    n: anyValue,
    previous_response_id: anyValue,
  }),
);

/** Runs `work`; a throw must be a GatewayError with a 4xx status. */
function onlyClientErrors(work: () => unknown): void {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof GatewayError, `threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    assert.ok(error.status >= 400 && error.status < 500, `status ${error.status}: ${error.message}`);
  }
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };

test("property: Chat Completions: schema, input token count and the conversion to Messages throw only client errors", () => {
  fc.assert(
    fc.property(chatBody, (value) => {
      onlyClientErrors(() => {
        const body = parseWith(chatSchema, value);
        assert.ok(Number.isFinite(countChatRequestInputTokens(body as never)), "the reservation's input count is a number");
        // As the anthropic adapter does: the converter's own schema first.
        chatRequestToMessages(parseWith(chatRequestSchema, body), "upstream-model");
      });
    }),
    { numRuns: RUNS },
  );
});

test("property: Messages: schema, input token count and the conversion to Chat Completions throw only client errors", () => {
  fc.assert(
    fc.property(messagesBody, (value) => {
      onlyClientErrors(() => {
        const body = parseWith(messagesSchema, value);
        assert.ok(Number.isFinite(countMessagesInputTokens(body as never)), "the reservation's input count is a number");
        chatRequestFromMessages(parseWith(messagesRequestSchema, body), "upstream-model");
      });
    }),
    { numRuns: RUNS },
  );
});

test("property: image options, from JSON and from form fields, throw only client errors", () => {
  fc.assert(
    fc.property(imageBody, (value) => {
      onlyClientErrors(() => parseImageOptions(asObject(value)));
      const fields = Object.fromEntries(
        Object.entries(asObject(value)).map(([name, field]) => [name, typeof field === "string" ? field : (JSON.stringify(field) ?? "")]),
      );
      onlyClientErrors(() => parseImageOptions(fromFormFields(fields)));
    }),
    { numRuns: RUNS },
  );
});

test("property: the Responses request throws only client errors", () => {
  fc.assert(
    fc.property(responsesBody, (value) => {
      onlyClientErrors(() => parseResponsesRequest(asObject(value)));
    }),
    { numRuns: RUNS },
  );
});

test("property: every account and operator schema throws only client errors", () => {
  const schemas = {
    "admin users": adminUsers.createUserSchema,
    "admin user patch": adminUsers.updateUserSchema,
    "admin keys": adminKeys.createKeySchema,
    "admin key patch": adminKeys.updateKeySchema,
    "admin groups": groupSchema,
    "admin channels": createChannelSchema,
    "admin channel patch": updateChannelSchema,
    "admin prices": priceSchema,
    "admin codes": codesSchema,
    "admin settings": settingsSchema,
    "admin moderation": moderationUpdateSchema,
    "user signup": signupSchema,
    "user keys": userKeySchema,
    "user usage query": usageQuery,
    "user topup": topupSchema,
    "user password": passwordSchema,
    "user 2fa code": codeSchema,
    "user reset request": resetRequestSchema,
    "user reset": resetSchema,
  };
  const fieldNames = [
    "email",
    "password",
    "role",
    "quota",
    "status",
    "balanceDelta",
    "note",
    "userId",
    "name",
    "group",
    "unlimited",
    "expiresAt",
    "rateLimitPerMinute",
    "models",
    "type",
    "baseUrl",
    "apiKey",
    "modelMapping",
    "settings",
    "priority",
    "weight",
    "model",
    "textInput",
    "textOutput",
    "count",
    "batch",
    "signupEnabled",
    "userGroups",
    "auto",
    "low",
    "reset",
    "limit",
    "offset",
    "from",
    "to",
    "kind",
    "keyId",
    "key",
    "current",
    "next",
    "code",
    "token",
  ];
  const body = fc.oneof(anyValue, fc.dictionary(fc.constantFrom(...fieldNames), anyValue, { maxKeys: 6 }));
  for (const [name, schema] of Object.entries(schemas)) {
    fc.assert(
      fc.property(body, (value) => onlyClientErrors(() => parseWith(schema as never, value))),
      { numRuns: Math.ceil(RUNS / 4) },
    );
    void name;
  }
});

test("property: request bodies of any bytes are a JSON object or a client error", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({ unit: "binary" }),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.uint8Array().map((bytes) => Buffer.from(bytes).toString("latin1")),
      ),
      async (text) => {
        try {
          const value = await readJsonObject(new Request("http://gateway/x", { method: "POST", body: text }));
          assert.ok(typeof value === "object" && value !== null && !Array.isArray(value));
        } catch (error) {
          assert.ok(error instanceof GatewayError && error.status === 400, String(error));
        }
      },
    ),
    { numRuns: RUNS },
  );
});
