// Image answers passed on as they arrive (docs/decisions/0010-images-at-wire-speed.md): the client gets the first
// bytes while the upstream is still sending, the upstream's base64 goes through byte for byte (escapes included),
// the fields after the image still drive the bill, and a cut on either side settles the way docs/billing.md says.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { randomBytes } from "node:crypto";
import { createUserWithKey } from "../helpers/gateway";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import sharp from "sharp";
import { PRICE, gateway, upstreams, openai, ledgerRows, account } from "../helpers/images-setup";
import { imageOutputTokens } from "@/lib/money/image-tokens";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A PNG of noise: it does not compress, so its base64 is larger than the 1 MB the gateway reads before passing an
 *  answer on (COMMIT_BYTES; smaller answers are read whole). 1024x1024 is ~4 MB of base64. */
async function noisePng(width: number, height: number): Promise<string> {
  const png = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return png.toString("base64");
}

async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

/** Runs `run` with `upstream` as the only channel for std-image-2 (the simulator is switched off meanwhile). */
async function only<T>(upstream: FakeUpstream, run: () => Promise<T>): Promise<T> {
  const channels = (await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[];
  const simulator = channels.find((channel) => channel.type === "simulator")!;
  const { id } = await gateway.admin("POST", "/api/admin/channels", {
    name: "streaming image upstream",
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "upstream-secret",
    models: ["std-image-2"],
    priority: 60,
  });
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
  try {
    return await run();
  } finally {
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
    await gateway.admin("DELETE", `/api/admin/channels/${id}`);
  }
}

/** POSTs a generation with node:http and reports when each part of the answer arrived. */
function generate(
  apiKey: string,
  body: unknown,
  onFirstByte?: (request: http.ClientRequest) => void,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; firstByteAt: number; endAt: number; error?: Error }> {
  return new Promise((resolve) => {
    const url = new URL(`${gateway.url}/v1/images/generations`);
    const request = http.request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let firstByteAt = 0;
      const done = (error?: Error) =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString(),
          firstByteAt,
          endAt: performance.now(),
          ...(error ? { error } : {}),
        });
      response.on("data", (chunk: Buffer) => {
        if (!firstByteAt) {
          firstByteAt = performance.now();
          onFirstByte?.(request);
        }
        chunks.push(chunk);
      });
      response.on("end", () => done());
      response.on("error", done);
      response.on("close", () => done(new Error("closed")));
    });
    request.on("error", (error) => resolve({ status: 0, headers: {}, text: "", firstByteAt: 0, endAt: performance.now(), error }));
    request.end(JSON.stringify(body));
  });
}

