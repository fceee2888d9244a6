// Chat Completions to Gemini (lib/dialects/gemini/chat-to-gemini.ts): a Chat request served by a Gemini upstream.
// Each converted request is also checked the way the Gemini fake checks it (tests/fakes/gemini-wire.ts, proven with
// Google's @google/genai SDK), so that converter and fake agree on what Google accepts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestToGemini, imageTypeOfUrl, SKIP_THOUGHT_SIGNATURE } from "@/lib/dialects/gemini/chat-to-gemini";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { checkGenerateRequest } from "../fakes/gemini-wire.ts";
import { rejectsWith, PNG_BASE64 } from "../helpers/convert-fixtures";

function convert(body: Record<string, unknown>, outputCap = 4096) {
  return chatRequestToGemini(chatRequestSchema.parse({ model: "gem-2.5-flash", ...body }), { outputCap });
}

/** Gemini API and Vertex both accept it (Vertex wants a role on every turn). */
function acceptedByGoogle(request: unknown): void {
  assert.equal(checkGenerateRequest(request, false), null);
  assert.equal(checkGenerateRequest(request, true), null);
}

test("chatRequestToGemini maps a full chat request with a tool round trip", () => {
  const request = convert(
    {
      messages: [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "text", text: "Use metric units." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather and time in Paris? And what is in these?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: "image_url", image_url: { url: "https://example.com/photos/eiffel.webp?size=large" } },
          ],
        },
        {
          role: "assistant",
          content: "Checking both.",
          tool_calls: [
            { id: "call_w1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_t1", type: "function", function: { name: "get_time", arguments: "" } },
          ],
        },
        { role: "tool", tool_call_id: "call_w1", content: '{"celsius":18,"sky":"clear"}' },
        { role: "tool", tool_call_id: "call_t1", content: [{ type: "text", text: "14:05" }] },
        { role: "user", content: "Thanks. Warmer tomorrow?" },
      ],
      max_tokens: 999, // the gateway's cap wins: it is what was reserved
      temperature: 0.3,
      top_p: 0.9,
      stop: "###",
      user: "u-1",
      seed: 7,
      presence_penalty: 0.5,
      parallel_tool_calls: false,
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather",
            strict: true,
            parameters: {
              $schema: "https://json-schema.org/draft/2020-12/schema",
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
        { type: "function", function: { name: "get_time" } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      response_format: {
        type: "json_schema",
        json_schema: { name: "forecast", strict: true, schema: { type: "object", properties: { celsius: { type: "number" } } } },
      },
      reasoning_effort: "medium",
    },
    2311,
  );

  assert.deepEqual(request, {
    contents: [
      {
        role: "user",
        parts: [
          { text: "Weather and time in Paris? And what is in these?" },
          { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
          { fileData: { mimeType: "image/webp", fileUri: "https://example.com/photos/eiffel.webp?size=large" } },
        ],
      },
      {
        role: "model",
        parts: [
          { text: "Checking both." },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { celsius: 18, sky: "clear" } } },
          { functionResponse: { name: "get_time", response: { output: "14:05" } } },
        ],
      },
      { role: "user", parts: [{ text: "Thanks. Warmer tomorrow?" }] },
    ],
    generationConfig: {
      maxOutputTokens: 2311,
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ["###"],
      responseMimeType: "application/json",
      responseJsonSchema: { type: "object", properties: { celsius: { type: "number" } } },
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    },
    systemInstruction: { parts: [{ text: "You are terse." }, { text: "Use metric units." }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Current weather",
            parametersJsonSchema: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
          { name: "get_time" },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
  });
  acceptedByGoogle(request);
});

test("chatRequestToGemini: maxOutputTokens is the output cap, exactly, whatever the request asked", () => {
  for (const [cap, asked] of [
    [1, undefined],
    [733, 64000],
    [65536, 12],
  ] as const) {
    const request = convert({ messages: [{ role: "user", content: "Hi" }], max_completion_tokens: asked }, cap);
    assert.equal(request.generationConfig.maxOutputTokens, cap);
    assert.deepEqual(Object.keys(request.generationConfig), ["maxOutputTokens"]);
  }
});

test("chatRequestToGemini: a plain request carries only contents and generationConfig", () => {
  const request = convert({ messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_usage: true } });
  assert.deepEqual(request, { contents: [{ role: "user", parts: [{ text: "Hi" }] }], generationConfig: { maxOutputTokens: 4096 } });
});

test("chatRequestToGemini: tool_choice none, auto and required; tool_choice without tools is dropped", () => {
  const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }];
  const mode = (tool_choice: unknown) => convert({ messages: [{ role: "user", content: "x" }], tools, tool_choice }).toolConfig;
  assert.deepEqual(mode("none"), { functionCallingConfig: { mode: "NONE" } });
  assert.deepEqual(mode("auto"), { functionCallingConfig: { mode: "AUTO" } });
  assert.deepEqual(mode("required"), { functionCallingConfig: { mode: "ANY" } });
  assert.equal(mode(undefined), undefined);
  assert.equal(convert({ messages: [{ role: "user", content: "x" }], tool_choice: "required" }).toolConfig, undefined);
  rejectsWith(() => mode({ type: "allowed_tools" }), "invalid_request", "tool_choice");
  rejectsWith(
    () => convert({ messages: [{ role: "user", content: "x" }], tools: [{ type: "custom", custom: { name: "g" } }] }),
    "invalid_request",
    "tools[0].type",
  );
});

