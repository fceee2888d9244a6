// Proves the Bedrock runtime fake's plain HTTP/1.1 port (tests/fakes/bedrock.ts `httpUrl`) the way the gateway will
// call it: fetch, signed with @smithy/signature-v4, reading the event-stream frames itself. Also proves each refusal
// of the SigV4 check (tests/fakes/bedrock-auth.ts) can fail a request: tampered body, expired date, no credentials.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { Sha256 } from "@aws-crypto/sha256-js";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { defaultCredentials, type FakeBedrock, startFakeBedrock } from "./bedrock.ts";
import { decodeFrames } from "./bedrock-wire.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const CONVERSE = { messages: [{ role: "user", content: [{ text: "Hello" }] }] };

let fake: FakeBedrock;

type SignOptions = { signedBody?: string; signingDate?: Date; applyChecksum?: boolean; secretAccessKey?: string };

/** Signs as a fetch-based gateway would (host header, path as sent) and posts; `signedBody` signs another body. */
async function signedPost(path: string, body: string, options: SignOptions = {}): Promise<Response> {
  const url = new URL(fake.httpUrl);
  const signer = new SignatureV4({
    service: "bedrock",
    region: fake.region,
    credentials: {
      accessKeyId: defaultCredentials.accessKeyId,
      secretAccessKey: options.secretAccessKey ?? defaultCredentials.secretAccessKey,
    },
    sha256: Sha256,
    applyChecksum: options.applyChecksum ?? true,
  });
  const signed = await signer.sign(
    new HttpRequest({
      method: "POST",
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path,
      headers: { host: url.host, "content-type": "application/json", accept: "application/json" },
      body: options.signedBody ?? body,
    }),
    { signingDate: options.signingDate ?? new Date() },
  );
  return fetch(`${fake.httpUrl}${path}`, { method: "POST", headers: signed.headers, body });
}

function lastReceived() {
  const received = fake.received.at(-1);
  assert.ok(received, "the fake received a request");
  return received;
}

before(async () => {
  fake = await startFakeBedrock();
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.answer = {};
  fake.queue = [];
  fake.received.length = 0;
});

