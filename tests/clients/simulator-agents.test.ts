// The offline simulator behaves enough like a model for agents and structured output to be tried without an upstream
// (docs/simulator.md): forced or named tool calls with arguments valid against the tool's schema (then text
// once the result is back), JSON schema response formats answered with a valid instance, and each model's context
// window enforced with the vendors' refusals, which cost nothing. Driven with the official SDKs.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

let gateway: Gateway;
let key: string;

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 5_000_000_000, quota: 5_000_000_000 }));
});
after(() => stopAllGateways());

const openai = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });

const weatherSchema = {
  type: "object",
  properties: {
    city: { type: "string" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    days: { type: "integer", minimum: 1, maximum: 7 },
    detail: { type: "object", properties: { hourly: { type: "boolean" } }, required: ["hourly"] },
  },
  required: ["city", "unit", "days", "detail"],
  additionalProperties: false,
};
const weather = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: weatherSchema },
};

function assertWeatherArgs(args: Record<string, unknown>) {
  assert.equal(typeof args.city, "string");
  assert.ok(["celsius", "fahrenheit"].includes(args.unit as string));
  assert.ok(Number.isInteger(args.days) && (args.days as number) >= 1 && (args.days as number) <= 7);
  assert.equal(typeof (args.detail as { hourly: unknown }).hourly, "boolean");
}

describe("tool calls", () => {
  test("chat: a forced tool is called with schema-valid arguments, streamed and not; the result back gives text", async () => {
    const forced = await openai().chat.completions.create({
      model: "std-5.5",
      max_tokens: 200,
      messages: [{ role: "user", content: "How is it outside?" }],
      tools: [weather],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const choice = forced.choices[0]!;
    assert.equal(choice.finish_reason, "tool_calls");
    const call = choice.message.tool_calls![0]!;
    assert.equal(call.type === "function" && call.function.name, "get_weather");
    assertWeatherArgs(JSON.parse((call as { function: { arguments: string } }).function.arguments));
    assert.ok(forced.usage!.completion_tokens > 0);

    const streamed = await openai()
      .chat.completions.stream({
        model: "std-5.5",
        max_tokens: 200,
        messages: [{ role: "user", content: "How is it outside?" }],
        tools: [weather],
        tool_choice: "required",
      })
      .finalChatCompletion();
    const streamedCall = streamed.choices[0]!.message.tool_calls![0] as { id: string; function: { name: string; arguments: string } };
    assert.equal(streamedCall.function.name, "get_weather");
    assertWeatherArgs(JSON.parse(streamedCall.function.arguments));

    const answered = await openai().chat.completions.create({
      model: "std-5.5",
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: "user", content: "How is it outside?" },
        { role: "assistant", content: null, tool_calls: [{ id: streamedCall.id, type: "function", function: streamedCall.function }] },
        { role: "tool", tool_call_id: streamedCall.id, content: '{"temperature": 21}' },
      ],
    });
    assert.equal(answered.choices[0]!.finish_reason, "stop");
    assert.match(answered.choices[0]!.message.content!, /^\(simulated\)/);
  });

  test("chat: a prompt that names a tool gets the call without tool_choice; one that does not gets text", async () => {
    const named = await openai().chat.completions.create({
      model: "std-5.5",
      max_tokens: 200,
      messages: [{ role: "user", content: "Use the get_weather tool for Oslo" }],
      tools: [weather],
    });
    assert.equal(named.choices[0]!.finish_reason, "tool_calls");
    const plain = await openai().chat.completions.create({
      model: "std-5.5",
      max_tokens: 200,
      messages: [{ role: "user", content: "Tell me a story" }],
      tools: [weather],
    });
    assert.equal(plain.choices[0]!.finish_reason, "stop");
  });

  test("messages: tool_choice tool and any give a tool_use block, streamed and not", async () => {
    const tools = [{ name: "get_weather", description: "Weather for a city", input_schema: weatherSchema as Anthropic.Tool.InputSchema }];
    const message = await anthropic().messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 300,
      messages: [{ role: "user", content: "Weather please" }],
      tools,
      tool_choice: { type: "tool", name: "get_weather" },
    });
    assert.equal(message.stop_reason, "tool_use");
    const block = message.content.find((entry) => entry.type === "tool_use") as Anthropic.ToolUseBlock;
    assert.match(block.id, /^toolu_/);
    assertWeatherArgs(block.input as Record<string, unknown>);
    const streamed = await anthropic()
      .messages.stream({
        model: "msg-sonnet-4-6",
        max_tokens: 300,
        messages: [{ role: "user", content: "Weather please" }],
        tools,
        tool_choice: { type: "any" },
      })
      .finalMessage();
    const streamedBlock = streamed.content.find((entry) => entry.type === "tool_use") as Anthropic.ToolUseBlock;
    assertWeatherArgs(streamedBlock.input as Record<string, unknown>);
    const answered = await anthropic().messages.create({
      model: "msg-sonnet-4-6",
      max_tokens: 300,
      tools,
      messages: [
        { role: "user", content: "Weather please" },
        { role: "assistant", content: [streamedBlock] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: streamedBlock.id, content: "21 degrees" }] },
      ],
    });
    assert.equal(answered.stop_reason, "end_turn");
  });
});

