// Gemini to Chat Completions, for a Gemini client (lib/dialects/gemini/gemini-to-chat-request.ts): a
// GenerateContentRequest sent to /v1beta as the Chat request it is served as. Each converted request is read back by
// the gateway's Chat schema and converted on as a channel would (to Messages, and to Gemini again, checked the way
// the Gemini fake checks it, tests/fakes/gemini-wire.ts), so that the hub carries what the client said.
import { test } from "node:test";
import assert from "node:assert/strict";
import { geminiRequestToChat, googleSchemaToJsonSchema } from "@/lib/dialects/gemini/gemini-to-chat-request";
import { geminiEndpointRequestSchema } from "@/lib/dialects/gemini/wire";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { chatRequestToGemini } from "@/lib/dialects/gemini/chat-to-gemini";
import { chatRequestToMessages } from "@/lib/dialects/convert/chat-to-messages";
import { checkGenerateRequest } from "../fakes/gemini-wire.ts";
import { PNG_BASE64, rejectsWith } from "../helpers/convert-fixtures";

function convert(body: Record<string, unknown>) {
  return geminiRequestToChat(geminiEndpointRequestSchema.parse(body), "std-5.5");
}

test("geminiRequestToChat maps a full request with a function-calling round trip", () => {
  const chat = convert({
    systemInstruction: { role: "user", parts: [{ text: "You are terse." }, { text: "Use metric units." }] },
    contents: [
      {
        role: "user",
        parts: [
          { text: "Weather and time in Paris? And what is in these?" },
          { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
          { fileData: { mimeType: "image/webp", fileUri: "https://example.com/eiffel.webp" } },
          { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
        ],
      },
      {
        role: "model",
        parts: [
          { text: "Let me think.", thought: true },
          { text: "Checking both." },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
          { functionCall: { id: "t-1", name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          // By id, then by name, in any order; a text part of the same turn follows the tool messages.
          { functionResponse: { id: "t-1", name: "get_time", response: { output: "14:05" } } },
          { functionResponse: { name: "get_weather", response: { celsius: 18, sky: "clear" } } },
          { text: "Thanks." },
        ],
      },
      { parts: [{ text: "Warmer tomorrow?" }] },
    ],
    tools: [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Current weather",
            parameters: {
              type: "OBJECT",
              properties: {
                city: { type: "STRING", example: "Paris" },
                days: { type: "INTEGER", nullable: true },
                tags: { type: "ARRAY", items: { type: "STRING" }, minItems: "1" },
              },
              required: ["city"],
              propertyOrdering: ["city", "days", "tags"],
            },
          },
          { name: "get_time", parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } } } },
          { name: "ping" },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
    generationConfig: {
      maxOutputTokens: 321,
      temperature: 0.3,
      topP: 0.9,
      topK: 40,
      stopSequences: ["###", ""],
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      seed: 7,
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT", properties: { celsius: { type: "NUMBER" } } },
      thinkingConfig: { thinkingBudget: 4096, includeThoughts: true },
    },
    safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
  });

  assert.deepEqual(chat, {
    model: "std-5.5",
    messages: [
      { role: "system", content: "You are terse.\nUse metric units." },
      {
        role: "user",
        content: [
          { type: "text", text: "Weather and time in Paris? And what is in these?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          { type: "image_url", image_url: { url: "https://example.com/eiffel.webp" } },
          { type: "file", file: { filename: "file.pdf", file_data: "data:application/pdf;base64,JVBERi0=" } },
        ],
      },
      {
        role: "assistant",
        content: "Checking both.",
        tool_calls: [
          { id: "call_1_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "t-1", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "t-1", content: "14:05" },
      { role: "tool", tool_call_id: "call_1_2", content: '{"celsius":18,"sky":"clear"}' },
      { role: "user", content: "Thanks." },
      { role: "user", content: "Warmer tomorrow?" },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather",
          parameters: {
            type: "object",
            properties: {
              city: { type: "string", examples: ["Paris"] },
              days: { type: ["integer", "null"] },
              tags: { type: "array", items: { type: "string" }, minItems: 1 },
            },
            required: ["city"],
          },
        },
      },
      { type: "function", function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } } },
      { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
    ],
    tool_choice: { type: "function", function: { name: "get_weather" } },
    max_completion_tokens: 321,
    temperature: 0.3,
    top_p: 0.9,
    presence_penalty: 0.5,
    frequency_penalty: 0.25,
    seed: 7,
    stop: ["###"],
    response_format: {
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { celsius: { type: "number" } } } },
    },
    reasoning_effort: "medium",
  });

  // Read by the gateway's Chat schema and served on: as Messages, and as Gemini again (accepted as Google accepts).
  const parsed = chatRequestSchema.parse(chat);
  const messages = chatRequestToMessages(parsed, "claude");
  assert.equal(messages.max_tokens, 321);
  // The tool results lead the user turn that follows the calls, as Anthropic wants them.
  assert.deepEqual(
    messages.messages.map((message) => [message.role, (message.content as { type: string }[]).map((block) => block.type).join(",")]),
    [
      ["user", "text,image,image,document"],
      ["assistant", "text,tool_use,tool_use"],
      ["user", "tool_result,tool_result,text,text"],
    ],
  );
  const gemini = chatRequestToGemini(parsed, { outputCap: 321 });
  assert.equal(checkGenerateRequest(gemini, true), null);
  assert.deepEqual(gemini.contents[2], {
    role: "user",
    parts: [
      { functionResponse: { name: "get_time", response: { output: "14:05" } } },
      { functionResponse: { name: "get_weather", response: { celsius: 18, sky: "clear" } } },
    ],
  });
});

