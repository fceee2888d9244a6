// The image API's request rules (docs/api.md §2.1, §2.2) as pure functions: defaults, enums, what goes upstream, form
// fields, which files are images and which the mask, and what `size: auto` means for an edit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GatewayError } from "@/lib/platform/errors";
import { autoEditSize, fromFormFields, MAX_EDIT_IMAGES, parseImageOptions, sortEditFiles } from "@/lib/wire/image-request";

function refused(raw: Record<string, unknown>, param: string, message: RegExp) {
  assert.throws(
    () => parseImageOptions(raw),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError, String(error));
      assert.equal(error.code, "invalid_request");
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      assert.match(error.message, message);
      return true;
    },
  );
}

test("defaults of docs/api.md §2.1: size auto, quality auto, png, b64_json, moderation auto, the one image model", () => {
  const options = parseImageOptions({ prompt: "a lighthouse" });
  assert.equal(options.model, "std-image-2");
  assert.deepEqual(options.size, { width: 1024, height: 1024, auto: true });
  assert.equal(options.quality, "auto");
  assert.equal(options.outputFormat, "png");
  assert.equal(options.outputCompression, undefined);
  assert.equal(options.responseFormat, "b64_json");
  assert.equal(options.moderation, "auto");
  assert.deepEqual(options.upstreamFields, { prompt: "a lighthouse" });
});

test("null means the default, as the OpenAI SDK may send it", () => {
  const options = parseImageOptions({
    prompt: "p",
    model: null,
    size: null,
    quality: null,
    output_format: null,
    output_compression: null,
    response_format: null,
    moderation: null,
    background: null,
    stream: null,
  });
  assert.equal(options.quality, "auto");
  assert.equal(options.outputFormat, "png");
  assert.equal(options.responseFormat, "b64_json");
});

test("every allowed value of every enum is accepted", () => {
  for (const quality of ["low", "medium", "high", "auto"]) assert.equal(parseImageOptions({ prompt: "p", quality }).quality, quality);
  for (const format of ["png", "jpeg", "webp"])
    assert.equal(parseImageOptions({ prompt: "p", output_format: format }).outputFormat, format);
  for (const format of ["b64_json", "url"])
    assert.equal(parseImageOptions({ prompt: "p", response_format: format }).responseFormat, format);
  for (const level of ["auto", "low"]) assert.equal(parseImageOptions({ prompt: "p", moderation: level }).moderation, level);
  for (const background of ["auto", "opaque"])
    assert.equal(parseImageOptions({ prompt: "p", background }).upstreamFields.background, background);
});

test("unknown enum values and wrong types name the field and the allowed values", () => {
  refused({ prompt: "p", quality: "ultra" }, "quality", /^Invalid 'quality': must be one of 'low', 'medium', 'high', 'auto'; got 'ultra'$/);
  refused({ prompt: "p", quality: "standard" }, "quality", /got 'standard'/);
  refused({ prompt: "p", output_format: "gif" }, "output_format", /must be one of 'png', 'jpeg', 'webp'; got 'gif'/);
  refused({ prompt: "p", output_format: "jpg" }, "output_format", /got 'jpg'/);
  refused({ prompt: "p", response_format: "binary" }, "response_format", /'b64_json', 'url'/);
  refused({ prompt: "p", moderation: "none" }, "moderation", /must be one of 'auto', 'low'; got 'none'/);
  refused({ prompt: "p", background: "clear" }, "background", /'auto', 'opaque', 'transparent'/);
  refused({ prompt: "p", quality: 3 }, "quality", /got number 3/);
  refused({ prompt: "p", size: 1024 }, "size", /expected a string/);
  refused({ prompt: "p", stream: "yes" }, "stream", /must be true or false/);
  refused({ prompt: "p", model: 7 }, "model", /must be a string/);
});

test("prompt: required, a string, not blank, at most 32,000 characters", () => {
  refused({}, "prompt", /^Invalid 'prompt': is required/);
  refused({ prompt: 12 }, "prompt", /must be a string; got number 12/);
  refused({ prompt: "   " }, "prompt", /must not be empty/);
  refused({ prompt: "x".repeat(32_001) }, "prompt", /at most 32,000 characters/);
  assert.equal(parseImageOptions({ prompt: "x".repeat(32_000) }).prompt.length, 32_000);
});

test("output_compression: whole numbers 0 to 100; kept for jpeg and webp, dropped for png", () => {
  assert.equal(parseImageOptions({ prompt: "p", output_format: "jpeg", output_compression: 0 }).outputCompression, 0);
  assert.equal(parseImageOptions({ prompt: "p", output_format: "webp", output_compression: 100 }).outputCompression, 100);
  refused({ prompt: "p", output_compression: -1 }, "output_compression", /from 0 to 100; got number -1/);
  refused({ prompt: "p", output_compression: 101 }, "output_compression", /from 0 to 100; got number 101/);
  refused({ prompt: "p", output_compression: 50.5 }, "output_compression", /whole number/);
  refused({ prompt: "p", output_compression: "50" }, "output_compression", /whole number from 0 to 100; got '50'/);
  const png = parseImageOptions({ prompt: "p", output_compression: 40 });
  assert.equal(png.outputCompression, undefined, "takes effect only for jpeg and webp");
  assert.equal("output_compression" in png.upstreamFields, false);
});

