// The Vercel AI SDK against the gateway, configured as its README says (README.md, "Clients"): `@ai-sdk/openai` with
// the chat model for text and tools, the image model, and the Responses model with the image tool (instructions go in
// providerOptions.openai.instructions; the gateway's Responses endpoint streams only, so streamText); `@ai-sdk/anthropic`
// for text, streams, tools and a [1m] model. Text and images come from the built-in simulator; tool calls from a fake
// vendor that calls the tools it is offered (tests/helpers/agent-upstream.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { generateImage, generateText, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import sharp from "sharp";
import type { Gateway } from "../helpers/gateway";
import { startAgentGateway, type AgentSetup } from "../helpers/agent-upstream";

let gateway: Gateway;
let key: string;
let setup: AgentSetup;

before(async () => {
  setup = await startAgentGateway({ messages: true, simulatorSettings: { responsesThinkMs: 10, responsesImageMs: 30 } });
  ({ gateway, key } = setup);
});
after(() => setup?.close());

const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe("@ai-sdk/openai", () => {
  const openai = () => createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });

  test("generateText and streamText with the chat model", async () => {
    const { text, usage } = await generateText({ model: openai().chat("std-5.5"), prompt: "Say hello" });
    assert.match(text, /^\(simulated\) /);
    assert.ok((usage.inputTokens ?? 0) > 0 && (usage.outputTokens ?? 0) > 0);
    const stream = streamText({ model: openai().chat("std-5.5"), prompt: "Stream a greeting" });
    let streamed = "";
    for await (const delta of stream.textStream) streamed += delta;
    assert.match(streamed, /^\(simulated\) /);
    assert.equal(streamed, await stream.text);
  });

  test("tool calling: the model calls the tool, the SDK runs it and sends the result back", async () => {
    const result = await generateText({
      model: openai().chat("agent-chat"),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: "What is the weather in Paris?",
    });
    assert.equal(result.steps.length, 2);
    assert.deepEqual(
      result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input]),
      [["weather", { city: "Paris" }]],
    );
    assert.match(result.text, /The tool said: sunny in Paris/);
  });

  test("generateImage with the image model", async () => {
    const { image } = await generateImage({ model: openai().image("std-image-2"), prompt: "A lighthouse at dusk", size: "1024x1024" });
    const metadata = await sharp(Buffer.from(image.base64, "base64")).metadata();
    assert.deepEqual([metadata.width, metadata.height], [1024, 1024]);
  });

  test("streamText with the Responses model, the image tool and providerOptions.openai.instructions", async () => {
    const stream = streamText({
      model: openai().responses("std-5.5"),
      prompt: "One image of a lighthouse",
      tools: { image_generation: openai().tools.imageGeneration({ size: "1024x1024", quality: "low" }) },
      providerOptions: { openai: { instructions: "Draw what is asked." } },
    });
    // The SDK reports the image once for its partial_image event (which carries the whole image, as this service's
    // clients expect) and once for output_item.done, under the same tool call id.
    const images = new Map<string, string>();
    for await (const part of stream.fullStream) {
      if (part.type === "error") assert.fail(`stream error: ${JSON.stringify(part.error)}`);
      if (part.type === "tool-result" && part.toolName === "image_generation")
        images.set(part.toolCallId, (part.output as { result: string }).result);
    }
    assert.equal(images.size, 1);
    const metadata = await sharp(Buffer.from([...images.values()][0]!, "base64")).metadata();
    assert.deepEqual([metadata.width, metadata.height], [1024, 1024]);
  });
});

describe("@ai-sdk/anthropic", () => {
  const anthropic = () => createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: key });

  test("generateText, streamText and a [1m] model", async () => {
    const { text } = await generateText({ model: anthropic()("msg-sonnet-4-6"), prompt: "Say hello", maxOutputTokens: 64 });
    assert.match(text, /^\(simulated\) /);
    const stream = streamText({ model: anthropic()("msg-haiku-4-5-20251001"), prompt: "Stream a greeting", maxOutputTokens: 64 });
    let streamed = "";
    for await (const delta of stream.textStream) streamed += delta;
    assert.match(streamed, /^\(simulated\) /);
    const long = await generateText({ model: anthropic()("msg-sonnet-4-6[1m]"), prompt: "Hello with a long context", maxOutputTokens: 32 });
    assert.match(long.text, /^\(simulated\) /);
  });

  test("tool calling through Messages", async () => {
    const result = await generateText({
      model: anthropic()("agent-messages"),
      tools: { weather },
      stopWhen: stepCountIs(3),
      prompt: "What is the weather in Paris?",
      maxOutputTokens: 128,
    });
    assert.deepEqual(
      result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input]),
      [["weather", { city: "Paris" }]],
    );
    assert.match(result.text, /The tool said: sunny in Paris/);
  });
});