test("geminiRequestToChat: plain settings, a single text part as a string, and what Chat has no place for dropped", () => {
  assert.deepEqual(convert({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }), {
    model: "std-5.5",
    messages: [{ role: "user", content: "Hi" }],
  });
  const chat = convert({
    contents: [{ parts: [{ text: "Hi" }] }],
    tools: [{ functionDeclarations: [{ name: "f" }] }],
    toolConfig: { functionCallingConfig: { mode: "NONE" } },
    generationConfig: { responseMimeType: "application/json", thinkingConfig: { thinkingBudget: -1 } },
  });
  assert.equal(chat.tool_choice, "none");
  assert.deepEqual(chat.response_format, { type: "json_object" });
  assert.equal(chat.reasoning_effort, undefined, "a budget of -1 (the model decides) says nothing Chat can carry");
  assert.equal(chat.max_completion_tokens, undefined, "no cap from the client: the gateway sends the model's default");
  // A responseJsonSchema is taken as it is; a model turn of only calls has null content.
  const withSchema = convert({
    contents: [
      { parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ functionCall: { name: "f" } }] },
      { role: "function", parts: [{ functionResponse: { name: "f", response: { ok: true } } }] },
    ],
    generationConfig: { responseJsonSchema: { type: "object", additionalProperties: false } },
  });
  assert.deepEqual(withSchema.response_format, {
    type: "json_schema",
    json_schema: { name: "response", schema: { type: "object", additionalProperties: false } },
  });
  assert.deepEqual(withSchema.messages.slice(1), [
    { role: "assistant", content: null, tool_calls: [{ id: "call_1_0", type: "function", function: { name: "f", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "call_1_0", content: '{"ok":true}' },
  ]);
  for (const [mode, choice] of [
    ["AUTO", "auto"],
    ["VALIDATED", "auto"],
    ["ANY", "required"],
  ] as const) {
    const converted = convert({
      contents: [{ parts: [{ text: "Hi" }] }],
      tools: [{ functionDeclarations: [{ name: "f" }, { name: "g" }] }],
      toolConfig: { functionCallingConfig: { mode } },
    });
    assert.equal(converted.tool_choice, choice, mode);
  }
});

test("geminiRequestToChat: a turn of thoughts alone is left out; a response whose id names no call is matched by name", () => {
  const chat = convert({
    contents: [
      { parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "Pondering.", thought: true }] },
      { parts: [{ text: "Well?" }] },
      { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }] },
      { parts: [{ functionResponse: { id: "made-up", name: "f", response: { output: "done" } } }] },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: "user", content: "Hi" },
    { role: "user", content: "Well?" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_3_0", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
    { role: "tool", tool_call_id: "call_3_0", content: "done" },
  ]);
});

