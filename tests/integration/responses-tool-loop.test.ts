// Responses API: the tool loop the gateway runs against recording fake Chat Completions, Messages and image upstreams.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { imageOutputTokens } from "@/lib/money/image-tokens";
import { createUserWithKey } from "../helpers/gateway";
import { anthropicMessage, chatCompletion, sendJson, type Received } from "../helpers/fake-upstream";
import {
  gateway,
  key,
  fake,
  channel,
  ledgerFor,
  account,
  client,
  type Event,
  ask,
  run,
  expectedOrder,
  assertNumbered,
  decode,
  textCost,
  imageCost,
  pngDataUri,
  toolCallCompletion,
  answerImage,
} from "../helpers/responses-setup";

describe("tool loop run by the gateway", () => {
  test("openai channel without a Responses API: the model's tool calls go to the image channel; both upstreams recorded", async () => {
    const chat = await fake((request, response) => {
      const last = request.body.messages.at(-1);
      if (last.role === "tool")
        sendJson(
          response,
          200,
          chatCompletion("Here are your two harbours.", "real-text", { prompt_tokens: 1_100, completion_tokens: 12 }),
        );
      else
        sendJson(
          response,
          200,
          toolCallCompletion([
            { prompt: "A quiet harbour at dawn, fishing boats, soft mist" },
            { prompt: "A busy harbour at noon, cranes and container ships" },
          ]),
        );
    });
    const images = await fake((request, response) => answerImage(request, response));
    const textChannel = await channel({
      name: "chat only",
      type: "openai",
      baseUrl: `${chat.url}/v1`,
      apiKey: "chat-secret",
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "real-text" },
      priority: 50,
    });
    const imageChannel = await channel({
      name: "images",
      type: "openai",
      baseUrl: `${images.url}/v1`,
      apiKey: "image-secret",
      models: ["std-image-2"],
      modelMapping: { "std-image-2": "real-image" },
      priority: 50,
    });
    try {
      const { events, requestId } = await run(
        ask(
          "Two pictures of a harbour",
          { size: "1536x1024", quality: "medium", output_format: "webp", output_compression: 70 },
          { instructions: "Be a harbour painter." },
        ),
      );
      assert.deepEqual(
        events.map((event) => event.type),
        expectedOrder(2, true),
      );
      assertNumbered(events);

      // What the text model received.
      assert.equal(chat.received.length, 2);
      const [first, second] = chat.received as [Received, Received];
      assert.equal(first.path, "/v1/chat/completions");
      assert.equal(first.headers.authorization, "Bearer chat-secret");
      assert.equal(JSON.stringify(first.headers).includes(key), false, "the caller's key never goes upstream");
      assert.equal(first.body.model, "real-text");
      assert.equal(first.body.stream, undefined);
      assert.equal(first.body.max_completion_tokens, 1024, "each call carries the cap the reservation counted");
      assert.deepEqual(first.body.messages[0], { role: "system", content: "Be a harbour painter." });
      assert.equal(first.body.messages[1].role, "system");
      assert.deepEqual(first.body.messages[2], { role: "user", content: [{ type: "text", text: "Two pictures of a harbour" }] });
      assert.equal(first.body.tools.length, 1);
      assert.equal(first.body.tools[0].function.name, "generate_image");
      assert.deepEqual(first.body.tools[0].function.parameters.properties.action.enum, ["generate", "edit"]);
      assert.deepEqual(first.body.tools[0].function.parameters.required, ["prompt", "action"]);
      const assistant = second.body.messages.at(-3);
      assert.equal(assistant.role, "assistant");
      assert.deepEqual(
        assistant.tool_calls.map((call: any) => call.id),
        ["call_1", "call_2"],
      );
      const results = second.body.messages.slice(-2);
      assert.deepEqual(
        results.map((message: any) => [message.role, message.tool_call_id]),
        [
          ["tool", "call_1"],
          ["tool", "call_2"],
        ],
      );
      assert.match(results[0].content, /^Image 1 was generated \(1536x1024, webp\)/);

      // What the image model received.
      assert.equal(images.received.length, 2);
      assert.deepEqual(
        images.received.map((request) => request.path),
        ["/v1/images/generations", "/v1/images/generations"],
      );
      assert.equal(images.received[0]!.headers.authorization, "Bearer image-secret");
      assert.deepEqual(images.received[0]!.body, {
        model: "real-image",
        prompt: "A quiet harbour at dawn, fishing boats, soft mist",
        size: "1536x1024",
        quality: "medium",
        output_format: "webp",
        output_compression: 70,
      });
      assert.equal(images.received[1]!.body.prompt, "A busy harbour at noon, cranes and container ships");

      // What the client saw.
      const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
      for (const partial of partials)
        assert.deepEqual(await decode(partial.partial_image_b64), { format: "webp", width: 1536, height: 1024 });
      const done = events
        .filter((event) => event.type === "response.output_item.done" && event.item.type === "image_generation_call")
        .map((event) => event.item);
      assert.deepEqual(
        done.map((item) => item.revised_prompt),
        ["A quiet harbour at dawn, fishing boats, soft mist", "A busy harbour at noon, cranes and container ships"],
      );
      assert.deepEqual(
        done.map((item) => [item.size, item.quality, item.output_format]),
        [
          ["1536x1024", "medium", "webp"],
          ["1536x1024", "medium", "webp"],
        ],
      );
      const text = events.find((event) => event.type === "response.output_text.done")!;
      assert.equal(text.text, "Here are your two harbours.");
      const completed = events.at(-1)!.response;
      assert.deepEqual([completed.usage.input_tokens, completed.usage.output_tokens], [900 + 1_100, 60 + 12]);
      assert.equal(completed.tool_usage.image_gen.output_tokens, 2 * 272);
      assert.equal(completed.tool_usage.image_gen.input_tokens, 2 * 20);
      assert.equal(completed.output.length, 3);

      const row = await ledgerFor(requestId);
      assert.equal(row.channelName, "chat only");
      assert.equal(row.status, "success");
      assert.equal(row.detail.path, "tool_loop");
      assert.equal(row.detail.rounds, 2);
      const [textPart, imagePart] = row.detail.parts;
      assert.deepEqual([textPart.textInputTokens, textPart.textOutputTokens], [2_000, 72]);
      assert.deepEqual([imagePart.textInputTokens, imagePart.imageOutputTokens], [40, 544]);
      assert.equal(row.cost, Math.ceil(textCost(2_000, 72) - 1e-9) + Math.ceil(imageCost(imagePart) - 1e-9));
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
      await gateway.admin("DELETE", `/api/admin/channels/${imageChannel}`);
    }
  });

  test("anthropic channel: tool_use blocks drive the images, tool_result blocks go back; an edit goes to the image channel", async () => {
    const received: Received[] = [];
    const upstream = await fake((request, response) => {
      received.push(request);
      const last = request.body.messages.at(-1);
      const answered = Array.isArray(last.content) && last.content.some((block: any) => block.type === "tool_result");
      if (answered)
        return sendJson(
          response,
          200,
          anthropicMessage("Done: the photo is now a night scene.", "real-claude", { input_tokens: 1_500, output_tokens: 15 }),
        );
      sendJson(response, 200, {
        id: "msg_tools",
        type: "message",
        role: "assistant",
        model: "real-claude",
        content: [
          {
            type: "tool_use",
            id: "toolu_01",
            name: "generate_image",
            input: { prompt: "The same street photographed at night, wet asphalt, neon signs", action: "edit" },
          },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1_400, output_tokens: 48 },
      });
    });
    const textChannel = await channel({
      name: "claude for std",
      type: "anthropic",
      baseUrl: upstream.url,
      apiKey: "claude-secret",
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "real-claude" },
      priority: 50,
    });
    try {
      const photo = await pngDataUri(800, 1200, "#556677");
      const { events, requestId } = await run(
        ask("Turn this street into a night scene", { quality: "low", action: "edit" }, { images: [photo] }),
      );
      assert.deepEqual(
        events.map((event) => event.type),
        expectedOrder(1, true),
      );
      const [first, second] = received as [Received, Received];
      assert.equal(first.path, "/v1/messages");
      assert.equal(first.headers["x-api-key"], "claude-secret");
      assert.equal(first.body.model, "real-claude");
      assert.match(first.body.system, /^You are an illustrator/);
      assert.equal(first.body.tools[0].name, "generate_image");
      assert.deepEqual(first.body.tools[0].input_schema.properties.action.enum, ["edit"], "action edit is the only choice offered");
      const userBlocks = first.body.messages[0].content;
      assert.equal(userBlocks[1].type, "image");
      assert.equal(userBlocks[1].source.media_type, "image/png");
      assert.equal(second.body.messages.at(-2).content[0].type, "tool_use");
      assert.equal(second.body.messages.at(-1).content[0].type, "tool_result");
      assert.equal(second.body.messages.at(-1).content[0].tool_use_id, "toolu_01");

      // The image came from the std-image-2 channel (the simulator here), edited from the input: portrait stays portrait.
      const item = events.find((event) => event.type === "response.output_item.done" && event.item.type === "image_generation_call")!.item;
      assert.equal(item.revised_prompt, "The same street photographed at night, wet asphalt, neon signs");
      assert.equal(item.size, "1024x1536");
      assert.deepEqual(await decode(item.result), { format: "png", width: 1024, height: 1536 });
      const completed = events.at(-1)!.response;
      assert.deepEqual([completed.usage.input_tokens, completed.usage.output_tokens], [2_900, 63]);
      const row = await ledgerFor(requestId);
      assert.equal(row.detail.parts[1].imageOutputTokens, imageOutputTokens(1024, 1536, "low"));
      assert.ok(row.detail.parts[1].imageInputTokens > 0, "the edited photo is billed as image input");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("a text upstream that refuses the request before the stream: its 400 in the OpenAI dialect, nothing charged", async () => {
    const refusing = await fake((_request, response) =>
      sendJson(response, 400, { error: { message: "tools are not supported by this model" } }),
    );
    const textChannel = await channel({
      name: "refusing",
      type: "openai",
      baseUrl: `${refusing.url}/v1`,
      apiKey: "x",
      models: ["std-5.5"],
      priority: 50,
    });
    try {
      const user = await createUserWithKey(gateway, { balance: 5_000_000 });
      const before = await account(user.userId);
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify(ask("A lighthouse")),
      });
      assert.equal(response.status, 400);
      assert.match((await response.json()).error.message, /tools are not supported by this model/);
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.cost, 0);
      assert.equal(row.status, "error");
      assert.deepEqual(await account(user.userId), before);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("a client that disconnects after the first of three images: the image upstream is aborted and one image is charged", async () => {
    const chat = await fake((_request, response) =>
      sendJson(
        response,
        200,
        toolCallCompletion([{ prompt: "Lighthouse one" }, { prompt: "Lighthouse two" }, { prompt: "Lighthouse three" }]),
      ),
    );
    let imageRequests = 0;
    const images = await fake(async (request, response) => {
      imageRequests++;
      // The first image is quick, the others take long enough for the client to leave.
      if (imageRequests > 1) await new Promise((resolve) => setTimeout(resolve, 5_000));
      if (!response.destroyed) await answerImage(request, response, { text: 10, output: 196 });
    });
    const textChannel = await channel({
      name: "chat (disconnect)",
      type: "openai",
      baseUrl: `${chat.url}/v1`,
      apiKey: "a",
      models: ["std-5.5"],
      priority: 50,
    });
    const imageChannel = await channel({
      name: "images (disconnect)",
      type: "openai",
      baseUrl: `${images.url}/v1`,
      apiKey: "b",
      models: ["std-image-2"],
      priority: 50,
    });
    try {
      const { data: stream, response } = await client()
        .responses.create(ask("Three images of a lighthouse", { quality: "low" }) as never)
        .withResponse();
      for await (const event of stream as unknown as AsyncIterable<Event>) {
        if (event.type !== "response.image_generation_call.partial_image") continue;
        // Leave while the second image is being generated upstream.
        const deadline = Date.now() + 5_000;
        while (images.received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(images.received.length, 2, "the second image was requested");
      assert.equal(images.aborted, 1, "and its request aborted when the client left");
      assert.equal(chat.received.length, 1, "no further chat round");
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.imageOutputTokens, 196, "one image charged");
      assert.deepEqual([row.detail.parts[0].textInputTokens, row.detail.parts[0].textOutputTokens], [900, 60], "the chat round that ran");
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
      await gateway.admin("DELETE", `/api/admin/channels/${imageChannel}`);
    }
  });
});
