// LangChain's ChatOpenAI against the gateway (README.md, "Clients"): invoke and stream on the built-in simulator;
// bindTools and withStructuredOutput on a fake vendor that calls the tools it is offered
// (tests/helpers/agent-upstream.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatOpenAI } from "@langchain/openai";
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

const chat = (model: string) => new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });

describe("@langchain/openai ChatOpenAI", () => {
  test("invoke and stream", async () => {
    const answer = await chat("std-5.5").invoke("Say hello");
    assert.match(String(answer.content), /^\(simulated\) /);
    assert.ok((answer.usage_metadata?.input_tokens ?? 0) > 0);
    let streamed = "";
    for await (const chunk of await chat("std-5.5").stream("Stream a greeting")) streamed += String(chunk.content);
    assert.match(streamed, /^\(simulated\) /);
  });

  test("bindTools: the model's tool call comes back parsed", async () => {
    const model = chat("agent-chat").bindTools([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "The weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);
    const answer = await model.invoke("What is the weather in Paris?");
    assert.deepEqual(
      answer.tool_calls?.map((call) => [call.name, call.args]),
      [["get_weather", { city: "Paris" }]],
    );
  });

  test("withStructuredOutput, by JSON schema and by function calling", async () => {
    const schema = z.object({ city: z.string(), days: z.number() });
    const bySchema = await chat("agent-chat")
      .withStructuredOutput(schema, { name: "forecast", method: "jsonSchema" })
      .invoke("Forecast for Paris");
    assert.deepEqual(bySchema, { city: "Paris", days: 3 });
    const byTool = await chat("agent-chat")
      .withStructuredOutput(schema, { name: "forecast", method: "functionCalling" })
      .invoke("Forecast for Paris");
    assert.deepEqual(byTool, { city: "Paris", days: 3 });
  });
});