test("background 'transparent' and stream: true are refused with their own message", () => {
  refused({ prompt: "p", background: "transparent" }, "background", /'transparent' is not supported/);
  refused({ prompt: "p", stream: true }, "stream", /streaming is not available on the image API/);
  assert.equal(parseImageOptions({ prompt: "p", stream: false }).prompt, "p");
});

test("only the image model is served; a text model is refused by name", () => {
  refused({ prompt: "p", model: "std-5.5" }, "model", /'std-5.5' is not an image model; the image API serves 'std-image-2'/);
  assert.equal(parseImageOptions({ prompt: "p", model: "std-image-2" }).model, "std-image-2");
});

test("size goes through the §8 rules and reaches the upstream normalised", () => {
  assert.deepEqual(parseImageOptions({ prompt: "p", size: "3840x2160" }).size, { width: 3840, height: 2160, auto: false });
  assert.equal(parseImageOptions({ prompt: "p", size: "1536X1024" }).upstreamFields.size, "1536x1024");
  assert.equal(parseImageOptions({ prompt: "p", size: "auto" }).upstreamFields.size, "auto");
  refused({ prompt: "p", size: "1000x1000" }, "size", /multiples of 16/);
});

test("n is ignored whatever it says; unknown fields (base_url, api_base) never reach upstreamFields", () => {
  const options = parseImageOptions({
    prompt: "p",
    n: 4,
    size: "1536x1024",
    quality: "high",
    output_format: "webp",
    output_compression: 30,
    moderation: "low",
    background: "opaque",
    user: "u-1",
    input_fidelity: "low",
    response_format: "url",
    base_url: "http://169.254.169.254/",
    api_base: "http://evil.example",
    headers: { authorization: "x" },
  });
  assert.deepEqual(options.upstreamFields, {
    prompt: "p",
    size: "1536x1024",
    quality: "high",
    output_format: "webp",
    output_compression: 30,
    moderation: "low",
    background: "opaque",
    user: "u-1",
  });
  parseImageOptions({ prompt: "p", n: "many" });
});

test("form fields: numbers and booleans are read as JSON would carry them, other text stays text", () => {
  assert.deepEqual(fromFormFields({ prompt: "p", output_compression: "80", n: "2", stream: "false", quality: "low" }), {
    prompt: "p",
    output_compression: 80,
    n: 2,
    stream: false,
    quality: "low",
  });
  assert.deepEqual(fromFormFields({ output_compression: "abc" }), { output_compression: "abc" });
  assert.throws(
    () => parseImageOptions(fromFormFields({ prompt: "p", output_format: "jpeg", output_compression: "abc" })),
    /whole number from 0 to 100; got 'abc'/,
  );
  assert.throws(
    () => parseImageOptions(fromFormFields({ prompt: "p", output_format: "jpeg", output_compression: "100.5" })),
    /whole number/,
  );
  assert.equal(parseImageOptions(fromFormFields({ prompt: "p", output_format: "jpeg", output_compression: "100" })).outputCompression, 100);
});

const file = (field: string, name = "a.png") => ({ field, filename: name, contentType: "image/png", path: `/tmp/${name}`, size: 1 });

test("edit files: image[] and image in order, at most one mask, nothing else", () => {
  const first = file("image[]", "1.png");
  const second = file("image", "2.png");
  const mask = file("mask", "m.png");
  assert.deepEqual(sortEditFiles({}, [first, mask, second]), { images: [first, second], mask });
  assert.deepEqual(sortEditFiles({}, [first]), { images: [first], mask: undefined });
  const error = (fields: Record<string, string>, files: ReturnType<typeof file>[], param: string, message: RegExp) =>
    assert.throws(
      () => sortEditFiles(fields, files),
      (thrown: unknown) =>
        thrown instanceof GatewayError && thrown.status === 400 && thrown.param === param && message.test(thrown.message),
    );
  error({}, [], "image[]", /upload at least one image/);
  error({}, [mask], "image[]", /upload at least one image/);
  error({}, [first, mask, mask], "mask", /at most one mask/);
  error({}, [first, file("photo")], "photo", /Unexpected file in the field 'photo'/);
  error(
    {},
    Array.from({ length: MAX_EDIT_IMAGES + 1 }, () => first),
    "image[]",
    /at most 16, got 17/,
  );
});

test("edit fields that carry an image as text or a URL are refused: the gateway fetches nothing", () => {
  for (const name of ["image", "image[]", "image_url", "images", "mask", "mask_url", "file_id", "image[0]"]) {
    assert.throws(
      () => sortEditFiles({ [name]: "https://169.254.169.254/latest/meta-data" }, [file("image[]")]),
      (error: unknown) => error instanceof GatewayError && error.param === name && /does not fetch image URLs/.test(error.message),
      name,
    );
  }
});

test("size auto for an edit follows the first image's shape", () => {
  assert.deepEqual(autoEditSize(800, 600), { width: 1536, height: 1024 });
  assert.deepEqual(autoEditSize(600, 800), { width: 1024, height: 1536 });
  assert.deepEqual(autoEditSize(1000, 900), { width: 1024, height: 1024 });
  assert.deepEqual(autoEditSize(1250, 1000), { width: 1536, height: 1024 });
  assert.deepEqual(autoEditSize(800, 1000), { width: 1024, height: 1536 });
});
