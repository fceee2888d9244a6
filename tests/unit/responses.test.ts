// /v1/responses pieces that need no server: the request rules (docs/api.md §2.4, §7), the simulator's reading of a prompt
// (how many images, generate or edit, the rewritten prompts), and the stream writer (numbering, keepalives, delivery,
// response.failed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GatewayError } from "@/lib/platform/errors";
import { parseResponsesRequest, userText } from "@/lib/wire/responses-request";
import { chooseAction, requestedImageCount, revisePrompts, subjectOf } from "@/lib/providers/simulator/responses";
import { responsesStream, type ResponsesStreamEnd } from "@/lib/gateway/responses/stream";
import { ResponseBuilder, toolEcho, type ResponsesEvent } from "@/lib/wire/responses-events";
import { countResponsesInputTokens, imageFunctionTool } from "@/lib/gateway/responses/tool";
import { readSseEvents } from "@/lib/platform/sse";

const valid = () => ({
  model: "std-5.5",
  stream: true,
  instructions: "Draw.",
  input: [{ role: "user", content: [{ type: "input_text", text: "A fox" }] }],
  tools: [{ type: "image_generation" }],
});

function refused(raw: Record<string, unknown>, param: string | null, message: string | RegExp) {
  assert.throws(
    () => parseResponsesRequest(raw),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      if (typeof message === "string") assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    },
  );
}

test("the spec's rules come first, with their messages", () => {
  const { instructions: _instructions, ...noInstructions } = valid();
  refused(noInstructions, "instructions", "Instructions are required");
  refused({ ...valid(), input: "A fox" }, "input", "Input must be a list");
  refused({ ...valid(), stream: false }, "stream", /^Streaming is required/);
  refused({ ...valid(), n: 2 }, "n", /ask for several images in the prompt/);
  refused({ ...valid(), previous_response_id: "resp_1" }, "previous_response_id", /not available on this endpoint/);
  refused({ ...valid(), tools: [{ type: "image_generation", action: "edit" }] }, "tools[0].action", /^action 'edit' needs an image/);
  // n: null is not "sent".
  assert.doesNotThrow(() => parseResponsesRequest({ ...valid(), n: null }));
});

test("defaults and normalisation of the tool; only known fields are kept for an upstream", () => {
  const parsed = parseResponsesRequest({
    ...valid(),
    tools: [{ type: "image_generation", size: "1536X1024", output_format: "png", output_compression: 50, base_url: "http://evil" }],
  });
  assert.deepEqual(parsed.tool.size, { width: 1536, height: 1024, auto: false });
  assert.equal(parsed.tool.quality, "auto");
  assert.equal(parsed.tool.action, "auto");
  assert.equal(parsed.tool.outputCompression, undefined, "compression only applies to jpeg and webp");
  assert.deepEqual(parsed.tool.fields, { type: "image_generation", size: "1536x1024", output_format: "png" });
  assert.equal(toolEcho(parsed.tool).size, "1536x1024");
  const auto = parseResponsesRequest(valid());
  assert.deepEqual(auto.tool.size, { width: 1024, height: 1024, auto: true });
  assert.equal(toolEcho(auto.tool).size, "auto");
});

test("input: strings become text parts, images are collected in order, assistant turns take output_text", () => {
  const png = "data:image/png;base64,iVBORw0KGgo=";
  const parsed = parseResponsesRequest({
    ...valid(),
    input: [
      { role: "user", content: "first" },
      { role: "assistant", content: [{ type: "output_text", text: "ok" }] },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "second" },
          { type: "input_image", image_url: png },
        ],
      },
    ],
  });
  assert.deepEqual(parsed.messages[0], { role: "user", content: [{ type: "input_text", text: "first" }] });
  assert.deepEqual(parsed.messages[2]!.content[1], { type: "input_image", image: 0 });
  assert.equal(parsed.images[0]!.base64, "iVBORw0KGgo=");
  assert.equal(userText(parsed.messages), "first\nsecond");
  assert.equal(userText(parsed.messages, "last"), "second");
  refused(
    { ...valid(), input: [{ role: "assistant", content: [{ type: "input_image", image_url: png }] }] },
    "input[0].content[0].type",
    /assistant content items must be 'output_text'/,
  );
});

