// Chat Completions to Converse (lib/dialects/converse/chat-to-converse.ts): a Chat request served by a Bedrock
// Converse upstream. Every request produced here is also checked with the fake Bedrock's own request checks
// (tests/fakes/bedrock-validate.ts), so converter and fake agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestSchema } from "@/lib/dialects/chat/wire";
import { chatRequestToConverse, converseToolId } from "@/lib/dialects/converse/chat-to-converse";
import { converseResponseToChat } from "@/lib/dialects/converse/converse-to-chat";
import type { ConverseRequest } from "@/lib/dialects/converse/wire";
import { validateConverseBody } from "../fakes/bedrock-validate.ts";
import { converseBody } from "../fakes/bedrock-wire.ts";
import { jsonResponse, openaiClient, PNG_BASE64, rejectsWith } from "../helpers/convert-fixtures";

/** Converts, and checks that the fake Bedrock would take the result. */
function convert(body: unknown, outputCap = 1000): ConverseRequest {
  const request = chatRequestToConverse(chatRequestSchema.parse(body), { outputCap });
  assert.equal(validateConverseBody(JSON.parse(JSON.stringify(request))), null);
  return request;
}

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a place",
    parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
  },
};

test("chatRequestToConverse maps a full OpenAI request; maxTokens is the output cap, exactly", () => {
  const request = convert(
    {
      model: "bedrock-sonnet",
      messages: [
        { role: "system", content: "You are a weather assistant." },
        { role: "developer", content: [{ type: "text", text: "Answer in Fahrenheit." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "What's the weather here?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: "high" } },
            { type: "image_url", image_url: { url: `data:image/jpg;base64,${PNG_BASE64}` } },
          ],
        },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
            { id: "call:2", type: "function", function: { name: "get_time", arguments: "" } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"temp": 18, "sky": "sunny"}' },
        { role: "tool", tool_call_id: "call:2", content: [{ type: "text", text: "14:05" }] },
        { role: "user", content: "Thanks! And tomorrow?" },
      ],
      max_completion_tokens: 300,
      max_tokens: 999,
      temperature: 0.7,
      top_p: 0.9,
      stop: ["\n\nHuman:", ""],
      stream: true,
      stream_options: { include_usage: true },
      user: "user-42",
      seed: 7,
      logprobs: true,
      reasoning_effort: "high",
      parallel_tool_calls: false,
      tools: [weatherTool, { type: "function", function: { name: "get_time" } }],
      tool_choice: "required",
    },
    1337,
  );

  assert.deepEqual(request, {
    messages: [
      {
        role: "user",
        content: [
          { text: "What's the weather here?" },
          { image: { format: "png", source: { bytes: PNG_BASE64 } } },
          { image: { format: "jpeg", source: { bytes: PNG_BASE64 } } },
        ],
      },
      {
        role: "assistant",
        content: [
          { text: "Checking." },
          { toolUse: { toolUseId: "call_1", name: "get_weather", input: { location: "Paris" } } },
          { toolUse: { toolUseId: "call_2", name: "get_time", input: {} } },
        ],
      },
      {
        // Consecutive tool results and the user's next words: one user turn, the results first.
        role: "user",
        content: [
          { toolResult: { toolUseId: "call_1", content: [{ text: '{"temp": 18, "sky": "sunny"}' }] } },
          { toolResult: { toolUseId: "call_2", content: [{ text: "14:05" }] } },
          { text: "Thanks! And tomorrow?" },
        ],
      },
    ],
    // The cap the gateway reserved for, not the request's own max_completion_tokens or max_tokens.
    inferenceConfig: { maxTokens: 1337, temperature: 0.7, topP: 0.9, stopSequences: ["\n\nHuman:"] },
    system: [{ text: "You are a weather assistant." }, { text: "Answer in Fahrenheit." }],
    toolConfig: {
      tools: [
        {
          toolSpec: {
            name: "get_weather",
            description: "Weather for a place",
            inputSchema: { json: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } },
          },
        },
        { toolSpec: { name: "get_time", inputSchema: { json: { type: "object", properties: {} } } } },
      ],
      toolChoice: { any: {} },
    },
  });
  // Nothing Converse does not know goes (it refuses unknown fields); the model id is in the URL, not the body.
  assert.deepEqual(Object.keys(request).sort(), ["inferenceConfig", "messages", "system", "toolConfig"]);
});

