// /v1/responses beyond the image tool (lib/gateway/responses/text.ts): text and function tools, through the official
// openai SDK's responses.stream() and the AI SDK's Responses model, billed like chat; the spec's refusals still hold.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import type { Gateway } from "../helpers/gateway";
import { startAgentGateway, type AgentSetup } from "../helpers/agent-upstream";

let gateway: Gateway;
let key: string;
let setup: AgentSetup;

before(async () => {
  setup = await startAgentGateway();
  ({ gateway, key } = setup);
});
after(() => setup?.close());

const openai = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

describe("text Responses", () => {
  test("a plain text response: output_text events, usage, billed like chat", async () => {
    const stream = openai().responses.stream({
      model: "std-5.5",
      instructions: "Answer briefly.",
      input: [{ role: "user", content: "Hello there" }],
      max_output_tokens: 200,
    });
    let deltas = "";
    stream.on("response.output_text.delta", (event) => (deltas += event.delta));
    const final = await stream.finalResponse();
    assert.match(final.output_text, /^\(simulated\) /);
    assert.equal(deltas, final.output_text);
    assert.ok(final.usage!.input_tokens > 0 && final.usage!.output_tokens > 0);
    const rows = (await gateway.admin("GET", "/api/admin/usage?limit=5")).data as {
      endpoint: string;
      model: string;
      textInputTokens: number;
      textOutputTokens: number;
      cost: number;
      reserved: number;
    }[];
    const row = rows.find((entry) => entry.endpoint === "/v1/responses")!;
    assert.equal(row.model, "std-5.5");
    assert.deepEqual([row.textInputTokens, row.textOutputTokens], [final.usage!.input_tokens, final.usage!.output_tokens]);
    assert.equal(row.cost, Math.ceil(row.textInputTokens * 1.25 + row.textOutputTokens * 10 - 1e-9));
    assert.ok(row.reserved >= 200 * 10, "the cap was reserved for");
    assert.equal(setup.agent.received.length, 0);
  });

  test("function tools both ways: a function_call item, then its output sent back as function_call_output", async () => {
    const tools = [
      {
        type: "function" as const,
        name: "get_weather",
        description: "The weather in a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        strict: false,
      },
    ];
    const first = await openai()
      .responses.stream({ model: "agent-chat", instructions: "Use tools.", input: [{ role: "user", content: "Weather in Paris?" }], tools })
      .finalResponse();
    const call = first.output.find((item) => item.type === "function_call")!;
    assert.ok(call && call.type === "function_call");
    assert.equal(call.name, "get_weather");
    assert.deepEqual(JSON.parse(call.arguments), { city: "Paris" });
    const second = await openai()
      .responses.stream({
        model: "agent-chat",
        instructions: "Use tools.",
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: "function_call_output", call_id: call.call_id, output: "sunny" },
        ],
        tools,
      })
      .finalResponse();
    assert.equal(second.output_text, "The tool said: sunny");
    const sent = setup.agent.received.at(-1)!.body;
    assert.deepEqual(
      sent.messages.slice(-2).map((message: { role: string }) => message.role),
      ["assistant", "tool"],
    );
    assert.equal(sent.messages[0].content, "Use tools.", "the instructions lead as the system message");
  });

  test("the AI SDK's Responses model with a function tool", async () => {
    const provider = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
    const stream = streamText({
      model: provider.responses("agent-chat"),
      prompt: "Weather in Paris?",
      tools: {
        get_weather: tool({
          description: "The weather",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
      providerOptions: { openai: { instructions: "Use tools." } },
    });
    assert.match(await stream.text, /The tool said: .*sunny in Paris/);
  });

  test("the spec's rules still hold without the image tool", async () => {
    const post = async (body: Record<string, unknown>) => {
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, message: (await response.json()).error.message as string };
    };
    const base = { model: "std-5.5", instructions: "x", input: [{ role: "user", content: "hi" }], stream: true };
    assert.deepEqual(await post({ ...base, instructions: undefined }), { status: 400, message: "Instructions are required" });
    assert.deepEqual(await post({ ...base, input: "hi" }), { status: 400, message: "Input must be a list" });
    assert.equal((await post({ ...base, stream: undefined })).status, 400);
    assert.equal((await post({ ...base, tools: [{ type: "web_search" }] })).status, 400);
  });
});