test("the function tool offers the actions the image tool allows; the input count covers it", () => {
  assert.deepEqual((imageFunctionTool("auto").function.parameters as any).properties.action.enum, ["generate", "edit"]);
  assert.deepEqual((imageFunctionTool("generate").function.parameters as any).properties.action.enum, ["generate"]);
  const parsed = parseResponsesRequest(valid());
  assert.ok(countResponsesInputTokens(parsed) > 100, "instructions, guidance, the message and the tool definition");
});

test("the simulator reads how many images a prompt asks for", () => {
  const cases: [string, number][] = [
    ["A fox", 1],
    ["three images of a fox", 3],
    ["Three Images of a fox", 3],
    ["3 images of a fox", 3],
    ["two pictures of a boat", 2],
    ["a couple of photos of the beach", 2],
    ["4 different images of clouds", 4],
    ["10 images of cats", 10],
    ["one image of a cat", 1],
    ["0 images", 1],
    ["a 4K image of mountains", 1],
  ];
  for (const [text, count] of cases) assert.equal(requestedImageCount(text), count, text);
});

test("the simulator decides between generate and edit", () => {
  assert.equal(chooseAction("auto", "Make it blue", true), "edit");
  assert.equal(chooseAction("auto", "Make it blue", false), "generate");
  assert.equal(chooseAction("auto", "A lighthouse", true), "generate");
  assert.equal(chooseAction("generate", "Make it blue", true), "generate");
  assert.equal(chooseAction("edit", "A lighthouse", true), "edit");
});

test("the simulator's rewritten prompts: deterministic, the subject kept, one variation per image", () => {
  assert.equal(subjectOf("Please generate three images of a red fox in the snow."), "A red fox in the snow");
  assert.equal(subjectOf("can you draw me a picture of a cat"), "A cat");
  assert.equal(subjectOf(""), "An abstract composition of shapes and colour");
  const prompts = revisePrompts("three images of a red fox", 3, "generate");
  assert.deepEqual(prompts, revisePrompts("three images of a red fox", 3, "generate"), "same prompt, same rewrite");
  assert.equal(new Set(prompts).size, 3);
  for (const prompt of prompts) assert.match(prompt, /^A red fox, /);
  assert.match(revisePrompts("make it blue", 1, "edit")[0]!, /^Edit the provided image: Make it blue\. Keep the original composition/);
});

// ------------------------------------------------------------------------------------------------- stream writer

async function collect(body: ReadableStream<Uint8Array>): Promise<ResponsesEvent[]> {
  const events: ResponsesEvent[] = [];
  for await (const event of readSseEvents(body)) {
    const data = JSON.parse(event.data);
    assert.equal(event.event, data.type, "the SSE event name is the event type");
    events.push(data);
  }
  return events;
}

function source(generate: () => AsyncGenerator<ResponsesEvent, void, undefined>) {
  return {
    events: generate(),
    usage: () => ({
      text: { inputTokens: 0, outputTokens: 0 },
      image: { textInputTokens: 0, textOutputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 },
      imagesGenerated: 0,
      imagesDelivered: 0,
      previewsDelivered: 0,
      detail: {},
    }),
  };
}

const builder = () => new ResponseBuilder({ model: "std-5.5", instructions: "x", tool: { type: "image_generation" } });
const image = { b64: "aW1hZ2U=", size: "1024x1024", quality: "low", outputFormat: "png", background: "opaque", revisedPrompt: "p" };

test("stream writer: sequence numbers, keepalives while the source is quiet, delivered images", async () => {
  const response = builder();
  let end: ResponsesStreamEnd | null = null;
  const body = responsesStream({
    source: source(async function* () {
      yield* response.start();
      const { itemId, outputIndex, events } = response.imageStart();
      yield* events;
      yield response.imageGenerating(itemId, outputIndex);
      await new Promise((resolve) => setTimeout(resolve, 130));
      yield* response.imageDone(itemId, outputIndex, image);
      yield response.completed({ inputTokens: 1, outputTokens: 1 }, { textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 1 });
    }),
    keepaliveMs: 30,
    onClose: (value) => (end = value),
  });
  const events = await collect(body);
  assert.deepEqual(
    events.map((event) => event.sequence_number),
    events.map((_, index) => index),
  );
  const keepalives = events.filter((event) => event.type === "keepalive").length;
  assert.ok(keepalives >= 3, `keepalives during 130 ms of quiet at 30 ms (${keepalives})`);
  assert.equal(events.at(-1)!.type, "response.completed");
  const closed = end as ResponsesStreamEnd | null;
  assert.ok(closed);
  assert.equal(closed.complete, true);
  assert.equal(closed.delivered.images.size, 1);
  assert.equal(closed.keepalives, keepalives);
});