test("chatRequestToConverse merges consecutive turns of one role and drops blank text", () => {
  const request = convert({
    model: "m",
    messages: [
      { role: "system", content: "   " },
      { role: "user", content: "Hi" },
      {
        role: "user",
        content: [
          { type: "text", text: "there" },
          { type: "text", text: " \n" },
        ],
      },
      { role: "assistant", content: "Hello." },
      { role: "assistant", content: "" },
      { role: "assistant", content: [{ type: "text", text: "How can I help?" }] },
      { role: "user", content: "" },
      { role: "user", content: "Tell me a joke." },
    ],
  });
  assert.deepEqual(request.messages, [
    { role: "user", content: [{ text: "Hi" }, { text: "there" }] },
    { role: "assistant", content: [{ text: "Hello." }, { text: "How can I help?" }] },
    { role: "user", content: [{ text: "Tell me a joke." }] },
  ]);
  assert.equal(request.system, undefined);
  assert.equal(request.toolConfig, undefined);
  assert.deepEqual(request.inferenceConfig, { maxTokens: 1000 });
});

test("chatRequestToConverse maps tool_choice: auto is the default, a named function is `tool`", () => {
  const base = { model: "m", messages: [{ role: "user", content: "Weather in Paris?" }], tools: [weatherTool] };
  assert.deepEqual(convert({ ...base, tool_choice: "auto" }).toolConfig, { tools: convert(base).toolConfig!.tools });
  assert.equal(convert(base).toolConfig!.toolChoice, undefined);
  assert.deepEqual(convert({ ...base, tool_choice: { type: "function", function: { name: "get_weather" } } }).toolConfig!.toolChoice, {
    tool: { name: "get_weather" },
  });
  // Converse has no "none": the tools are left out.
  assert.equal(convert({ ...base, tool_choice: "none" }).toolConfig, undefined);
  rejectsWith(() => convert({ ...base, tool_choice: "sometimes" }), "invalid_request", "tool_choice");
  rejectsWith(() => convert({ ...base, tools: [{ type: "custom", custom: { name: "x" } }] }), "invalid_request", "tools[0].type");
});

test("chatRequestToConverse sends a toolConfig whenever the history holds tool blocks (Converse refuses them without)", () => {
  const history = [
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "" },
  ];
  // tool_choice "none" after a tool loop: the tools go, without a choice.
  const none = convert({ model: "m", messages: history, tools: [weatherTool], tool_choice: "none" });
  assert.deepEqual(none.toolConfig, { tools: convert({ model: "m", messages: history, tools: [weatherTool] }).toolConfig!.tools });
  // An empty result is sent as an empty text (fine inside a toolResult).
  assert.deepEqual(none.messages[2], { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "" }] } }] });
  // No tools declared at all: the ones the history called, with an open schema.
  assert.deepEqual(convert({ model: "m", messages: history }).toolConfig, {
    tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }],
  });
});