describe("image answers pass through as they arrive", () => {
  test("the first bytes reach the client while the upstream is still sending; the image and the bill are the upstream's", async () => {
    const image = await noisePng(1024, 1024);
    let upstreamDoneAt = 0;
    const upstream = await fake(async (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write(`{"created":1700000042,"data":[{"b64_json":"${image.slice(0, 2_000_000)}`);
      await sleep(400);
      response.write(image.slice(2_000_000));
      await sleep(100);
      // The fields after the image: what the upstream bills.
      response.end(
        `","revised_prompt":"a green square"}],"size":"1024x1024","quality":"low","usage":{"input_tokens":9,"input_tokens_details":{"text_tokens":9,"image_tokens":0},"output_tokens":196}}`,
      );
      upstreamDoneAt = performance.now();
    });
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    await only(upstream, async () => {
      const started = performance.now();
      const answer = await generate(user.key, { model: "std-image-2", prompt: "a green square", size: "1024x1024", quality: "low" });
      assert.equal(answer.status, 200);
      assert.ok(
        answer.firstByteAt - started < 300,
        `first byte after ${Math.round(answer.firstByteAt - started)} ms, before the upstream's pause ended`,
      );
      assert.ok(answer.firstByteAt < upstreamDoneAt, "the client had bytes before the upstream finished");
      const body = JSON.parse(answer.text);
      assert.equal(body.data[0].b64_json, image, "the upstream's bytes, unchanged");
      assert.equal(body.data[0].revised_prompt, "a green square");
      assert.equal(body.created, 1700000042);
      assert.equal(body.output_format, "png");
      assert.equal(body.size, "1024x1024");
      assert.deepEqual(body.usage.output_tokens_details, { image_tokens: 196, text_tokens: 0 });
      const [row] = await ledgerRows(answer.headers["x-request-id"] as string);
      assert.equal(row.status, "success");
      assert.equal(row.detail.usageSource, "upstream");
      assert.equal(row.cost, 9 * PRICE.textInput + 196 * PRICE.imageOutput);
      assert.deepEqual(await account(user.userId), { balance: 5_000_000 - row.cost, quota: 5_000_000 - row.cost });

      // The official client reads the same answer (chunked, no Content-Length) as usual.
      const viaSdk = await openai(user.key).images.generate({ model: "std-image-2", prompt: "again", size: "1024x1024", quality: "low" });
      assert.equal(viaSdk.data![0]!.b64_json, image);
    });
  });

  test("escaped slashes in the upstream's base64 go through as JSON the client decodes to the same image", async () => {
    const image = await noisePng(1024, 1024);
    const escaped = image.replaceAll("/", "\\/");
    assert.notEqual(escaped, image, "the test image has slashes to escape");
    const upstream = await fake((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      // The escape may fall on a chunk boundary: split right after a backslash.
      const cut = escaped.indexOf("\\", 1_500_000) + 1;
      response.write(`{"data":[{"b64_json":"${escaped.slice(0, cut)}`);
      setTimeout(() => response.end(`${escaped.slice(cut)}"}],"usage":{"input_tokens":3,"output_tokens":196}}`), 50);
    });
    await only(upstream, async () => {
      const result = await openai().images.generate({ model: "std-image-2", prompt: "escaped", size: "1024x1024", quality: "low" });
      assert.equal(result.data![0]!.b64_json, image);
      const url = await openai().images.generate({
        model: "std-image-2",
        prompt: "escaped",
        response_format: "url",
        size: "1024x1024",
        quality: "low",
      });
      assert.equal(url.data![0]!.url, `data:image/png;base64,${image}`);
    });
  });

  test("an upstream cut inside the image cuts the client's answer and charges nothing", async () => {
    const image = await noisePng(1024, 1024);
    const upstream = await fake((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write(`{"data":[{"b64_json":"${image.slice(0, 2_000_000)}`);
      setTimeout(() => response.destroy(), 50);
    });
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    await only(upstream, async () => {
      const answer = await generate(user.key, { model: "std-image-2", prompt: "cut", size: "1024x1024", quality: "low" });
      assert.equal(answer.status, 200, "the answer had started");
      assert.ok(answer.error, "the client sees the connection cut, not a complete answer");
      assert.throws(() => JSON.parse(answer.text));
      const rows = await ledgerRows(answer.headers["x-request-id"] as string);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, "error");
      assert.equal(rows[0].cost, 0);
      assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 5_000_000 });
    });
  });

  test("a client that leaves during the image is charged the image at the vendor's formula", async () => {
    const image = await noisePng(1024, 1024);
    const upstream = await fake((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write(`{"data":[{"b64_json":"${image.slice(0, 2_000_000)}`);
      setTimeout(() => response.end(`${image.slice(2_000_000)}"}],"usage":{"input_tokens":3,"output_tokens":196}}`), 1000);
    });
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    await only(upstream, async () => {
      const answer = await generate(user.key, { model: "std-image-2", prompt: "leaving", size: "1024x1024", quality: "low" }, (request) =>
        request.destroy(),
      );
      const requestId = answer.headers["x-request-id"] as string;
      let rows: any[] = [];
      for (let attempt = 0; attempt < 50 && !rows.length; attempt++) {
        await sleep(100);
        rows = await ledgerRows(requestId);
      }
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, "cancelled");
      assert.equal(rows[0].imageOutputTokens, imageOutputTokens(1024, 1024, "low"));
      assert.ok(rows[0].cost > 0);
      assert.deepEqual(await account(user.userId), { balance: 5_000_000 - rows[0].cost, quota: 5_000_000 - rows[0].cost });
    });
  });
});