test("stream writer: a source that throws ends with response.failed carrying the same response id", async () => {
  const response = builder();
  let end: ResponsesStreamEnd | null = null;
  const body = responsesStream({
    source: source(async function* () {
      yield* response.start();
      throw new GatewayError("upstream_error", "The image upstream failed (503)");
    }),
    keepaliveMs: 10_000,
    onClose: (value) => (end = value),
  });
  const events = await collect(body);
  assert.deepEqual(
    events.map((event) => event.type),
    ["response.created", "response.in_progress", "response.failed"],
  );
  const failed = events[2]!.response as { id: string; status: string; error: { code: string; message: string } };
  assert.equal(failed.id, response.id);
  assert.equal(failed.status, "failed");
  assert.deepEqual(failed.error, { code: "upstream_error", message: "The image upstream failed (503)" });
  assert.equal((end as ResponsesStreamEnd | null)?.complete, false);
});

test("stream writer: an image still unread when the reader cancels is not counted as delivered", async () => {
  const response = builder();
  let end: ResponsesStreamEnd | null = null;
  const body = responsesStream({
    source: source(async function* () {
      yield* response.start();
      const { itemId, outputIndex, events } = response.imageStart();
      yield* events;
      yield response.imageGenerating(itemId, outputIndex);
      yield* response.imageDone(itemId, outputIndex, image);
      await new Promise(() => undefined); // never finishes
    }),
    keepaliveMs: 10_000,
    onClose: (value) => (end = value),
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value } = await reader.read();
    if (decoder.decode(value).includes("partial_image_b64")) break;
  }
  // The partial image was read but the next read never came: the writer cannot know it reached anyone.
  await reader.cancel();
  let closed = end as ResponsesStreamEnd | null;
  assert.equal(closed?.clientGone, true);
  assert.equal(closed?.delivered.images.size, 0);

  // The same, but the next read came: now it counts.
  const again = builder();
  end = null;
  const second = responsesStream({
    source: source(async function* () {
      yield* again.start();
      const { itemId, outputIndex, events } = again.imageStart();
      yield* events;
      yield* again.imageDone(itemId, outputIndex, image);
      await new Promise(() => undefined);
    }),
    keepaliveMs: 10_000,
    onClose: (value) => (end = value),
  });
  const secondReader = second.getReader();
  for (;;) {
    const { value } = await secondReader.read();
    if (decoder.decode(value).includes("partial_image_b64")) break;
  }
  await secondReader.read(); // output_item.done: the partial image before it was written
  await secondReader.cancel();
  closed = end as ResponsesStreamEnd | null;
  assert.equal(closed?.delivered.images.size, 1);
});

test("stream writer: a source silent past the idle timeout fails the response instead of sending keepalives forever", async () => {
  const response = builder();
  let end: ResponsesStreamEnd | null = null;
  const started = performance.now();
  const body = responsesStream({
    source: source(async function* () {
      yield* response.start();
      await new Promise(() => undefined); // a hung upstream
    }),
    keepaliveMs: 20,
    idleTimeoutMs: 200,
    onClose: (value) => (end = value),
  });
  const events = await collect(body);
  assert.ok(performance.now() - started < 1_000);
  assert.equal(events.at(-1)!.type, "response.failed");
  assert.match((events.at(-1)!.response as { error: { message: string } }).error.message, /^The upstream sent nothing for 0.2 s$/);
  assert.ok(events.filter((event) => event.type === "keepalive").length >= 3);
  assert.equal((end as ResponsesStreamEnd | null)?.complete, false);
});

test("the OpenAPI description accepts what the handler accepts", async () => {
  const { responsesRequestDocumentation } = await import("@/lib/gateway/responses/schemas");
  const request = {
    ...valid(),
    tools: [
      { type: "image_generation", size: "1024x1536", quality: "low", output_format: "webp", output_compression: 60, action: "generate" },
    ],
  };
  assert.doesNotThrow(() => parseResponsesRequest(request));
  assert.equal(responsesRequestDocumentation.safeParse(request).success, true);
  assert.equal(responsesRequestDocumentation.safeParse({ ...request, input: "a string" }).success, false);
  assert.equal(responsesRequestDocumentation.safeParse({ ...request, stream: false }).success, false);
});
