// The pass-through paths of issue 9: an upstream image answer split around its base64 without copying it, and the
// gateway's own Response class that the production server writes part by part but that any other caller (Next.js
// in development, a test calling a handler) reads like a normal Response.
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitImageAnswer } from "@/lib/providers/openai/images";
import { DirectResponse, textResponse } from "@/lib/platform/http/direct-body";

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

test("an image answer is split around its base64: the image is a slice of the bytes read, the rest parsed", () => {
  const raw = Buffer.from(
    `{"created":1,"data":[ { "b64_json" : "${PNG_B64}", "revised_prompt":"a \\"b64_json\\": trap"}],"usage":{"input_tokens":5}}`,
  );
  const split = splitImageAnswer(raw);
  assert.ok(split);
  assert.equal(split.b64.toString("latin1"), PNG_B64);
  assert.equal(split.b64.buffer, raw.buffer, "the image is not copied");
  assert.deepEqual(split.rest, { created: 1, data: [{ b64_json: "", revised_prompt: 'a "b64_json": trap' }], usage: { input_tokens: 5 } });
});

test("answers the split cannot take as they are are left to the full parse", () => {
  // An escaped slash inside the value (some JSON writers escape '/'), a data URI instead of b64_json, a look-alike
  // key that is not the first item's image, and something that is not JSON.
  assert.equal(splitImageAnswer(Buffer.from(`{"data":[{"b64_json":"ab\\/cd"}]}`)), null);
  assert.equal(splitImageAnswer(Buffer.from(`{"data":[{"url":"data:image/png;base64,${PNG_B64}"}]}`)), null);
  assert.equal(splitImageAnswer(Buffer.from(`{"meta":{"b64_json":"x"},"data":[{"b64_json":"${PNG_B64}"}]}`)), null);
  assert.equal(splitImageAnswer(Buffer.from(`{"data":[{"b64_json":"${PNG_B64}"`)), null);
});

test("a DirectResponse reads like a normal Response: text, json, bytes, the body stream, clone; a body is read once", async () => {
  const parts = ['{"data":[{"b64_json":"', Buffer.from(PNG_B64), '"}]}'];
  const response = new DirectResponse(parts, { status: 201, headers: { "content-type": "application/json" } });
  assert.ok(response instanceof Response);
  assert.equal(response.status, 201);
  assert.equal(response.byteLength(), Buffer.byteLength(`{"data":[{"b64_json":"${PNG_B64}"}]}`));
  assert.deepEqual(await response.clone().json(), { data: [{ b64_json: PNG_B64 }] });
  assert.equal(await new Response(response.clone().body).text(), `{"data":[{"b64_json":"${PNG_B64}"}]}`);
  assert.equal(Buffer.from(await response.clone().arrayBuffer()).toString(), `{"data":[{"b64_json":"${PNG_B64}"}]}`);
  assert.equal(await response.text(), `{"data":[{"b64_json":"${PNG_B64}"}]}`);
  assert.equal(response.bodyUsed, true);
  await assert.rejects(response.text(), TypeError);

  const text = textResponse("é", 400, { "content-type": "text/plain" });
  assert.equal(await text.text(), "é");
  const streamed = textResponse("é", 400, {});
  assert.equal(await new Response(streamed.body).text(), "é");
  await assert.rejects(streamed.text(), TypeError, "a body streamed out cannot be read again");
});

test("a streamed DirectResponse read as a Web stream: pieces in order; cancelling tells the waiting part at once, and the parts not reached", async () => {
  const returned: string[] = [];
  /** A part whose second piece never comes (a quiet upstream): only return() ends it. */
  const waiting = (name: string): AsyncIterableIterator<string> => {
    let sent = false;
    let wake: (result: IteratorResult<string, undefined>) => void = () => undefined;
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next() {
        if (!sent) {
          sent = true;
          return Promise.resolve({ done: false, value: `${name}:first` });
        }
        return new Promise((resolve) => (wake = resolve));
      },
      async return() {
        returned.push(name);
        wake({ done: true, value: undefined });
        return { done: true, value: undefined };
      },
    };
  };
  const response = new DirectResponse(["head;", waiting("a"), waiting("b")], { status: 200, headers: {} });
  assert.equal(response.byteLength(), null);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  assert.equal(decoder.decode((await reader.read()).value), "head;");
  assert.equal(decoder.decode((await reader.read()).value), "a:first");
  const pending = reader.read();
  await new Promise((resolve) => setTimeout(resolve, 20));
  await reader.cancel();
  assert.deepEqual(returned, ["a", "b"], "the part waiting for its next piece and the one not reached were both ended");
  assert.equal((await pending).done, true);
});
