// lib/wire/raw-json.ts: large base64 values are kept as the bytes received and written back unchanged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { isImageData, joinAroundRaw, parseWithRaw, RawString, stringifyAroundRaw } from "@/lib/wire/raw-json";

const b64 = (bytes: number) => randomBytes(bytes).toString("base64");
const roundTrip = (value: unknown) => {
  const { text, raws } = stringifyAroundRaw(value);
  return Buffer.concat(joinAroundRaw(text, raws)).toString("utf8");
};

test("an image field is cut out as bytes; the event reads and writes back as the same JSON", () => {
  const image = b64(30_000);
  const second = b64(20_000);
  const event = {
    type: "response.completed",
    note: 'a "result": here is only text, and so is \\u0001raw0\\u0001',
    kind: "result",
    response: { output: [{ type: "image_generation_call", result: image, size: "1024x1024" }, { result: second }, { result: "tiny" }] },
    partial_image_b64: image,
  };
  const data = Buffer.from(JSON.stringify(event));
  const parsed = parseWithRaw(data, ["partial_image_b64", "result"]) as any;
  assert.ok(parsed.partial_image_b64 instanceof RawString);
  assert.ok(parsed.response.output[0].result instanceof RawString);
  assert.ok(parsed.response.output[1].result instanceof RawString);
  assert.equal(parsed.response.output[2].result, "tiny", "a short value stays a string");
  assert.equal(parsed.kind, "result", "a value that looks like a key is not cut");
  assert.equal(parsed.note, event.note);
  assert.equal(parsed.response.output[0].size, "1024x1024");
  assert.equal(parsed.partial_image_b64.text(), image);
  assert.ok(Buffer.isBuffer(parsed.partial_image_b64.value) && parsed.partial_image_b64.value.buffer === data.buffer, "no copy");
  assert.equal(roundTrip(parsed), JSON.stringify(event));
  // Outside a serialisation that collects, a RawString is its text (a log line, a test's JSON.stringify).
  assert.equal(JSON.stringify(parsed), JSON.stringify(event));
  assert.ok(isImageData(parsed.partial_image_b64) && isImageData("x") && !isImageData("") && !isImageData(new RawString("")));
});

test("a value with an escape is left to the normal parse; text without image fields parses as JSON.parse does", () => {
  const escaped = `${b64(10_000)}\\/end`;
  const data = Buffer.from(`{"result":"${escaped}","n":1}`);
  const parsed = parseWithRaw(data, ["result"]) as any;
  assert.equal(typeof parsed.result, "string");
  assert.equal(parsed.result, JSON.parse(data.toString()).result);
  assert.deepEqual(parseWithRaw(Buffer.from('{"a":[1,{"b":"é"}]}'), ["result"]), { a: [1, { b: "é" }] });
  assert.throws(() => parseWithRaw(Buffer.from(`{"result":"${b64(10_000)}"`), ["result"]), SyntaxError);
});

test("strings put in as RawStrings are written as their bytes, in order", () => {
  const first = b64(5000);
  const value = { a: new RawString(first), b: [new RawString(Buffer.from("QUJD")), "plain"] };
  assert.equal(roundTrip(value), JSON.stringify({ a: first, b: ["QUJD", "plain"] }));
});

test("the same event split into pieces at any point parses to the same values, the images as the pieces received", () => {
  const image = b64(9000);
  const event = {
    type: "response.output_item.done",
    item: { id: "ig_1", type: "image_generation_call", result: image, revised_prompt: 'a "quoted" prompt with \\ and é' },
    partial_image_b64: `${b64(5000)}`,
    n: [1, 2.5, null, true],
  };
  const bytes = Buffer.from(JSON.stringify(event, null, 1));
  for (let cut = 1; cut < bytes.length; cut += 97) {
    for (const second of [cut + 1, cut + 13, cut + 4500]) {
      const pieces = [
        bytes.subarray(0, cut),
        bytes.subarray(cut, Math.min(second, bytes.length)),
        bytes.subarray(Math.min(second, bytes.length)),
      ];
      const parsed = parseWithRaw(pieces, ["partial_image_b64", "result"]) as any;
      assert.ok(parsed.item.result instanceof RawString, `cut at ${cut}/${second}`);
      assert.equal(parsed.item.result.text(), image);
      assert.equal(parsed.item.revised_prompt, event.item.revised_prompt);
      assert.equal(
        Buffer.concat(joinAroundRaw(...(Object.values(stringifyAroundRaw(parsed)) as [string, never]))).toString(),
        JSON.stringify(event),
      );
    }
  }
  assert.throws(() => parseWithRaw([bytes.subarray(0, 100), Buffer.from("\\"), bytes.subarray(100)], ["result"]), SyntaxError);
});