describe("fake Bedrock runtime over plain HTTP/1.1 with fetch", () => {
  test("Converse signed over `host`, model id percent-encoded or raw: both accepted, the id recorded decoded", async () => {
    for (const path of [`/model/${encodeURIComponent(MODEL)}/converse`, `/model/${MODEL}/converse`]) {
      const response = await signedPost(path, JSON.stringify(CONVERSE));
      assert.equal(response.status, 200, await response.clone().text());
      const body = await response.json();
      assert.deepEqual(body.usage, { inputTokens: 1237, outputTokens: 389, totalTokens: 1626 });
      assert.equal(body.stopReason, "end_turn");
      const received = lastReceived();
      assert.equal(received.protocol, "http/1.1");
      assert.equal(received.path, path);
      assert.equal(received.modelId, MODEL);
      assert.ok(received.auth.ok && received.auth.signedHeaders?.includes("host"));
    }
  });

  test("ConverseStream frames read raw: event headers, Bedrock's order, usage in the final metadata frame", async () => {
    fake.answer = { text: "Bonjour tout le monde", usage: { input: 2113, output: 47, cacheWrite: 1029 } };
    const response = await signedPost(`/model/${encodeURIComponent(MODEL)}/converse-stream`, JSON.stringify(CONVERSE));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/vnd.amazon.eventstream");
    const frames = decodeFrames(new Uint8Array(await response.arrayBuffer()));
    assert.deepEqual(
      frames.map((frame) => frame.headers[":event-type"]),
      [
        "messageStart",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
      ],
    );
    assert.ok(frames.every((frame) => frame.headers[":message-type"] === "event"));
    const metadata = frames.at(-1)!.body as { usage: unknown };
    assert.deepEqual(metadata.usage, { inputTokens: 2113, outputTokens: 47, totalTokens: 3189, cacheWriteInputTokens: 1029 });
  });

  test("an Invoke stream's exception frame is typed by `:exception-type` and ends the stream", async () => {
    fake.answer = { streamException: { type: "throttlingException", afterEvents: 2 } };
    const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    const response = await signedPost(`/model/${encodeURIComponent(MODEL)}/invoke-with-response-stream`, body);
    const frames = decodeFrames(new Uint8Array(await response.arrayBuffer()));
    assert.equal(frames.length, 3);
    const chunk = frames[0].body as { bytes: string };
    assert.equal(JSON.parse(Buffer.from(chunk.bytes, "base64").toString("utf8")).type, "message_start");
    assert.deepEqual(frames[2].headers, {
      ":exception-type": "throttlingException",
      ":content-type": "application/json",
      ":message-type": "exception",
    });
    assert.deepEqual(frames[2].body, { message: "Too many requests, please wait before trying again." });
  });

  test("a stream cut over HTTP/1.1 fails the reader", async () => {
    fake.answer = { cutAfterEvents: 3 };
    const response = await signedPost(`/model/${encodeURIComponent(MODEL)}/converse-stream`, JSON.stringify(CONVERSE));
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const received: Uint8Array[] = [];
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received.push(value);
      }
    });
    const frames = decodeFrames(new Uint8Array(Buffer.concat(received)));
    assert.deepEqual(
      frames.map((frame) => frame.headers[":event-type"]),
      ["messageStart", "contentBlockDelta", "contentBlockDelta"],
    );
  });

  test("a body changed after signing is refused (signature mismatch, and the content hash when it is sent)", async () => {
    const sent = JSON.stringify(CONVERSE);
    const other = JSON.stringify({ messages: [{ role: "user", content: [{ text: "Something else" }] }] });
    const withoutHash = await signedPost(`/model/${MODEL}/converse`, sent, { signedBody: other, applyChecksum: false });
    assert.equal(withoutHash.status, 403);
    assert.equal(withoutHash.headers.get("x-amzn-errortype")?.split(":")[0], "InvalidSignatureException");
    assert.match((await withoutHash.json()).message, /The request signature we calculated does not match/);
    const withHash = await signedPost(`/model/${MODEL}/converse`, sent, { signedBody: other });
    assert.equal(withHash.status, 403);
    assert.match((await withHash.json()).message, /x-amz-content-sha256/);
  });

  test("a signature older than 15 minutes is refused as expired", async () => {
    const response = await signedPost(`/model/${MODEL}/converse`, JSON.stringify(CONVERSE), {
      signingDate: new Date(Date.now() - 16 * 60_000),
    });
    assert.equal(response.status, 403);
    assert.match((await response.json()).message, /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z/);
  });

  test("no credentials, an unknown operation, and a body that is not JSON each get Bedrock's answer", async () => {
    const anonymous = await fetch(`${fake.httpUrl}/model/${MODEL}/converse`, { method: "POST", body: JSON.stringify(CONVERSE) });
    assert.equal(anonymous.status, 403);
    assert.equal(anonymous.headers.get("x-amzn-errortype")?.split(":")[0], "MissingAuthenticationTokenException");
    assert.deepEqual(await anonymous.json(), { message: "Missing Authentication Token" });

    const unknown = await signedPost(`/model/${MODEL}/chat`, "{}");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("x-amzn-errortype")?.split(":")[0], "UnknownOperationException");

    const malformed = await signedPost(`/model/${MODEL}/invoke`, "not json");
    assert.equal(malformed.status, 400);
    assert.deepEqual(await malformed.json(), { message: "Malformed input request, please reformat your input and try again." });

    const noUser = await signedPost(`/model/${MODEL}/converse`, JSON.stringify({ messages: [] }));
    assert.equal(noUser.status, 400);
    assert.match((await noUser.json()).message, /A conversation must start with a user message/);
  });

  test("Invoke without usage: no usage in the body and no token-count headers", async () => {
    fake.answer = { usage: null };
    const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    const response = await signedPost(`/model/${MODEL}/invoke`, body);
    assert.equal(response.status, 200);
    assert.equal((await response.json()).usage, undefined);
    assert.equal(response.headers.get("x-amzn-bedrock-input-token-count"), null);
  });
});
