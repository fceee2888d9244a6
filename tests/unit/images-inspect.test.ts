import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { GatewayError } from "@/lib/platform/errors";
import { inspectImage, validateMask, type ImageInfo } from "@/lib/images/inspect";

let directory = "";

function blank(width: number, height: number, channels: 3 | 4) {
  return sharp({ create: { width, height, channels, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } });
}

before(async () => {
  directory = await mkdtemp(join(tmpdir(), "inspect-test-"));
  await writeFile(join(directory, "alpha.png"), await blank(64, 48, 4).png().toBuffer());
  await writeFile(join(directory, "opaque.png"), await blank(64, 48, 3).png().toBuffer());
  await writeFile(join(directory, "photo.jpeg"), await blank(32, 16, 3).jpeg().toBuffer());
  await writeFile(join(directory, "alpha.webp"), await blank(20, 30, 4).webp().toBuffer());
  await writeFile(join(directory, "anim.gif"), await blank(8, 8, 4).gif().toBuffer());
  await writeFile(join(directory, "notes.txt"), "not an image at all");
});

after(async () => {
  await rm(directory, { recursive: true, force: true });
});

test("reads format, dimensions and alpha of png, jpeg and webp", async () => {
  assert.deepEqual(await inspectImage(join(directory, "alpha.png")), { format: "png", width: 64, height: 48, hasAlpha: true });
  assert.deepEqual(await inspectImage(join(directory, "opaque.png")), { format: "png", width: 64, height: 48, hasAlpha: false });
  assert.deepEqual(await inspectImage(join(directory, "photo.jpeg")), { format: "jpeg", width: 32, height: 16, hasAlpha: false });
  assert.deepEqual(await inspectImage(join(directory, "alpha.webp")), { format: "webp", width: 20, height: 30, hasAlpha: true });
});

test("a file that is not an image is refused naming the field", async () => {
  await assert.rejects(
    inspectImage(join(directory, "notes.txt"), "image[]"),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.code === "invalid_request" &&
      error.param === "image[]" &&
      /'image\[\]'.*PNG, JPEG or WebP/.test(error.message),
  );
});

test("an image in another format is refused, saying which format it is", async () => {
  await assert.rejects(
    inspectImage(join(directory, "anim.gif"), "mask"),
    (error: unknown) =>
      error instanceof GatewayError && error.code === "invalid_request" && error.param === "mask" && /found gif/.test(error.message),
  );
});

test("the field defaults to image", async () => {
  await assert.rejects(
    inspectImage(join(directory, "notes.txt")),
    (error: unknown) => error instanceof GatewayError && error.param === "image",
  );
});

const FIRST: ImageInfo = { format: "png", width: 1024, height: 1024, hasAlpha: false };

function refusedWith(mask: ImageInfo, pattern: RegExp) {
  assert.throws(
    () => validateMask(FIRST, mask),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.code === "invalid_request" &&
      error.status === 400 &&
      error.param === "mask" &&
      pattern.test(error.message),
  );
}

test("a matching mask with alpha is accepted", () => {
  assert.doesNotThrow(() => validateMask(FIRST, { format: "png", width: 1024, height: 1024, hasAlpha: true }));
});

test("a mask in another format is refused", () => {
  refusedWith({ format: "webp", width: 1024, height: 1024, hasAlpha: true }, /same format.*image is png, the mask is webp/);
});

test("a mask of other dimensions is refused", () => {
  refusedWith({ format: "png", width: 1024, height: 1536, hasAlpha: true }, /same dimensions.*1024x1024.*1024x1536/);
});

test("a mask without an alpha channel is refused", () => {
  refusedWith({ format: "png", width: 1024, height: 1024, hasAlpha: false }, /alpha channel/);
});

test("rules are checked format first, then dimensions, then alpha", () => {
  refusedWith({ format: "jpeg", width: 10, height: 10, hasAlpha: false }, /same format/);
  refusedWith({ format: "png", width: 10, height: 10, hasAlpha: false }, /same dimensions/);
});

test("inspect and validate together on real files", async () => {
  const first = await inspectImage(join(directory, "opaque.png"));
  const mask = await inspectImage(join(directory, "alpha.png"), "mask");
  assert.doesNotThrow(() => validateMask(first, mask));
  const webpMask = await inspectImage(join(directory, "alpha.webp"), "mask");
  assert.throws(() => validateMask(first, webpMask), /same format/);
  assert.throws(() => validateMask(first, first), /alpha channel/);
});
