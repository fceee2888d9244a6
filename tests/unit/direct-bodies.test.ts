// The pass-through paths for large bodies: an upstream image answer split around its base64 without copying it, and the
// gateway's own Response class that the production server writes part by part but that any other caller (Next.js
// in development, a test calling a handler) reads like a normal Response.
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitImageAnswer } from "@/lib/providers/images-api";
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

test("a DirectResponse's headers follow Headers: names in any case, the same checks and trimming, one value per name", () => {
  // Each case is a sequence of sets: the DirectResponse must end with the entries a Headers ends with, or throw where
  // it throws, whether the sets come before its Headers is made (the record) or after.
  const cases: [string, string][][] = [
    [["Content-Type", "application/json"]],
    [
      ["X-Request-Id", "a"],
      ["x-request-id", "b"],
    ],
    [["retry-after", "  7\t"]],
    [["x-trailing", "value\r\n"]],
    [["x-empty", ""]],
    [["bad name", "v"]],
    [["x-ok", "a\nb"]],
    [["x-ok", "a\0b"]],
    [["x-ok", "é"]],
    [["x-ok", "€"]],
    [["", "v"]],
    [
      ["x-ok", "1"],
      ["Cache-Control", "no-store"],
      ["X-OK", "2"],
    ],
  ];
  const outcome = (run: () => Headers) => {
    try {
      return [...run().entries()];
    } catch (error) {
      return error instanceof TypeError ? "TypeError" : String(error);
    }
  };
  for (const sets of cases) {
    const expected = outcome(() => {
      const headers = new Headers();
      for (const [name, value] of sets) headers.set(name, value);
      return headers;
    });
    // What the production server writes: the record, never turned into a Headers (so its checks must be its own).
    const viaRecord = outcome(() => {
      const response = new DirectResponse(["{}"], { status: 200 });
      for (const [name, value] of sets) response.setHeaders({ [name]: value });
      return new Map(Object.entries(response.headerRecord()).sort(([a], [b]) => (a < b ? -1 : 1))) as unknown as Headers;
    });
    const viaInit = outcome(() => new DirectResponse(["{}"], { headers: Object.fromEntries(sets) }).headers);
    const afterHeaders = outcome(() => {
      const response = new DirectResponse(["{}"], {});
      void response.headers;
      for (const [name, value] of sets) response.setHeaders({ [name]: value });
      return response.headers;
    });
    assert.deepEqual(viaRecord, expected, JSON.stringify(sets));
    assert.deepEqual(afterHeaders, expected, JSON.stringify(sets));
    // An init record holds one value per name as written; Headers would keep the last of names differing in case.
    if (new Set(sets.map(([name]) => name.toLowerCase())).size === sets.length) assert.deepEqual(viaInit, expected, JSON.stringify(sets));
  }
});

test("a DirectResponse's status, header lookups and the record the server writes agree with its Headers", async () => {
  const response = new DirectResponse(['{"a":1}'], { status: 429, statusText: "Too Many", headers: { "Retry-After": "3" } });
  assert.equal(response.status, 429);
  assert.equal(response.ok, false);
  assert.equal(response.statusText, "Too Many");
  assert.equal(response.header("retry-after"), "3");
  assert.equal(response.header("x-missing"), null);
  response.setHeaders({ "X-Request-Id": "req_1" });
  assert.deepEqual(response.headerRecord(), { "retry-after": "3", "x-request-id": "req_1" });
  // Made on demand; from then on the Headers is the one truth, set-cookie kept apart as the server needs it.
  response.headers.append("set-cookie", "a=1");
  response.headers.append("set-cookie", "b=2");
  response.setHeaders({ "retry-after": "4" });
  assert.equal(response.header("Retry-After"), "4");
  assert.deepEqual(response.headerRecord(), { "retry-after": "4", "x-request-id": "req_1", "set-cookie": ["a=1", "b=2"] });
  // A copy keeps every header, each set-cookie apart, and its own headers from then on.
  const twin = response.clone() as DirectResponse;
  assert.deepEqual(twin.headers.getSetCookie(), ["a=1", "b=2"]);
  twin.setHeaders({ "x-request-id": "req_2" });
  assert.equal(response.header("x-request-id"), "req_1");
  const plain = new DirectResponse(["{}"], { headers: { "X-A": "1" } });
  const plainTwin = plain.clone() as DirectResponse;
  plainTwin.setHeaders({ "x-a": "2" });
  assert.deepEqual([plain.header("x-a"), plainTwin.header("x-a"), plainTwin.status], ["1", "2", 200]);
  // What Next.js does with a route's answer: a new Response from it keeps its status and headers.
  const copy = new Response(response.body, response);
  assert.equal(copy.status, 429);
  assert.equal(copy.headers.get("x-request-id"), "req_1");
  assert.equal(await copy.text(), '{"a":1}');
  assert.ok(new DirectResponse([], { status: 204 }).ok);
  assert.throws(() => new DirectResponse([], { status: 600 }), RangeError);
  assert.throws(() => new DirectResponse([], { status: 199 }), RangeError);
});