test("chatRequestToGemini: stop lists, JSON mode and every reasoning_effort", () => {
  const base = { messages: [{ role: "user", content: "x" }] };
  assert.deepEqual(convert({ ...base, stop: ["END", "", "STOP"] }).generationConfig.stopSequences, ["END", "STOP"]);
  assert.equal(convert({ ...base, stop: [] }).generationConfig.stopSequences, undefined);
  assert.deepEqual(convert({ ...base, response_format: { type: "json_object" } }).generationConfig, {
    maxOutputTokens: 4096,
    responseMimeType: "application/json",
  });
  assert.equal(convert({ ...base, response_format: { type: "text" } }).generationConfig.responseMimeType, undefined);
  rejectsWith(() => convert({ ...base, response_format: { type: "grammar" } }), "invalid_request", "response_format.type");
  const thinking = (reasoning_effort: unknown) => convert({ ...base, reasoning_effort }).generationConfig.thinkingConfig;
  assert.deepEqual(thinking("none"), { thinkingBudget: 0 });
  assert.deepEqual(thinking("minimal"), { thinkingBudget: 1024, includeThoughts: true });
  assert.deepEqual(thinking("low"), { thinkingBudget: 1024, includeThoughts: true });
  assert.deepEqual(thinking("high"), { thinkingBudget: 24576, includeThoughts: true });
  assert.equal(thinking(null), undefined);
  rejectsWith(() => thinking("extreme"), "invalid_request", "reasoning_effort");
});

test("chatRequestToGemini: files and image URLs", () => {
  const request = convert({
    messages: [
      {
        role: "user",
        content: [
          { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0xLjQK" } },
          { type: "image_url", image_url: { url: "data:image/jpg;base64,/9j/4AAQ" } },
          { type: "text", text: "" },
        ],
      },
    ],
  });
  assert.deepEqual(request.contents, [
    {
      role: "user",
      parts: [
        { inlineData: { mimeType: "application/pdf", data: "JVBERi0xLjQK" } },
        { inlineData: { mimeType: "image/jpeg", data: "/9j/4AAQ" } },
      ],
    },
  ]);
  assert.equal(imageTypeOfUrl("https://cdn.example/x/photo.PNG#top"), "image/png");
  assert.equal(imageTypeOfUrl("https://cdn.example/render?id=42"), "image/jpeg");
  assert.equal(imageTypeOfUrl("http://example.com/a.jpeg"), "image/jpeg");
  const user = (content: unknown) => convert({ messages: [{ role: "user", content }] });
  rejectsWith(() => user([{ type: "file", file: { file_id: "file-abc" } }]), "invalid_request", "messages[0].content[0].file");
  rejectsWith(
    () => user([{ type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==" } }]),
    "invalid_request",
    "messages[0].content[0].file",
  );
  rejectsWith(
    () => user([{ type: "image_url", image_url: { url: "data:text/plain;base64,aGk=" } }]),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () => user([{ type: "image_url", image_url: { url: "file:///etc/passwd" } }]),
    "invalid_request",
    "messages[0].content[0].image_url.url",
  );
  rejectsWith(
    () => user([{ type: "input_audio", input_audio: { data: "AA==", format: "wav" } }]),
    "invalid_request",
    "messages[0].content[0].type",
  );
});

test("chatRequestToGemini: a client's mistakes are 400s naming the field", () => {
  rejectsWith(() => convert({ messages: [{ role: "user", content: "x" }], n: 2 }), "invalid_request", "n");
  rejectsWith(
    () =>
      convert({
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{city:" } }] },
        ],
      }),
    "invalid_request",
    "messages[1].tool_calls[0].function.arguments",
  );
  rejectsWith(
    () =>
      convert({
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "[1]" } }] },
        ],
      }),
    "invalid_request",
    "messages[1].tool_calls[0].function.arguments",
  );
  rejectsWith(
    () =>
      convert({
        messages: [
          { role: "user", content: "x" },
          { role: "tool", tool_call_id: "nowhere", content: "1" },
        ],
      }),
    "invalid_request",
    "messages[1].tool_call_id",
  );
  rejectsWith(
    () =>
      convert({
        messages: [
          { role: "user", content: "x" },
          { role: "tool", content: "1" },
        ],
      }),
    "invalid_request",
    "messages[1].tool_call_id",
  );
  rejectsWith(() => convert({ messages: [{ role: "system", content: "Only rules." }] }), "invalid_request", "messages");
  rejectsWith(() => convert({ messages: [{ role: "function", name: "f", content: "1" }] }), "invalid_request", "messages[0].role");
});

test("chatRequestToGemini: turns of one role merge, empty ones vanish, function responses keep their own turn", () => {
  const request = convert({
    messages: [
      { role: "user", content: "a" },
      { role: "user", content: [{ type: "text", text: "b" }] },
      { role: "assistant", content: "" },
      { role: "assistant", content: "c", tool_calls: [{ id: "k", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "k", content: "[1,2]" },
      { role: "user", content: "d" },
      { role: "assistant", content: "e" },
      { role: "assistant", content: [{ type: "text", text: "f" }] },
    ],
  });
  assert.deepEqual(request.contents, [
    { role: "user", parts: [{ text: "a" }, { text: "b" }] },
    { role: "model", parts: [{ text: "c" }, { functionCall: { name: "f", args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "[1,2]" } } }] },
    { role: "user", parts: [{ text: "d" }] },
    { role: "model", parts: [{ text: "e" }, { text: "f" }] },
  ]);
  acceptedByGoogle(request);
});