test("chatRequestToConverse keeps tool ids Converse takes and rewrites the others the same way on both sides", () => {
  assert.equal(converseToolId("toolu_01T1x1fJ34qAmk2tNTrN7Up6"), "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  assert.equal(converseToolId("call:2/x"), "call_2_x");
  const long = "x".repeat(65);
  assert.match(converseToolId(long), /^tooluse_[0-9a-f]{48}$/);
  assert.equal(converseToolId(long), converseToolId(long));
  assert.match(converseToolId(""), /^tooluse_[0-9a-f]{48}$/);
  const request = convert({
    model: "m",
    messages: [
      { role: "user", content: "Go" },
      { role: "assistant", content: null, tool_calls: [{ id: long, type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: long, content: "done" },
    ],
    tools: [{ type: "function", function: { name: "f" } }],
  });
  const call = request.messages[1]!.content[0] as { toolUse: { toolUseId: string } };
  const result = request.messages[2]!.content[0] as { toolResult: { toolUseId: string } };
  assert.equal(call.toolUse.toolUseId, result.toolResult.toolUseId);
});

test("chatRequestToConverse sends a json_schema response format as outputConfig", () => {
  const request = convert({
    model: "m",
    messages: [{ role: "user", content: "Give me a city." }],
    response_format: { type: "json_schema", json_schema: { name: "city", strict: true, schema: { type: "object", properties: {} } } },
  });
  assert.deepEqual(request.outputConfig, {
    textFormat: { type: "json_schema", structure: { jsonSchema: { schema: '{"type":"object","properties":{}}', name: "city" } } },
  });
  // json_object has no Converse equivalent and is not sent.
  assert.equal(
    convert({ model: "m", messages: [{ role: "user", content: "x" }], response_format: { type: "json_object" } }).outputConfig,
    undefined,
  );
});

test("chatRequestToConverse refuses what Converse cannot take, naming the field", () => {
  const base = { model: "m", messages: [{ role: "user", content: "Hi" }] };
  const convertOnly = (body: unknown) => chatRequestToConverse(chatRequestSchema.parse(body), { outputCap: 100 });
  rejectsWith(() => convertOnly({ ...base, n: 2 }), "invalid_request", "n");
  const image = (url: string) => ({ ...base, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] });
  // An http(s) image: Converse reads images only from the request, and the gateway never fetches one itself.
  assert.throws(
    () => convertOnly(image("https://example.com/sky.jpg")),
    (error: Error & { code?: string; param?: string }) =>
      error.code === "invalid_request" &&
      error.param === "messages[0].content[0].image_url.url" &&
      /does not take image URLs/.test(error.message) &&
      /base64 data URI/.test(error.message),
  );
  rejectsWith(() => convertOnly(image("data:image/bmp;base64,Qk0=")), "invalid_request", "messages[0].content[0].image_url.url");
  rejectsWith(() => convertOnly(image("file:///etc/passwd")), "invalid_request", "messages[0].content[0].image_url.url");
  rejectsWith(
    () =>
      convertOnly({
        ...base,
        messages: [
          { role: "user", content: [{ type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBERi0x" } }] },
        ],
      }),
    "invalid_request",
    "messages[0].content[0].type",
  );
  rejectsWith(
    () =>
      convertOnly({
        ...base,
        messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }],
      }),
    "invalid_request",
    "messages[0].content[0].type",
  );
  for (const args of ["{oops", "[1,2]", "7"]) {
    rejectsWith(
      () =>
        convertOnly({
          ...base,
          messages: [
            { role: "user", content: "Go" },
            { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }] },
          ],
        }),
      "invalid_request",
      "messages[1].tool_calls[0].function.arguments",
    );
  }
  rejectsWith(() => convertOnly({ ...base, messages: [{ role: "tool", content: "x" }] }), "invalid_request", "messages[0].tool_call_id");
  rejectsWith(() => convertOnly({ ...base, messages: [{ role: "user", content: " " }] }), "invalid_request", "messages");
  rejectsWith(
    () =>
      convertOnly({
        ...base,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "assistant", content: "Hello! How can I help?" },
          { role: "user", content: "Hi" },
        ],
      }),
    "invalid_request",
    "messages",
  );
  rejectsWith(
    () => convertOnly({ ...base, messages: [{ role: "function", name: "f", content: "x" }] }),
    "invalid_request",
    "messages[0].role",
  );
});

test("a tool round trip: Chat request → Converse → the fake's answer → the OpenAI SDK → the result back to Converse", async () => {
  const question = { model: "bedrock-sonnet", messages: [{ role: "user", content: "Weather in Paris?" }], tools: [weatherTool] };
  convert(question);
  const answer = converseBody({
    text: "Let me check.",
    toolCall: { id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { location: "Paris" } },
    usage: { input: 1237, output: 389 },
  });
  const { completion } = converseResponseToChat(answer, "bedrock-sonnet");
  const read = await openaiClient(() => jsonResponse(completion)).chat.completions.create({
    model: "bedrock-sonnet",
    messages: [{ role: "user", content: "Weather in Paris?" }],
  });
  const assistant = read.choices[0]!.message;
  assert.equal(read.choices[0]!.finish_reason, "tool_calls");
  const call = assistant.tool_calls![0]!;
  assert.ok(call.type === "function");

  const followUp = convert({
    ...question,
    messages: [
      ...question.messages,
      { role: "assistant", content: assistant.content, tool_calls: assistant.tool_calls },
      { role: "tool", tool_call_id: call.id, content: "18C, sunny" },
    ],
  });
  assert.deepEqual(followUp.messages.slice(1), [
    {
      role: "assistant",
      content: [
        { text: "Let me check." },
        { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { location: "Paris" } } },
      ],
    },
    { role: "user", content: [{ toolResult: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", content: [{ text: "18C, sunny" }] } }] },
  ]);
});