test("geminiRequestToChat: thinkingConfig as reasoning_effort", () => {
  const effort = (thinkingConfig: Record<string, unknown>) =>
    convert({ contents: [{ parts: [{ text: "Hi" }] }], generationConfig: { thinkingConfig } }).reasoning_effort;
  assert.equal(effort({ thinkingBudget: 0 }), "none");
  assert.equal(effort({ thinkingBudget: 512 }), "low");
  assert.equal(effort({ thinkingBudget: 1024 }), "low");
  assert.equal(effort({ thinkingBudget: 8192 }), "medium");
  assert.equal(effort({ thinkingBudget: 24576 }), "high");
  assert.equal(effort({ includeThoughts: true }), undefined);
  assert.equal(effort({ thinkingLevel: "HIGH" }), "high");
  assert.equal(effort({ thinkingLevel: "minimal" }), "minimal");
});

test("geminiRequestToChat refuses what it cannot carry, naming the field", () => {
  const hi = [{ parts: [{ text: "Hi" }] }];
  rejectsWith(() => convert({ contents: hi, cachedContent: "cachedContents/abc" }), "invalid_request", "cachedContent");
  rejectsWith(
    () => convert({ contents: hi, generationConfig: { candidateCount: 2 } }),
    "invalid_request",
    "generationConfig.candidateCount",
  );
  rejectsWith(
    () => convert({ contents: hi, generationConfig: { responseModalities: ["TEXT", "IMAGE"] } }),
    "invalid_request",
    "generationConfig.responseModalities",
  );
  rejectsWith(
    () => convert({ contents: hi, generationConfig: { responseMimeType: "text/x.enum" } }),
    "invalid_request",
    "generationConfig.responseMimeType",
  );
  rejectsWith(
    () => convert({ contents: hi, generationConfig: { thinkingConfig: { thinkingLevel: "MAX" } } }),
    "invalid_request",
    "generationConfig.thinkingConfig.thinkingLevel",
  );
  rejectsWith(() => convert({ contents: hi, tools: [{ googleSearch: {} }] }), "invalid_request", "tools[0]");
  rejectsWith(
    () =>
      convert({
        contents: hi,
        tools: [{ functionDeclarations: [{ name: "f" }] }],
        toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } },
      }),
    "invalid_request",
    "toolConfig.functionCallingConfig.mode",
  );
  rejectsWith(() => convert({ contents: [{ parts: [{ executableCode: { code: "1" } }] }] }), "invalid_request", "contents[0].parts[0]");
  rejectsWith(() => convert({ contents: [{ role: "system", parts: [{ text: "x" }] }] }), "invalid_request", "contents[0].role");
  rejectsWith(() => convert({ contents: [{ parts: [{ functionCall: { name: "f" } }] }] }), "invalid_request", "contents[0].parts[0]");
  rejectsWith(
    () => convert({ contents: [{ parts: [{ functionResponse: { name: "f", response: {} } }] }] }),
    "invalid_request",
    "contents[0].parts[0].functionResponse",
  );
  rejectsWith(
    () => convert({ contents: [{ parts: [{ fileData: { mimeType: "application/pdf", fileUri: "https://example.com/a.pdf" } }] }] }),
    "invalid_request",
    "contents[0].parts[0].fileData",
  );
  rejectsWith(
    () => convert({ contents: [{ role: "model", parts: [{ inlineData: { mimeType: "image/png", data: PNG_BASE64 } }] }] }),
    "invalid_request",
    "contents[0].parts[0]",
  );
  rejectsWith(
    () => convert({ contents: hi, systemInstruction: { parts: [{ inlineData: { mimeType: "image/png", data: "x" } }] } }),
    "invalid_request",
    "systemInstruction.parts[0]",
  );
  // The schema: contents are required, each with parts.
  assert.equal(geminiEndpointRequestSchema.safeParse({}).success, false);
  assert.equal(geminiEndpointRequestSchema.safeParse({ contents: [{ role: "user", parts: [] }] }).success, false);
});

test("googleSchemaToJsonSchema: Google's Schema as JSON Schema", () => {
  assert.deepEqual(
    googleSchemaToJsonSchema({
      type: "OBJECT",
      nullable: true,
      properties: {
        choice: {
          anyOf: [
            { type: "STRING", enum: ["a", "b"], format: "enum" },
            { type: "NUMBER", minimum: 0 },
          ],
        },
      },
      maxProperties: "4",
    }),
    {
      type: ["object", "null"],
      properties: {
        choice: {
          anyOf: [
            { type: "string", enum: ["a", "b"], format: "enum" },
            { type: "number", minimum: 0 },
          ],
        },
      },
      maxProperties: 4,
    },
  );
  assert.deepEqual(googleSchemaToJsonSchema({ type: "TYPE_UNSPECIFIED", description: "anything" }), { description: "anything" });
});