describe("structured output", () => {
  test("chat.completions.parse with a zod schema gets a parsed, valid object", async () => {
    const Event = z.object({
      name: z.string(),
      attendees: z.array(z.string()),
      day: z.enum(["monday", "friday"]),
      seats: z.number().int(),
    });
    const completion = await openai().chat.completions.parse({
      model: "std-5.5",
      max_tokens: 300,
      messages: [{ role: "user", content: "Plan an event" }],
      response_format: zodResponseFormat(Event, "event"),
    });
    const parsed = completion.choices[0]!.message.parsed!;
    assert.deepEqual(Event.parse(parsed), parsed);
    assert.ok(parsed.attendees.length >= 1);
    const loose = await openai().chat.completions.create({
      model: "std-5.5",
      max_tokens: 300,
      messages: [{ role: "user", content: "Answer as JSON" }],
      response_format: { type: "json_object" },
    });
    assert.equal(typeof JSON.parse(loose.choices[0]!.message.content!), "object");
  });
});

describe("context windows", () => {
  // ~260K tokens of varied words: over the 200K window of msg-haiku, under the 1M of the [1m] models.
  const words = ["harbour", "lantern", "granite", "meadow", "quartz", "thunder", "violet", "saddle", "copper", "orchard"];
  const long = Array.from({ length: 260_000 }, (_, index) => `${words[index % words.length]}${index % 97}`).join(" ");

  test("beyond the window: the vendors' own refusals (400, context_length_exceeded / prompt is too long), nothing charged", async () => {
    const balance = async () =>
      (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find(
        (user: { id: string; balance: number }) => user.balance > 4_000_000_000,
      ).balance;
    const before = await balance();
    await assert.rejects(
      anthropic().messages.create({ model: "msg-haiku-4-5-20251001", max_tokens: 100, messages: [{ role: "user", content: long }] }),
      (error: unknown) =>
        error instanceof Anthropic.BadRequestError && /prompt is too long: \d+ tokens > 200000 maximum/.test(error.message),
    );
    await assert.rejects(
      openai().chat.completions.create({ model: "msg-haiku-4-5-20251001", max_tokens: 100, messages: [{ role: "user", content: long }] }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError &&
        error.code === "context_length_exceeded" &&
        /maximum context length is 200000 tokens/.test(error.message),
    );
    assert.equal(await balance(), before, "refused requests cost nothing");
  });

  test("the [1m] variant takes the same request", async () => {
    const message = await anthropic().messages.create({
      model: "msg-sonnet-4-6[1m]",
      max_tokens: 50,
      messages: [{ role: "user", content: long }],
    });
    assert.equal(message.type, "message");
    assert.ok(message.usage.input_tokens > 200_000);
  });
});
