// Image API: relaying to a recording fake OpenAI-compatible upstream (what it receives, what the client gets, what is
// charged), and the same on PostgreSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI, { toFile } from "openai";
import { countTextTokens } from "@/lib/money/tokens";
import { imageInputTokens } from "@/lib/money/image-tokens";
import { createUserWithKey, postgresAvailable, startGateway } from "../helpers/gateway";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import {
  MB,
  PRICE,
  gateway,
  key,
  upstreams,
  openai,
  ledgerFor,
  account,
  decode,
  postJson,
  postForm,
  solid,
  png,
  halfMask,
  paddedPng,
  memory,
  resetPeak,
  expectError,
  parseForm,
} from "../helpers/images-setup";

describe("an OpenAI-compatible upstream (recording fake)", () => {
  async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
    const upstream = await startFakeUpstream(respond);
    upstreams.push(upstream);
    return upstream;
  }

  async function withChannel<T>(upstream: FakeUpstream, run: () => Promise<T>, extra: Record<string, unknown> = {}): Promise<T> {
    const { id } = await gateway.admin("POST", "/api/admin/channels", {
      name: "fake image upstream",
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "upstream-image-secret",
      models: ["std-image-2"],
      modelMapping: { "std-image-2": "real-image-model-7" },
      priority: 50,
      ...extra,
    });
    try {
      return await run();
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${id}`);
    }
  }

  const upstreamUsage = {
    input_tokens: 5080,
    input_tokens_details: { text_tokens: 11, image_tokens: 5069 },
    output_tokens: 1372,
    total_tokens: 6452,
  };

  test("generations: mapped model, the channel's key, the client's fields only; the image comes back unchanged", async () => {
    const image = await solid(1536, 1024, "#0a7f3c").jpeg({ quality: 77 }).toBuffer();
    const upstream = await fake((_request, response) =>
      sendJson(response, 200, {
        created: 1_700_000_123,
        data: [{ b64_json: image.toString("base64"), revised_prompt: "a green field, revised" }],
        size: "1536x1024",
        quality: "medium",
        output_format: "jpeg",
        background: "opaque",
        usage: upstreamUsage,
      }),
    );
    const trap = await fake((_request, response) => sendJson(response, 500, {}));
    await withChannel(upstream, async () => {
      const body = {
        model: "std-image-2",
        prompt: "a green field",
        size: "1536x1024",
        quality: "medium",
        output_format: "jpeg",
        output_compression: 35,
        moderation: "low",
        background: "opaque",
        user: "end-user-9",
        n: 3,
        response_format: "b64_json",
        // Fields that must not redirect the gateway's call or reach the upstream.
        base_url: `${trap.url}/v1`,
        api_base: `${trap.url}/v1`,
        baseURL: trap.url,
      };
      const { data: result, response } = await openai()
        .images.generate(body as OpenAI.ImageGenerateParamsNonStreaming)
        .withResponse();
      assert.equal(result.data![0]!.b64_json, image.toString("base64"), "the upstream's bytes, unchanged");
      assert.equal(result.data![0]!.revised_prompt, "a green field, revised");
      assert.equal(result.created, 1_700_000_123);
      assert.equal(result.output_format, "jpeg");
      assert.equal(trap.received.length, 0, "the body cannot redirect the upstream");
      const received = upstream.received.at(-1)!;
      assert.equal(received.method, "POST");
      assert.equal(received.path, "/v1/images/generations");
      assert.equal(received.headers.authorization, "Bearer upstream-image-secret");
      assert.equal(JSON.stringify(received.headers).includes(key), false, "the caller's key never goes upstream");
      assert.deepEqual(received.body, {
        model: "real-image-model-7",
        prompt: "a green field",
        size: "1536x1024",
        quality: "medium",
        output_format: "jpeg",
        output_compression: 35,
        moderation: "low",
        background: "opaque",
        user: "end-user-9",
      });
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.channelName, "fake image upstream");
      assert.equal(row.textInputTokens, 11);
      assert.equal(row.imageInputTokens, 5069);
      assert.equal(row.imageOutputTokens, 1372);
      assert.equal(row.cost, 11 * PRICE.textInput + 5069 * PRICE.imageInput + 1372 * PRICE.imageOutput);
      assert.equal(row.detail.usageSource, "upstream");

      // response_format=url: a data URI of the same bytes, with the format read from the bytes.
      const url = await openai().images.generate({ model: "std-image-2", prompt: "a green field", response_format: "url" });
      assert.equal(url.data![0]!.url, `data:image/jpeg;base64,${image.toString("base64")}`);
      assert.deepEqual(
        upstream.received.at(-1)!.body,
        { model: "real-image-model-7", prompt: "a green field" },
        "only what the client sent; no response_format, no n",
      );
    });
  });

  test("edits: the upstream receives the mapped model, every field and every file byte for byte, re-streamed", async () => {
    const answer = await solid(1024, 1024, "#aa3300").png().toBuffer();
    const upstream = await fake((_request, response) =>
      sendJson(response, 200, { created: 1_700_000_456, data: [{ b64_json: answer.toString("base64") }], usage: upstreamUsage }),
    );
    await withChannel(upstream, async () => {
      const first = await png(800, 600, "#112233");
      const second = await solid(640, 480, "#445566").png().toBuffer();
      const mask = await halfMask(800, 600);
      const { data: result, response } = await openai()
        .images.edit({
          model: "std-image-2",
          prompt: "replace the sky",
          size: "1024x1024",
          quality: "high",
          output_format: "png",
          n: 2,
          // The spec gives edits the same output options as generations, moderation included; the SDK's type lacks it.
          ...({ moderation: "auto" } as object),
          image: [await toFile(first, "first.png", { type: "image/png" }), await toFile(second, "second.png")],
          mask: await toFile(mask, "mask.png", { type: "image/png" }),
          input_fidelity: "low",
        })
        .withResponse();
      assert.equal(result.data![0]!.b64_json, answer.toString("base64"), "the upstream's image, unchanged");
      const received = upstream.received.at(-1)!;
      assert.equal(received.path, "/v1/images/edits");
      assert.equal(received.headers.authorization, "Bearer upstream-image-secret");
      // Sent on as the upload arrived (tests/integration/images-live-edit.test.ts), so its length was not known up front.
      assert.equal(received.headers["transfer-encoding"], "chunked");
      const form = await parseForm(received.headers, received.raw);
      assert.deepEqual(form.fields, {
        model: "real-image-model-7",
        prompt: "replace the sky",
        size: "1024x1024",
        quality: "high",
        output_format: "png",
        moderation: "auto",
      });
      assert.deepEqual(
        form.files.map((file) => [file.field, file.filename, file.type]),
        [
          ["image[]", "first.png", "image/png"],
          ["image[]", "second.png", "image/png"],
          ["mask", "mask.png", "image/png"],
        ],
      );
      assert.ok(form.files[0]!.data.equals(first), "first image byte for byte");
      assert.ok(form.files[1]!.data.equals(second), "second image byte for byte");
      assert.ok(form.files[2]!.data.equals(mask), "mask byte for byte");
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.endpoint, "/v1/images/edits");
      assert.equal(row.imageInputTokens, 5069);
      assert.equal(row.cost, 11 * PRICE.textInput + 5069 * PRICE.imageInput + 1372 * PRICE.imageOutput);
    });
  });

  test("a 45 MB upload is relayed without being held in the gateway's memory", async (context) => {
    const upstream = await fake((request, response) =>
      sendJson(response, 200, { data: [{ b64_json: request.raw.subarray(0, 0).toString("base64") || "iVBORw0KGgo=" }] }),
    );
    await withChannel(upstream, async () => {
      const big = await paddedPng(45 * MB);
      const pid = gateway.process.pid!;
      const before = memory(pid);
      const peakReset = resetPeak(pid);
      let sampledPeak = before.rss;
      const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memory(pid).rss)), 10);
      const response = await postForm([
        ["prompt", "relay a big file"],
        ["image[]", big, "big.png", "image/png"],
      ]);
      clearInterval(sampler);
      assert.equal(response.status, 200, await response.clone().text());
      const growth = Math.max(peakReset ? memory(pid).peak : 0, sampledPeak) - before.rss;
      context.diagnostic(`45 MB relayed: gateway peak RSS +${growth.toFixed(1)} MB (RSS before ${before.rss.toFixed(1)} MB)`);
      const form = await parseForm(upstream.received.at(-1)!.headers, upstream.received.at(-1)!.raw);
      assert.ok(form.files[0]!.data.equals(big), "the upstream received the file byte for byte");
      assert.ok(growth < 35, `peak memory grew by ${growth.toFixed(1)} MB while relaying 45 MB`);
    });
  });

  test("an upstream without usage is billed by the gateway's own count", async () => {
    const image = await png(1024, 1024, "#010203");
    const upstream = await fake((_request, response) => sendJson(response, 200, { data: [{ b64_json: image.toString("base64") }] }));
    await withChannel(upstream, async () => {
      const { data: result, response } = await openai()
        .images.generate({ model: "std-image-2", prompt: "no usage here", size: "1024x1024", quality: "low" })
        .withResponse();
      assert.equal(result.data![0]!.b64_json, image.toString("base64"));
      const row = await ledgerFor(response.headers.get("x-request-id")!);
      assert.equal(row.imageOutputTokens, 196);
      assert.equal(row.textInputTokens, countTextTokens("no usage here"));
      assert.equal(row.detail.usageSource, "gateway");
    });
  });

  test("upstream failures: a 400 is passed on, a link or garbage is a 502; none is charged", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const trap = await fake((_request, response) => sendJson(response, 200, {}));
    let mode = "refuse";
    const upstream = await fake((_request, response) => {
      if (mode === "refuse")
        sendJson(response, 400, { error: { message: "Your request was rejected by the safety system", code: "moderation_blocked" } });
      else if (mode === "link") sendJson(response, 200, { data: [{ url: `${trap.url}/image.png` }] });
      else if (mode === "garbage") response.writeHead(200, { "content-type": "application/json" }).end('{"data": [');
      else sendJson(response, 200, { data: [{ b64_json: Buffer.from("GIF89a not an image").toString("base64") }] });
    });
    // The built-in simulator would step in for the retryable failures (failover); switch it off meanwhile.
    const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
      (channel) => channel.type === "simulator",
    )!;
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
    try {
      await withChannel(upstream, async () => {
        const request = { model: "std-image-2", prompt: "anything", size: "1024x1024", quality: "low" };
        const refused = await postJson("/v1/images/generations", request, user.key);
        const first = await expectError(refused, 400, "moderation_blocked", null, /^Your request was rejected by the safety system/);
        mode = "link";
        const second = await expectError(
          await postJson("/v1/images/generations", request, user.key),
          502,
          "upstream_error",
          null,
          /links to images are not fetched/,
        );
        assert.equal(trap.received.length, 0, "the gateway fetched nothing");
        mode = "garbage";
        const third = await expectError(
          await postJson("/v1/images/generations", request, user.key),
          502,
          "upstream_error",
          null,
          /not valid JSON/,
        );
        mode = "not an image";
        const fourth = await expectError(
          await postJson("/v1/images/generations", request, user.key),
          502,
          "upstream_error",
          null,
          /not PNG, JPEG or WebP/,
        );
        for (const requestId of [first, second, third, fourth]) {
          const row = await ledgerFor(requestId);
          assert.equal(row.cost, 0);
          assert.equal(row.status, "error");
        }
        assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 5_000_000 });
      });
    } finally {
      await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
    }
  });

  test("a failing upstream fails over to the next channel (here the simulator)", async () => {
    const failing = await fake((_request, response) => sendJson(response, 503, { error: { message: "overloaded" } }));
    await withChannel(failing, async () => {
      const { data: result, response } = await openai()
        .images.generate({ model: "std-image-2", prompt: "failover", size: "1024x1024", quality: "low" })
        .withResponse();
      assert.deepEqual(await decode(result.data![0]!.b64_json!), { format: "png", width: 1024, height: 1024 });
      assert.equal(failing.received.length, 1);
      assert.equal((await ledgerFor(response.headers.get("x-request-id")!)).channelName, "Built-in simulator (offline)");
    });
  });
});

// ---------------------------------------------------------------------------------------------------- PostgreSQL

describe("on PostgreSQL", async () => {
  const available = await postgresAvailable();
  test("a generation, an edit, their ledger rows and the moderation setting", {
    skip: available ? false : "no PostgreSQL on 127.0.0.1:5432",
  }, async () => {
    const postgres = await startGateway({ database: "postgres" });
    const user = await createUserWithKey(postgres, { balance: 5_000_000, quota: 5_000_000 });
    const client = openai(user.key, postgres.url);
    const { response } = await client.images
      .generate({ model: "std-image-2", prompt: "on postgres", size: "1024x1024", quality: "low" })
      .withResponse();
    const row = await ledgerFor(response.headers.get("x-request-id")!, postgres);
    assert.equal(row.imageOutputTokens, 196);
    const edit = await client.images
      .edit({
        model: "std-image-2",
        prompt: "edit on postgres",
        image: [await toFile(await png(512, 512), "a.png")],
        size: "1024x1024",
        quality: "low",
      })
      .withResponse();
    assert.equal((await ledgerFor(edit.response.headers.get("x-request-id")!, postgres)).imageInputTokens, imageInputTokens(512, 512));
    await postgres.admin("POST", "/api/admin/moderation", { auto: ["postgres"] });
    assert.deepEqual((await postgres.admin("GET", "/api/admin/moderation")).auto, ["postgres"]);
    await assert.rejects(
      client.images.generate({ model: "std-image-2", prompt: "on postgres", size: "1024x1024", quality: "low" }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.code === "content_policy_violation",
    );
  });
});
