// Responses API: the native relay to an upstream with its own Responses API, multi-megabyte events included.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { imageOutputTokens } from "@/lib/money/image-tokens";
import { sendSse } from "../helpers/fake-upstream";
import {
  gateway,
  key,
  client,
  fake,
  channel,
  ledgerFor,
  ledgerRows,
  ask,
  run,
  expectedOrder,
  withoutKeepalives,
  assertNumbered,
  decode,
  sha,
  realImage,
} from "../helpers/responses-setup";

describe("native Responses relay", () => {
  /** A PNG of noise: incompressible, so the image is several megabytes. */
  async function bigImage(width: number, height: number): Promise<string> {
    const pixels = randomBytes(width * height * 3);
    return (
      await sharp(pixels, { raw: { width, height, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer()
    ).toString("base64");
  }

  function vendorEvents(big: string, second: string) {
    const response = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "resp_upstream1",
      object: "response",
      created_at: 1_700_000_000,
      status,
      model: "gpt-real-5",
      output: [],
      tools: [{ type: "image_generation", model: "gpt-image-real", size: "1536x1024", quality: "high" }],
      usage: null,
      ...extra,
    });
    const item = (id: string, index: number, b64: string, prompt: string) => ({
      type: "response.output_item.done",
      output_index: index,
      item: {
        id,
        type: "image_generation_call",
        status: "completed",
        background: "opaque",
        output_format: "png",
        quality: "high",
        size: "1536x1024",
        revised_prompt: prompt,
        result: b64,
      },
    });
    let sequence = 100;
    const numbered = (data: Record<string, unknown>) => ({ event: data.type as string, data: { ...data, sequence_number: sequence++ } });
    return [
      numbered({ type: "response.created", response: response("in_progress") }),
      numbered({ type: "response.in_progress", response: response("in_progress") }),
      numbered({
        type: "response.output_item.added",
        output_index: 0,
        item: { id: "ig_up1", type: "image_generation_call", status: "in_progress" },
      }),
      numbered({ type: "response.image_generation_call.in_progress", output_index: 0, item_id: "ig_up1" }),
      numbered({ type: "response.image_generation_call.generating", output_index: 0, item_id: "ig_up1" }),
      numbered({ type: "keepalive" }),
      numbered({
        type: "response.image_generation_call.partial_image",
        output_index: 0,
        item_id: "ig_up1",
        partial_image_index: 0,
        partial_image_b64: big,
        size: "1536x1024",
        quality: "high",
        output_format: "png",
        background: "opaque",
      }),
      numbered(item("ig_up1", 0, big, "A storm over the sea, dramatic light")),
      numbered({
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "ig_up2", type: "image_generation_call", status: "in_progress" },
      }),
      numbered({ type: "response.image_generation_call.in_progress", output_index: 1, item_id: "ig_up2" }),
      numbered({ type: "response.image_generation_call.generating", output_index: 1, item_id: "ig_up2" }),
      // No partial_image for this one: the gateway adds it from the finished item.
      numbered(item("ig_up2", 1, second, "A calm sea after the storm")),
      numbered({
        type: "response.completed",
        response: response("completed", {
          usage: { input_tokens: 1_900, output_tokens: 120, total_tokens: 2_020 },
          tool_usage: {
            image_gen: {
              input_tokens: 40,
              input_tokens_details: { text_tokens: 40, image_tokens: 0 },
              output_tokens: 10_000,
              output_tokens_details: { image_tokens: 10_000, text_tokens: 0 },
              total_tokens: 10_040,
            },
          },
        }),
      }),
    ];
  }

  /** Runs `body` with a native Responses channel at `upstream` that serves before the simulator; removed afterwards. */
  async function withNativeChannel(name: string, upstream: { url: string }, settings: Record<string, unknown>, body: () => Promise<void>) {
    const id = await channel({
      name,
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "n",
      models: ["std-5.5"],
      settings: { responsesApi: true, ...settings },
      priority: 50,
    });
    try {
      await body();
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  }

  /** The request's ledger row, once the stream that was cut has been settled. */
  async function settledRow(requestId: string) {
    for (let tries = 0; tries < 50 && (await ledgerRows(requestId)).length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return ledgerFor(requestId);
  }

  test("events of several MB relayed one by one, renumbered, the model renamed, usage read from response.completed", async () => {
    const big = await bigImage(1536, 1024);
    assert.ok(big.length > 4 * 1024 * 1024, `the first event is several MB (${(big.length / 1024 / 1024).toFixed(1)} MB)`);
    const second = await realImage(1536, 1024, "png");
    const upstream = await fake(async (_request, response) => sendSse(response, vendorEvents(big, second), 5));
    const textChannel = await channel({
      name: "native responses",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "native-secret",
      models: ["std-5.5"],
      modelMapping: { "std-5.5": "gpt-real-5", "std-image-2": "gpt-image-real" },
      settings: { responsesApi: true },
      priority: 50,
    });
    try {
      const { events, requestId } = await run(ask("Two images of the sea", { size: "1536x1024", quality: "high" }));
      const received = upstream.received[0]!;
      assert.equal(received.path, "/v1/responses");
      assert.equal(received.headers.authorization, "Bearer native-secret");
      assert.deepEqual(received.body, {
        model: "gpt-real-5",
        instructions: "You are an illustrator. Use the image tool for every picture.",
        input: [{ role: "user", content: [{ type: "input_text", text: "Two images of the sea" }] }],
        tools: [{ type: "image_generation", quality: "high", size: "1536x1024", model: "gpt-image-real" }],
        stream: true,
        // The limits the reservation counted (docs/billing.md).
        max_output_tokens: 6_144,
        max_tool_calls: 4,
      });

      assert.deepEqual(withoutKeepalives(events), expectedOrder(2));
      assert.equal(events.filter((event) => event.type === "keepalive").length, 1, "the upstream's own keepalive passes through");
      assertNumbered(events);
      assert.equal(events[0]!.response.model, "std-5.5");
      assert.equal(events[0]!.response.tools[0].model, "std-image-2");
      assert.equal(events.at(-1)!.response.model, "std-5.5");
      const partials = events.filter((event) => event.type === "response.image_generation_call.partial_image");
      assert.equal(sha(partials[0]!.partial_image_b64), sha(big), "the multi-MB image arrives byte for byte");
      assert.equal(sha(partials[1]!.partial_image_b64), sha(second), "the image that came without partial_image gets one");
      assert.deepEqual(await decode(partials[0]!.partial_image_b64), { format: "png", width: 1536, height: 1024 });
      assert.deepEqual(await decode(partials[1]!.partial_image_b64), { format: "png", width: 1536, height: 1024 });

      const row = await ledgerFor(requestId);
      assert.equal(row.status, "success");
      assert.equal(row.detail.path, "native");
      assert.deepEqual([row.detail.parts[0].textInputTokens, row.detail.parts[0].textOutputTokens], [1_900, 120]);
      assert.deepEqual([row.detail.parts[1].textInputTokens, row.detail.parts[1].imageOutputTokens], [40, 10_000]);
      assert.equal(row.detail.imagesDelivered, 2);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${textChannel}`);
    }
  });

  test("an upstream that answers /responses without an event stream: its answer is dropped, the next channel serves", async () => {
    const upstream = await fake(async (_request, response) => {
      // JSON where an event stream belongs, sent slowly: the gateway must close it, not wait for it or read it.
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"id":"resp_json","object":"response","output":[');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      response.end("]}");
    });
    await withNativeChannel("native (not a stream)", upstream, {}, async () => {
      const { events, requestId, elapsedMs } = await run(ask("A harbour", { quality: "low", size: "1024x1024" }));
      assert.equal(events.at(-1)!.type, "response.completed");
      assert.equal(upstream.received.length, 1, "the JSON upstream was asked once");
      assert.equal((await ledgerFor(requestId)).channelName, "Built-in simulator (offline)");
      assert.ok(elapsedMs < 2000, `the slow JSON answer was not waited for (${Math.round(elapsedMs)} ms)`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(upstream.aborted, 1, "its connection was closed");
    });
  });

  test("an upstream stream cut after the first image: response.failed to the client, one image billed from its size", async () => {
    const first = await realImage(1024, 1024, "png");
    const upstream = await fake(async (_request, response) => {
      const events = vendorEvents(first, first).slice(0, 8);
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) response.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      response.write('event: response.output_item.added\ndata: {"type":"response.output_item.ad');
      await new Promise((resolve) => setTimeout(resolve, 100));
      response.destroy();
    });
    await withNativeChannel("native (cut)", upstream, {}, async () => {
      const { events, requestId } = await run(ask("A storm", { quality: "high", size: "1536x1024" }));
      assert.deepEqual(withoutKeepalives(events), [...expectedOrder(1).slice(0, -1), "response.failed"]);
      const failed = events.at(-1)!.response;
      assert.equal(failed.status, "failed");
      assert.equal(failed.id, "resp_upstream1");
      assert.match(failed.error.message, /cut/);
      const row = await ledgerFor(requestId);
      assert.equal(row.status, "error");
      assert.equal(row.detail.imagesDelivered, 1);
      assert.equal(row.imageOutputTokens, imageOutputTokens(1536, 1024, "high"), "the delivered image at its reported size and quality");
      assert.ok(row.cost > 0 && row.cost < row.reserved);
    });
  });

  /** The SSE text of one upstream event. */
  const sseText = (event: { event: string; data: Record<string, unknown> }) =>
    `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;

  test("an image event goes out to the client while the upstream is still sending it", async () => {
    const big = await bigImage(1536, 1024);
    const events = vendorEvents(big, big);
    const partialAt = events.findIndex((event) => event.event === "response.image_generation_call.partial_image");
    let release!: () => void;
    const released = new Promise<"client">((resolve) => (release = () => resolve("client")));
    let releasedBy = "";
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events.slice(0, partialAt)) response.write(sseText(event));
      const partial = sseText(events[partialAt]!);
      const half = Math.floor(partial.length / 2);
      response.write(partial.slice(0, half));
      // The rest of the image only once the client has read a good part of it (or after 10 s, for the test to fail).
      releasedBy = await Promise.race([released, new Promise<string>((resolve) => setTimeout(() => resolve("timeout"), 10_000))]);
      response.write(partial.slice(half));
      for (const event of events.slice(partialAt + 1)) response.write(sseText(event));
      response.end();
    });
    await withNativeChannel("native (image held back)", upstream, {}, async () => {
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(ask("Two images of the sea", { size: "1536x1024", quality: "high" })),
      });
      assert.equal(response.status, 200);
      const chunks: Buffer[] = [];
      let imageBytesBeforeRelease = -1;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        chunks.push(Buffer.from(chunk));
        if (imageBytesBeforeRelease >= 0) continue;
        const text = Buffer.concat(chunks).toString("latin1");
        const start = text.indexOf('"partial_image_b64":"');
        if (start >= 0 && text.length - start > 1024 * 1024) {
          imageBytesBeforeRelease = text.length - start;
          release();
        }
      }
      release();
      assert.equal(releasedBy, "client", "the first megabyte of the image reached the client before the upstream sent the rest");
      assert.ok(imageBytesBeforeRelease > 0);
      const received = Buffer.concat(chunks).toString("utf8");
      const data = received
        .split("\n\n")
        .filter((block) => block.includes("data: "))
        .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)));
      assert.deepEqual(
        data.map((event) => event.type).filter((type) => type !== "keepalive"),
        expectedOrder(2),
      );
      assert.deepEqual(
        data.map((event) => event.sequence_number),
        data.map((_event, index) => index),
        "numbered in order",
      );
      const partials = data.filter((event) => event.type === "response.image_generation_call.partial_image");
      assert.equal(sha(partials[0].partial_image_b64), sha(big), "the image arrives byte for byte");
      const done = data.filter((event) => event.type === "response.output_item.done");
      assert.equal(sha(done[0].item.result), sha(big));
      assert.equal(done[0].item.revised_prompt, "A storm over the sea, dramatic light");
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.status, "success");
      assert.equal(row.detail.imagesDelivered, 2);
    });
  });

  /** An upstream that sends the events before the first image, then the first 2 MB of its partial_image event. */
  async function halfImageUpstream(then: (response: import("node:http").ServerResponse) => Promise<void>) {
    const big = await bigImage(1536, 1024);
    const events = vendorEvents(big, big);
    const partialAt = events.findIndex((event) => event.event === "response.image_generation_call.partial_image");
    return fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events.slice(0, partialAt)) response.write(sseText(event));
      response.write(sseText(events[partialAt]!).slice(0, 2 * 1024 * 1024));
      await then(response);
    });
  }

  for (const [what, then, settings, reason] of [
    [
      "cut",
      async (response: import("node:http").ServerResponse) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        response.destroy();
      },
      {},
      /cut/,
    ],
    [
      "silent",
      (response: import("node:http").ServerResponse) => new Promise<void>((resolve) => response.once("close", resolve)),
      { idleTimeoutMs: 400 },
      /^The upstream sent nothing for 0\.4 s$/,
    ],
  ] as const) {
    test(`an upstream ${what} in the middle of an image that is going out: the connection is cut, the client sees an error, the image is not billed`, async () => {
      const upstream = await halfImageUpstream(then);
      await withNativeChannel(`native (${what} inside an image)`, upstream, settings, async () => {
        const { data: stream, response } = await client()
          .responses.create(ask("A storm", { quality: "high", size: "1536x1024" }) as never)
          .withResponse();
        const seen: string[] = [];
        await assert.rejects(async () => {
          for await (const event of stream as unknown as AsyncIterable<{ type: string }>) seen.push(event.type);
        }, "the official SDK sees the cut as an error, not as a quiet end");
        assert.ok(!seen.includes("response.image_generation_call.partial_image"), "no half image is handed to the client");
        assert.ok(seen.includes("response.image_generation_call.generating"), "the events before it arrived");
        const requestId = response.headers.get("x-request-id")!;
        const row = await settledRow(requestId);
        assert.equal(row.status, "error");
        assert.match(row.error, reason);
        assert.equal(row.detail.imagesDelivered, 0);
        assert.equal(row.imageOutputTokens, 0, "the image that did not arrive whole is not billed");
        assert.ok(row.cost < row.reserved);
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (what === "silent") assert.equal(upstream.aborted, 1, "the silent upstream's request was closed");
      });
    });
  }

  test("a client that leaves in the middle of an image that is going out: the upstream is closed, the image is not billed", async () => {
    const upstream = await halfImageUpstream((response) => new Promise<void>((resolve) => response.once("close", resolve)));
    await withNativeChannel("native (client leaves inside an image)", upstream, {}, async () => {
      const leave = new AbortController();
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(ask("A storm", { size: "1536x1024", quality: "high" })),
        signal: leave.signal,
      });
      const requestId = response.headers.get("x-request-id")!;
      let text = "";
      await assert.rejects(async () => {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          text += Buffer.from(chunk).toString("latin1");
          const start = text.indexOf('"partial_image_b64":"');
          if (start >= 0 && text.length - start > 512 * 1024) leave.abort();
        }
      });
      const row = await settledRow(requestId);
      assert.equal(row.status, "cancelled");
      assert.equal(row.detail.imagesDelivered, 0);
      assert.equal(row.imageOutputTokens, 0, "half an image is not billed");
      for (let tries = 0; tries < 50 && upstream.aborted === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(upstream.aborted, 1, "the upstream's request was closed");
    });
  });
  test("an upstream cut after a progress image, before the finished image: that progress image is billed, not the image", async () => {
    const preview = await realImage(384, 256, "png");
    const events = vendorEvents(preview, preview);
    const partialAt = events.findIndex((event) => event.event === "response.image_generation_call.partial_image");
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events.slice(0, partialAt + 1)) response.write(sseText(event));
      await new Promise((resolve) => setTimeout(resolve, 300));
      response.destroy();
    });
    await withNativeChannel("native (cut after a progress image)", upstream, {}, async () => {
      const { events: received, requestId } = await run(ask("A storm", { quality: "high", size: "1536x1024", partial_images: 1 }));
      assert.ok(
        received.some((event) => event.type === "response.image_generation_call.partial_image"),
        "the progress image arrived",
      );
      assert.equal(received.at(-1)!.type, "response.failed");
      const row = await settledRow(requestId);
      assert.equal(row.status, "error");
      assert.equal(row.detail.imagesDelivered, 0, "the finished image never came");
      assert.equal(row.detail.previewsDelivered, 1);
      assert.equal(row.imageOutputTokens, 100, "one progress image at the vendor's 100 tokens, not a finished 1536x1024 high image");
    });
  });
  test("an upstream cut after the model's text deltas: the text delivered is billed as output", async () => {
    const words = Array.from({ length: 400 }, (_, index) => ` ${["harbor", "lantern", "meadow", "copper"][index % 4]}`);
    const events = vendorEvents("", "").slice(0, 2);
    const at = { item_id: "msg_up1", output_index: 0, content_index: 0 };
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) response.write(sseText(event));
      response.write(
        sseText({
          event: "response.output_item.added",
          data: {
            type: "response.output_item.added",
            output_index: 0,
            item: { id: "msg_up1", type: "message", role: "assistant", content: [] },
          },
        }),
      );
      for (const word of words)
        response.write(sseText({ event: "response.output_text.delta", data: { type: "response.output_text.delta", ...at, delta: word } }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      response.destroy();
    });
    await withNativeChannel("native (cut after text)", upstream, {}, async () => {
      const { events: received, requestId } = await run(ask("Describe a storm", { quality: "low" }));
      assert.equal(received.filter((event) => event.type === "response.output_text.delta").length, words.length, "the deltas arrived");
      const row = await settledRow(requestId);
      assert.equal(row.status, "error");
      assert.ok(row.textOutputTokens >= words.length, `${row.textOutputTokens} output tokens billed for ${words.length} words delivered`);
      assert.equal(row.detail.rule, "meter");
    });
  });
});
