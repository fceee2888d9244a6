// Responses API with the image generation tool, built-in simulator, through the official openai client: exact event
// order for one and three images, keepalives under a slow upstream, partial images that decode to the requested size
// and format, clients that disconnect.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { imageOutputTokens } from "@/lib/money/image-tokens";
import { countTextTokens } from "@/lib/money/tokens";
import {
  FAST,
  simulator,
  ledgerFor,
  client,
  type Event,
  ask,
  run,
  expectedOrder,
  withoutKeepalives,
  assertNumbered,
  decode,
  textCost,
  imageCost,
  pngDataUri,
} from "../helpers/responses-setup";

describe("built-in simulator through the official client", () => {
  test("one image: exact event order, the image decodes to the requested size and format, two-part ledger row", async () => {
    const { events, requestId } = await run(
      ask("A lighthouse at dusk", { size: "1024x1536", quality: "low", output_format: "jpeg", output_compression: 40 }),
    );
    assert.deepEqual(
      events.map((event) => event.type),
      expectedOrder(1),
    );
    assertNumbered(events);

    const created = events[0]!.response;
    assert.equal(created.object, "response");
    assert.equal(created.status, "in_progress");
    assert.equal(created.model, "std-5.5");
    assert.match(created.id, /^resp_/);
    assert.equal(created.tools[0].type, "image_generation");
    assert.equal(created.tools[0].size, "1024x1536");

    const added = events[2]!;
    assert.deepEqual(Object.keys(added.item).sort(), ["id", "status", "type"]);
    assert.equal(added.item.type, "image_generation_call");
    assert.equal(added.item.status, "in_progress");
    assert.match(added.item.id, /^ig_/);
    for (const event of events.slice(3, 7)) {
      assert.equal(event.item_id ?? event.item.id, added.item.id);
      assert.equal(event.output_index, 0);
    }

    const partial = events[5]!;
    assert.equal(partial.partial_image_index, 0);
    assert.equal(partial.size, "1024x1536");
    assert.equal(partial.quality, "low");
    assert.equal(partial.output_format, "jpeg");
    assert.equal(partial.background, "opaque");
    assert.deepEqual(await decode(partial.partial_image_b64), { format: "jpeg", width: 1024, height: 1536 });

    const done = events[6]!.item;
    assert.equal(done.status, "completed");
    assert.equal(done.result, partial.partial_image_b64, "output_item.done carries the same image");
    assert.equal(done.size, "1024x1536");
    assert.equal(done.quality, "low");
    assert.match(done.revised_prompt, /^A lighthouse at dusk, /);

    const completed = events[7]!.response;
    assert.equal(completed.status, "completed");
    assert.equal(completed.id, created.id);
    assert.equal(completed.output.length, 1);
    assert.equal(completed.output[0].id, added.item.id);
    assert.equal(
      completed.output[0].result,
      partial.partial_image_b64,
      "response.completed carries the image as the vendor's does (the SDKs' finalResponse() reads it)",
    );
    const { usage, tool_usage } = completed;
    const total = usage.input_tokens + usage.output_tokens;
    assert.ok(total >= 1_600 && total <= 2_300, `about 1,600-2,300 text tokens per call (got ${total})`);
    assert.equal(usage.total_tokens, total);
    assert.equal(tool_usage.image_gen.output_tokens, imageOutputTokens(1024, 1536, "low"));
    assert.equal(tool_usage.image_gen.input_tokens, countTextTokens(done.revised_prompt));

    const row = await ledgerFor(requestId);
    assert.equal(row.endpoint, "/v1/responses");
    assert.equal(row.model, "std-5.5");
    assert.equal(row.status, "success");
    assert.equal(row.stream, true);
    assert.equal(row.channelName, "Built-in simulator (offline)");
    const [textPart, imagePart] = row.detail.parts;
    assert.deepEqual(
      { model: textPart.model, input: textPart.textInputTokens, output: textPart.textOutputTokens },
      { model: "std-5.5", input: usage.input_tokens, output: usage.output_tokens },
    );
    assert.equal(imagePart.model, "std-image-2");
    assert.equal(imagePart.imageOutputTokens, tool_usage.image_gen.output_tokens);
    assert.equal(imagePart.textInputTokens, tool_usage.image_gen.input_tokens);
    assert.equal(textPart.cost, Math.ceil(textCost(usage.input_tokens, usage.output_tokens) - 1e-9));
    assert.equal(imagePart.cost, Math.ceil(imageCost(imagePart) - 1e-9));
    assert.equal(row.cost, textPart.cost + imagePart.cost);
    assert.ok(row.reserved >= row.cost);
    assert.equal(row.detail.imagesDelivered, 1);
  });

  test("three images: the per-image events repeat in order, each image decodes, prompts differ", async () => {
    const { events, requestId } = await run(
      ask("Please make three images of a red fox in the snow", { size: "1536x1024", quality: "medium", output_format: "webp" }),
    );
    assert.deepEqual(
      events.map((event) => event.type),
      expectedOrder(3),
    );
    assertNumbered(events);
    const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
    const done = events.filter((event) => event.type === "response.output_item.done").map((event) => event.item);
    assert.deepEqual(
      partials.map((event) => event.output_index),
      [0, 1, 2],
    );
    for (const partial of partials)
      assert.deepEqual(await decode(partial.partial_image_b64), { format: "webp", width: 1536, height: 1024 });
    assert.equal(new Set(done.map((item) => item.id)).size, 3);
    assert.equal(new Set(done.map((item) => item.revised_prompt)).size, 3, "each image has its own rewritten prompt");
    for (const item of done) assert.match(item.revised_prompt, /^A red fox in the snow, /);
    const completed = events.at(-1)!.response;
    assert.equal(completed.output.length, 3);
    assert.equal(completed.tool_usage.image_gen.output_tokens, 3 * imageOutputTokens(1536, 1024, "medium"));
    const row = await ledgerFor(requestId);
    assert.equal(row.imageOutputTokens, 3 * imageOutputTokens(1536, 1024, "medium"));
    assert.equal(row.detail.imagesDelivered, 3);
  });

  test("'two pictures' and '4 images' are honoured; more than four is capped at four", async () => {
    const count = async (text: string) =>
      (await run(ask(text, { quality: "low" }))).events.filter((event) => event.type === "response.image_generation_call.partial_image")
        .length;
    assert.equal(await count("two pictures of a sailing boat"), 2);
    assert.equal(await count("4 images of clouds"), 4);
    assert.equal(await count("Draw 9 images of a dog"), 4);
  });

  test("keepalive events while a slow image generates, numbered with the rest", async () => {
    await simulator({ responsesThinkMs: 0, responsesImageMs: 900, keepaliveMs: 100 });
    try {
      const { events, requestId } = await run(ask("A slow and detailed cathedral", { quality: "high" }));
      assert.deepEqual(withoutKeepalives(events), expectedOrder(1));
      assertNumbered(events);
      const keepalives = events.filter((event) => event.type === "keepalive");
      assert.ok(keepalives.length >= 5, `a heartbeat every 100 ms during a 900 ms image (got ${keepalives.length})`);
      for (const keepalive of keepalives) assert.deepEqual(Object.keys(keepalive).sort(), ["sequence_number", "type"]);
      const types = events.map((event) => event.type);
      const generating = types.indexOf("response.image_generation_call.generating");
      const partial = types.indexOf("response.image_generation_call.partial_image");
      assert.ok(
        types.slice(generating + 1, partial).filter((type) => type === "keepalive").length >= 4,
        "keepalives between generating and the image",
      );
      assert.deepEqual(await decode(events[partial]!.partial_image_b64), { format: "png", width: 1024, height: 1024 });
      const row = await ledgerFor(requestId);
      assert.equal(row.detail.keepalives, keepalives.length);
    } finally {
      await simulator(FAST);
    }
  });

  test("action auto edits when an image is sent and the prompt asks for a change; generate forces a new image", async () => {
    const photo = await pngDataUri(1200, 800);
    const edited = await run(ask("Make it look like a watercolour painting", { quality: "low" }, { images: [photo] }));
    assert.deepEqual(
      edited.events.map((event) => event.type),
      expectedOrder(1),
    );
    const item = edited.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.match(item.revised_prompt, /^Edit the provided image: /);
    assert.equal(item.size, "1536x1024", "an edit keeps the input's landscape shape");
    assert.deepEqual(await decode(item.result), { format: "png", width: 1536, height: 1024 });
    const editRow = await ledgerFor(edited.requestId);
    assert.equal(editRow.detail.action, "edit");
    assert.ok(editRow.detail.parts[1].imageInputTokens > 0, "the input image is billed as image input");

    const forced = await run(ask("Make it look like a watercolour painting", { quality: "low", action: "generate" }, { images: [photo] }));
    const generated = forced.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.doesNotMatch(generated.revised_prompt, /^Edit/);
    assert.equal(generated.size, "1024x1024");
    assert.equal((await ledgerFor(forced.requestId)).detail.action, "generate");

    const explicit = await run(ask("A lighthouse", { quality: "low", action: "edit", size: "1024x1024" }, { images: [photo] }));
    const explicitItem = explicit.events.find((event) => event.type === "response.output_item.done")!.item;
    assert.match(explicitItem.revised_prompt, /^Edit the provided image: A lighthouse/);
    assert.deepEqual(await decode(explicitItem.result), { format: "png", width: 1024, height: 1024 });
  });

  test("a client that disconnects after the first of three images stops the stream and pays for one image", async () => {
    await simulator({ responsesThinkMs: 0, responsesImageMs: 1_500 });
    try {
      const started = performance.now();
      const { data: stream, response } = await client()
        .responses.create(ask("Three images of a lighthouse", { quality: "low" }) as never)
        .withResponse();
      const seen: string[] = [];
      for await (const event of stream as unknown as AsyncIterable<Event>) {
        seen.push(event.type);
        if (event.type === "response.image_generation_call.partial_image") {
          assert.deepEqual(await decode(event.partial_image_b64), { format: "png", width: 1024, height: 1024 });
          break; // the SDK aborts the request
        }
      }
      const disconnectedAt = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 400));
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.detail.imagesGenerated, 1, "the second image was stopped, not finished");
      assert.equal(row.imageOutputTokens, imageOutputTokens(1024, 1024, "low"), "one image charged");
      assert.equal(row.detail.parts[1].imageOutputTokens, imageOutputTokens(1024, 1024, "low"));
      assert.ok(
        row.latencyMs < disconnectedAt + 1_000,
        `the stream ended when the client left (${row.latencyMs} ms, left at ${Math.round(disconnectedAt)} ms)`,
      );
      assert.ok(row.cost < row.reserved);
    } finally {
      await simulator(FAST);
    }
  });
  test("a client that leaves after a progress image, before the finished one, pays for that progress image only", async () => {
    // The vendor bills 100 image output tokens per progress image; the finished image was never made (docs/billing.md).
    await simulator({ responsesThinkMs: 0, responsesImageMs: 3_000 });
    try {
      const { data: stream, response } = await client()
        .responses.create(ask("A lighthouse", { quality: "low", partial_images: 2 }) as never)
        .withResponse();
      for await (const event of stream as unknown as AsyncIterable<Event>) {
        if (event.type === "response.image_generation_call.partial_image") {
          assert.equal(event.partial_image_index, 0, "the first progress image");
          break; // the SDK aborts the request
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 0, "no finished image reached the client");
      assert.equal(row.detail.imagesGenerated, 0);
      assert.equal(row.detail.previewsDelivered, 1);
      assert.equal(row.imageOutputTokens, 100, "one progress image, at the vendor's 100 tokens");
      assert.equal(row.detail.parts[1].imageOutputTokens, 100);
      assert.ok(row.detail.parts[1].textInputTokens > 0, "the image call's prompt was read");
    } finally {
      await simulator(FAST);
    }
  });
});
