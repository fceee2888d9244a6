// The header read from an upload's first bytes (lib/images/head.ts) must say what sharp says of the whole file: the
// live edit path decides with the one what the stored path decides with the other (lib/images/inspect.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { MAX_HEAD_BYTES, readImageHead } from "@/lib/images/head";
import { infoFromHead } from "@/lib/images/inspect";

function noise(width: number, height: number, channels: 1 | 2 | 3 | 4) {
  const data = Buffer.alloc(width * height * channels);
  for (let index = 0; index < data.length; index++) data[index] = (index * 7919 + (index >> 5) * 31) % 251;
  return sharp(data, { raw: { width, height, channels } });
}

/** Every kind of file the three formats come as, including the ones where alpha is not in the colour type. */
async function samples(): Promise<[string, Buffer][]> {
  return [
    ["png rgb", await noise(300, 200, 3).png().toBuffer()],
    ["png rgba", await noise(300, 200, 4).png().toBuffer()],
    ["png grey", await noise(64, 48, 1).png().toBuffer()],
    ["png grey + alpha", await noise(64, 48, 2).png().toBuffer()],
    ["png palette", await noise(120, 80, 3).png({ palette: true }).toBuffer()],
    ["png palette + tRNS", await noise(120, 80, 4).png({ palette: true }).toBuffer()],
    ["png 16-bit", await noise(40, 30, 3).toColourspace("rgb16").png().toBuffer()],
    ["jpeg baseline", await noise(640, 480, 3).jpeg().toBuffer()],
    ["jpeg progressive", await noise(641, 479, 3).jpeg({ progressive: true }).toBuffer()],
    [
      "jpeg with exif",
      await noise(320, 240, 3)
        .jpeg()
        .withMetadata({ exif: { IFD0: { Copyright: "x".repeat(20_000) } } })
        .toBuffer(),
    ],
    ["jpeg grey", await noise(100, 50, 1).jpeg().toBuffer()],
    ["webp lossy", await noise(333, 222, 3).webp().toBuffer()],
    ["webp lossy + alpha", await noise(333, 222, 4).webp().toBuffer()],
    ["webp lossless", await noise(257, 129, 3).webp({ lossless: true }).toBuffer()],
    ["webp lossless + alpha", await noise(257, 129, 4).webp({ lossless: true }).toBuffer()],
    [
      "webp with exif",
      await noise(90, 60, 3)
        .webp()
        .withMetadata({ exif: { IFD0: { Copyright: "y" } } })
        .toBuffer(),
    ],
  ];
}

test("format, dimensions and alpha from the first bytes agree with sharp's reading of the whole file", async () => {
  for (const [name, file] of await samples()) {
    const metadata = await sharp(file).metadata();
    const expected = { format: metadata.format, width: metadata.width, height: metadata.height, hasAlpha: metadata.hasAlpha };
    assert.deepEqual(readImageHead(file, true), { info: expected }, name);
    // Fed as an upload arrives: "more" until the header is in, then the same answer.
    let answer = readImageHead(file.subarray(0, 0), false);
    let length = 0;
    while ("more" in answer) {
      length += 7;
      answer = readImageHead(file.subarray(0, length), length >= file.length);
    }
    assert.deepEqual(answer, { info: expected }, `${name}, read 7 bytes at a time`);
    assert.ok(length < 64 * 1024, `${name}: the header is in the first ${length} bytes`);
  }
});

test("what is no PNG, JPEG or WebP is refused with the messages of the stored path", async () => {
  const gif = await noise(20, 20, 3).gif().toBuffer();
  assert.throws(() => infoFromHead(readImageHead(gif, true), "mask"), {
    message: "The file in 'mask' must be a PNG, JPEG or WebP image (found gif).",
  });
  for (const [name, bytes] of [
    ["text", Buffer.from("just some notes about the picture, not the picture")],
    ["empty", Buffer.alloc(0)],
    ["a PNG cut inside its header", (await noise(30, 30, 3).png().toBuffer()).subarray(0, 20)],
    ["a JPEG cut before its frame header", (await noise(30, 30, 3).jpeg().toBuffer()).subarray(0, 100)],
  ] as const) {
    assert.throws(
      () => infoFromHead(readImageHead(Buffer.from(bytes), true), "image[]"),
      {
        message: "The file in 'image[]' is not a PNG, JPEG or WebP image.",
      },
      name,
    );
  }
  // A header that never comes: refused once MAX_HEAD_BYTES have arrived, not read forever.
  const endless = Buffer.concat([Buffer.from([0xff, 0xd8]), ...Array.from({ length: 80 }, () => app1Segment())]);
  assert.ok(endless.length >= MAX_HEAD_BYTES);
  assert.deepEqual(readImageHead(endless.subarray(0, MAX_HEAD_BYTES - 1), false), { more: true });
  assert.deepEqual(readImageHead(endless, false), { invalid: true });
});

/** A JPEG APP1 segment of the largest size (65,535 bytes with its length). */
function app1Segment(): Buffer {
  const segment = Buffer.alloc(2 + 65_535);
  segment[0] = 0xff;
  segment[1] = 0xe1;
  segment.writeUInt16BE(65_535, 2);
  return segment;
}
