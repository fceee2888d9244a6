// Image API: every validation rule over HTTP answers 400 in the OpenAI dialect, naming the field, and costs nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import sharp from "sharp";
import { createUserWithKey } from "../helpers/gateway";
import {
  MB,
  gateway,
  ledgerRows,
  ledgerFor,
  account,
  decode,
  postJson,
  type Part,
  postForm,
  solid,
  png,
  halfMask,
  expectError,
} from "../helpers/images-setup";

describe("validation: every rule answers 400 in the OpenAI dialect, naming the field, and costs nothing", () => {
  let user: Awaited<ReturnType<typeof createUserWithKey>>;
  const requestIds: string[] = [];
  before(async () => {
    user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  });
  after(async () => {
    for (const requestId of requestIds) assert.deepEqual(await ledgerRows(requestId), [], `no ledger row for refused ${requestId}`);
    const state = await account(user.userId);
    assert.equal(state.balance, 50_000_000 - spentByValidUser);
    assert.equal(state.quota, 50_000_000 - spentByValidUser);
  });
  let spentByValidUser = 0;

  async function generateOk(body: Record<string, unknown>) {
    const response = await postJson(
      "/v1/images/generations",
      { model: "std-image-2", prompt: "validation", quality: "low", ...body },
      user.key,
    );
    const text = await response.text();
    assert.equal(response.status, 200, text);
    spentByValidUser += (await ledgerFor(response.headers.get("x-request-id")!)).cost;
    return JSON.parse(text);
  }

  async function generateRefused(
    body: Record<string, unknown> | string,
    param: string | null,
    message: RegExp,
    code = "invalid_request",
    status = 400,
  ) {
    const full = typeof body === "string" ? body : { model: "std-image-2", prompt: "validation", ...body };
    requestIds.push(await expectError(await postJson("/v1/images/generations", full, user.key), status, code, param, message));
  }

  const validSizes: [size: string | null, width: number, height: number, why: string][] = [
    ["auto", 1024, 1024, "auto"],
    [null, 1024, 1024, "null is the default, auto"],
    ["1024x640", 1024, 640, "exactly the minimum of 655,360 pixels"],
    ["3840x1280", 3840, 1280, "exactly 3:1, longest side exactly 3840"],
    ["1280x3840", 1280, 3840, "exactly 1:3, portrait"],
    ["2560x1440", 2560, 1440, "the largest size that is not experimental"],
    ["2576x1440", 2576, 1440, "just above 2560x1440: experimental but allowed"],
    ["2160x3840", 2160, 3840, "exactly the maximum of 8,294,400 pixels"],
    ["1024X1024", 1024, 1024, "an upper-case X"],
    ["16x16".replace("16x16", "1024x1024"), 1024, 1024, "a common size"],
  ];
  for (const [size, width, height, why] of validSizes) {
    test(`size ${size} is served (${why})`, async () => {
      const result = await generateOk(size === null ? { size: null } : { size });
      assert.deepEqual(await decode(result.data[0].b64_json), { format: "png", width, height });
    });
  }

  const invalidSizes: [size: unknown, message: RegExp][] = [
    ["3856x2160", /the longest side must be at most 3840 px \(got 3856\)/],
    ["2160x3856", /the longest side must be at most 3840 px \(got 3856\)/],
    ["1000x1000", /width and height must both be multiples of 16 px/],
    ["1024x1000", /multiples of 16 px/],
    ["3840x1264", /the long side may be at most 3 times the short side \(3:1\)/],
    ["1264x3840", /at most 3 times the short side/],
    ["1008x640", /total pixels must be at least 655,360 \(got 645,120\)/],
    ["3840x2176", /total pixels must be at most 8,294,400 \(got 8,355,840\)/],
    ["0x1024", /width and height must be greater than 0/],
    ["1024", /use 'auto' or WIDTHxHEIGHT/],
    ["1024x", /use 'auto' or WIDTHxHEIGHT/],
    [" 1024x1024", /use 'auto' or WIDTHxHEIGHT/],
    ["1024x1024px", /use 'auto' or WIDTHxHEIGHT/],
    ["-1024x1024", /use 'auto' or WIDTHxHEIGHT/],
    ["AUTO", /use 'auto' or WIDTHxHEIGHT/],
    [1024, /expected a string/],
    [["1024x1024"], /expected a string/],
  ];
  for (const [size, message] of invalidSizes) {
    test(`size ${JSON.stringify(size)} is refused: ${message.source.slice(0, 60)}`, async () => {
      await generateRefused({ size }, "size", message);
    });
  }

  test("every quality, output format, response format, moderation level and background value is served", async () => {
    for (const quality of ["low", "medium", "high", "auto"]) {
      const result = await generateOk({ quality, size: "1024x1024" });
      assert.equal(result.quality, quality === "auto" ? "medium" : quality);
    }
    for (const format of ["png", "jpeg", "webp"]) {
      const result = await generateOk({ output_format: format });
      assert.equal((await decode(result.data[0].b64_json)).format, format);
    }
    const url = await generateOk({ response_format: "url", output_format: "jpeg" });
    assert.match(url.data[0].url, /^data:image\/jpeg;base64,/);
    assert.equal((await generateOk({ response_format: "b64_json" })).data[0].url, undefined);
    for (const moderation of ["auto", "low"]) await generateOk({ moderation });
    for (const background of ["auto", "opaque"]) assert.equal((await generateOk({ background })).background, "opaque");
  });

  const invalidFields: [body: Record<string, unknown>, param: string, message: RegExp][] = [
    [{ quality: "ultra" }, "quality", /^Invalid 'quality': must be one of 'low', 'medium', 'high', 'auto'; got 'ultra'$/],
    [{ quality: "standard" }, "quality", /got 'standard'/],
    [{ quality: "" }, "quality", /got ''/],
    [{ quality: 2 }, "quality", /got number 2/],
    [{ output_format: "gif" }, "output_format", /must be one of 'png', 'jpeg', 'webp'; got 'gif'/],
    [{ output_format: "jpg" }, "output_format", /got 'jpg'/],
    [{ output_format: "PNG" }, "output_format", /got 'PNG'/],
    [{ response_format: "binary" }, "response_format", /must be one of 'b64_json', 'url'; got 'binary'/],
    [{ moderation: "none" }, "moderation", /must be one of 'auto', 'low'; got 'none'/],
    [{ moderation: "high" }, "moderation", /got 'high'/],
    [{ background: "transparent" }, "background", /'transparent' is not supported; this model cannot produce transparent backgrounds/],
    [{ background: "clear" }, "background", /must be one of 'auto', 'opaque', 'transparent'/],
    [{ output_format: "jpeg", output_compression: -1 }, "output_compression", /from 0 to 100; got number -1/],
    [{ output_format: "jpeg", output_compression: 101 }, "output_compression", /from 0 to 100; got number 101/],
    [{ output_format: "webp", output_compression: 50.5 }, "output_compression", /whole number from 0 to 100/],
    [{ output_format: "webp", output_compression: "50" }, "output_compression", /whole number from 0 to 100; got '50'/],
    [{ prompt: undefined }, "prompt", /^Invalid 'prompt': is required/],
    [{ prompt: "  " }, "prompt", /must not be empty/],
    [{ prompt: 42 }, "prompt", /must be a string; got number 42/],
    [{ prompt: "x".repeat(32_001) }, "prompt", /at most 32,000 characters/],
    [{ model: "std-5.5" }, "model", /'std-5.5' is not an image model; the image API serves 'std-image-2'/],
    [{ model: 5 }, "model", /must be a string/],
    [{ stream: true }, "stream", /streaming is not available on the image API/],
    [{ stream: "yes" }, "stream", /must be true or false/],
    [{ user: 7 }, "user", /must be a string/],
    [{ input_fidelity: "max" }, "input_fidelity", /must be one of 'low', 'high'/],
  ];
  for (const [body, param, message] of invalidFields) {
    test(`${JSON.stringify(body).slice(0, 70)} is refused`, async () => {
      await generateRefused(body, param, message);
    });
  }

  test("output_compression: 0 and 100 are the bounds for jpeg and webp (100 keeps the best quality, as the vendor means it); png ignores it", async () => {
    for (const format of ["jpeg", "webp"]) {
      const largest = await generateOk({ output_format: format, output_compression: 100 });
      const smallest = await generateOk({ output_format: format, output_compression: 0 });
      assert.equal((await decode(largest.data[0].b64_json)).format, format);
      assert.ok(
        smallest.data[0].b64_json.length < largest.data[0].b64_json.length / 2,
        `${format}: compression 0 is much smaller than 100`,
      );
    }
    const plain = await generateOk({ output_format: "png" });
    const compressed = await generateOk({ output_format: "png", output_compression: 90 });
    assert.equal(compressed.data[0].b64_json, plain.data[0].b64_json, "takes effect only for jpeg and webp");
  });

  test("bodies that are not a JSON object, and multipart sent to generations", async () => {
    await generateRefused("{not json", null, /not valid JSON/, "invalid_json");
    await generateRefused("[1,2]", null, /must be a JSON object/, "invalid_json");
    await generateRefused("", null, /it was empty/, "invalid_json");
    const form = new FormData();
    form.append("prompt", "p");
    const response = await fetch(`${gateway.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}` },
      body: form,
    });
    requestIds.push(await expectError(response, 400, "invalid_request", null, /takes a JSON body .* use POST \/v1\/images\/edits/));
  });

  test("a body over 1 MB is refused with 413; the client reads the answer and the connection stays usable", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string) =>
      new Promise<{ status: number; text: string; requestId: string }>((resolve, reject) => {
        const request = http.request(
          `${gateway.url}/v1/images/generations`,
          {
            method: "POST",
            agent,
            headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (response) => {
            let text = "";
            response.on("data", (chunk) => (text += chunk));
            response.on("end", () => resolve({ status: response.statusCode!, text, requestId: String(response.headers["x-request-id"]) }));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    try {
      const big = await send(JSON.stringify({ prompt: "p", padding: "x".repeat(2 * MB) }));
      assert.equal(big.status, 413, big.text);
      assert.match(JSON.parse(big.text).error.message, /larger than the 1 MB limit/);
      requestIds.push(big.requestId);
      const small = await send(JSON.stringify({ prompt: "p", size: "7x7" }));
      assert.equal(small.status, 400, "the next request on the same connection is answered");
      requestIds.push(small.requestId);
    } finally {
      agent.destroy();
    }
  });

  // ------------------------------------------------------------------------------------------- edits

  async function editRefused(parts: Part[], status: number, code: string, param: string | null, message: RegExp) {
    requestIds.push(await expectError(await postForm(parts, user.key), status, code, param, message));
  }

  test("mask mismatches: format, dimensions, missing alpha", async () => {
    const image = await png(800, 600);
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png", "image/png"],
        ["mask", await halfMask(800, 600, "webp"), "m.webp", "image/webp"],
      ],
      400,
      "invalid_request",
      "mask",
      /^The mask must have the same format as the first image: the image is png, the mask is webp\.$/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", await solid(800, 600, "#123456").jpeg().toBuffer(), "a.jpg", "image/jpeg"],
        ["mask", await halfMask(800, 600), "m.png", "image/png"],
      ],
      400,
      "invalid_request",
      "mask",
      /the image is jpeg, the mask is png/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png", "image/png"],
        ["mask", await halfMask(400, 300), "m.png", "image/png"],
      ],
      400,
      "invalid_request",
      "mask",
      /^The mask must have the same dimensions as the first image: the image is 800x600, the mask is 400x300\.$/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png", "image/png"],
        ["mask", await png(800, 600, "#000000"), "m.png", "image/png"],
      ],
      400,
      "invalid_request",
      "mask",
      /^The mask must have an alpha channel/,
    );
    // The mask applies to the first image: a second image of another size does not matter.
    const ok = await postForm(
      [
        ["prompt", "p"],
        ["quality", "low"],
        ["image[]", image, "a.png", "image/png"],
        ["image[]", await png(300, 500), "b.png", "image/png"],
        ["mask", await halfMask(800, 600), "m.png", "image/png"],
      ],
      user.key,
    );
    assert.equal(ok.status, 200, await ok.clone().text());
    spentByValidUser += (await ledgerFor(ok.headers.get("x-request-id")!)).cost;
  });

  test("edit files and fields: missing, not images, URL inputs, unknown fields, too many", async () => {
    const image = await png(512, 512);
    await editRefused([["prompt", "p"]], 400, "invalid_request", "image[]", /Missing 'image\[\]': upload at least one image file/);
    await editRefused(
      [
        ["prompt", "p"],
        ["mask", await halfMask(512, 512), "m.png", "image/png"],
      ],
      400,
      "invalid_request",
      "image[]",
      /upload at least one image/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", Buffer.from("hello, not an image"), "a.png", "image/png"],
      ],
      400,
      "invalid_request",
      "image[]",
      /The file in 'image\[\]' is not a PNG, JPEG or WebP image/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", Buffer.alloc(0), "empty.png", "image/png"],
      ],
      400,
      "invalid_request",
      "image[]",
      /not a PNG, JPEG or WebP image/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", await solid(64, 64, "#fff").gif().toBuffer(), "a.gif", "image/gif"],
      ],
      400,
      "invalid_request",
      "image[]",
      /must be a PNG, JPEG or WebP image \(found gif\)/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png"],
        ["image[]", Buffer.from("junk"), "b.png"],
      ],
      400,
      "invalid_request",
      "image[]",
      /'image\[\]' \(image 2 of 2\) is not a PNG/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image", "https://169.254.169.254/latest/meta-data/"],
      ],
      400,
      "invalid_request",
      "image",
      /the gateway does not fetch image URLs/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png"],
        ["image_url", "http://127.0.0.1:1/x.png"],
      ],
      400,
      "invalid_request",
      "image_url",
      /does not fetch image URLs/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png"],
        ["mask", "data:image/png;base64,AAAA"],
      ],
      400,
      "invalid_request",
      "mask",
      /does not fetch image URLs/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png"],
        ["photo", image, "b.png"],
      ],
      400,
      "invalid_request",
      "photo",
      /Unexpected file in the field 'photo'/,
    );
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", image, "a.png"],
        ["mask", await halfMask(512, 512), "m.png"],
        ["mask", await halfMask(512, 512), "n.png"],
      ],
      400,
      "invalid_request",
      "mask",
      /at most one mask/,
    );
    await editRefused(
      [["prompt", "p"], ...Array.from({ length: 18 }, (): Part => ["image[]", image, "a.png"])],
      400,
      "invalid_request",
      null,
      /Too many files: at most 17 per request/,
    );
    await editRefused(
      [["prompt", "p"], ...Array.from({ length: 17 }, (): Part => ["image[]", image, "a.png"])],
      400,
      "invalid_request",
      "image[]",
      /at most 16, got 17/,
    );
    await editRefused([["image[]", image, "a.png"]], 400, "invalid_request", "prompt", /is required/);
  });

  test("edit options follow the same rules as generations (form fields)", async () => {
    const image = await png(512, 512);
    const edit = (fields: Part[]) => [["prompt", "p"] as Part, ["image[]", image, "a.png"] as Part, ...fields];
    await editRefused(
      edit([
        ["output_format", "jpeg"],
        ["output_compression", "abc"],
      ]),
      400,
      "invalid_request",
      "output_compression",
      /whole number from 0 to 100; got 'abc'/,
    );
    await editRefused(
      edit([
        ["output_format", "jpeg"],
        ["output_compression", "101"],
      ]),
      400,
      "invalid_request",
      "output_compression",
      /got number 101/,
    );
    await editRefused(
      edit([
        ["output_format", "webp"],
        ["output_compression", "-1"],
      ]),
      400,
      "invalid_request",
      "output_compression",
      /got number -1/,
    );
    await editRefused(edit([["quality", "ultra"]]), 400, "invalid_request", "quality", /got 'ultra'/);
    await editRefused(edit([["size", "1000x1000"]]), 400, "invalid_request", "size", /multiples of 16/);
    await editRefused(edit([["size", "4096x2304"]]), 400, "invalid_request", "size", /longest side must be at most 3840/);
    await editRefused(edit([["background", "transparent"]]), 400, "invalid_request", "background", /'transparent' is not supported/);
    await editRefused(edit([["response_format", "binary"]]), 400, "invalid_request", "response_format", /got 'binary'/);
    await editRefused(edit([["moderation", "off"]]), 400, "invalid_request", "moderation", /got 'off'/);
    await editRefused(edit([["stream", "true"]]), 400, "invalid_request", "stream", /streaming is not available/);
    const json = await fetch(`${gateway.url}/v1/images/edits`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "p", images: [{ image_url: "http://169.254.169.254/" }] }),
    });
    requestIds.push(
      await expectError(json, 400, "invalid_request", null, /takes multipart\/form-data .* image URLs and file ids are not accepted/),
    );
    for (const [compression, format] of [
      ["0", "jpeg"],
      ["100", "webp"],
    ]) {
      const ok = await postForm(
        edit([
          ["output_format", format!],
          ["output_compression", compression!],
          ["quality", "low"],
          ["size", "1024x1024"],
        ]),
        user.key,
      );
      const body = await ok.json();
      assert.equal(ok.status, 200, JSON.stringify(body));
      assert.deepEqual(await decode(body.data[0].b64_json), { format, width: 1024, height: 1024 });
      spentByValidUser += (await ledgerFor(ok.headers.get("x-request-id")!)).cost;
    }
  });

  test("an input image of more than 8192x8192 pixels is refused before it is decoded", async () => {
    // A tiny PNG header claiming 10000x10000: only the header is read.
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: "#000" } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    await editRefused(
      [
        ["prompt", "p"],
        ["image[]", bomb, "bomb.png"],
      ],
      400,
      "invalid_request",
      "image[]",
      /is 10000x10000: input images may have at most 67,108,864 pixels/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------- 50 MB
