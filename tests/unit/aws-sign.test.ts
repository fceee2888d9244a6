// Bedrock authentication (lib/providers/aws-sign.ts) against the Bedrock runtime fake (tests/fakes/bedrock.ts), which
// re-computes the SigV4 signature over the exact request it received (tests/fakes/bedrock-auth.ts).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type AwsCredential,
  awsCredentialProblem,
  bedrockModelPath,
  parseAwsCredential,
  signBedrockRequest,
} from "@/lib/providers/aws-sign";
import { upstreamFetch } from "@/lib/providers/http";
import { singleton } from "@/lib/platform/singleton";
import { defaultCredentials, type FakeBedrock, startFakeBedrock } from "../fakes/bedrock.ts";
import { decodeFrames } from "../fakes/bedrock-wire.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const INVOKE = { anthropic_version: "bedrock-2023-05-31", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] };
const CONVERSE = { messages: [{ role: "user", content: [{ text: "Hello" }] }] };
const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDtestsessiontoken+/=";
const API_KEY = `ABSK${Buffer.from("BedrockAPIKey-tests-at-123456789012:c2VjcmV0").toString("base64")}`;

const sigv4: AwsCredential = {
  kind: "sigv4",
  accessKeyId: defaultCredentials.accessKeyId,
  secretAccessKey: defaultCredentials.secretAccessKey,
};

let fake: FakeBedrock;
/** Expects a session token, and takes an API key. */
let session: FakeBedrock;

before(async () => {
  fake = await startFakeBedrock();
  session = await startFakeBedrock({ sessionToken: SESSION_TOKEN, apiKey: API_KEY });
});
after(async () => {
  await fake.close();
  await session.close();
});

/** Signs as the adapters will (the path from bedrockModelPath, JSON headers) and posts with fetch. */
async function send(
  target: FakeBedrock,
  path: string,
  body: string | Buffer | Buffer[],
  credential: AwsCredential = sigv4,
  sent: string | Buffer = Array.isArray(body) ? Buffer.concat(body) : body,
): Promise<Response> {
  const url = `${target.httpUrl}${path}`;
  const headers = await signBedrockRequest({
    url,
    method: "POST",
    headers: { "Content-Type": "application/json", accept: "application/json" },
    body,
    credential,
    region: target.region,
  });
  return fetch(url, { method: "POST", headers, body: typeof sent === "string" ? sent : new Uint8Array(sent) });
}

function last(target: FakeBedrock) {
  const received = target.received.at(-1);
  assert.ok(received);
  return received;
}

describe("signBedrockRequest against the Bedrock fake", () => {
  test("Invoke and Converse: signed over host, x-amz-date and the body's hash; the model id's ':' sent as %3A", async () => {
    const invoke = await send(fake, bedrockModelPath(MODEL, "invoke"), JSON.stringify(INVOKE));
    assert.equal(invoke.status, 200, await invoke.clone().text());
    assert.equal((await invoke.json()).model, MODEL);
    const received = last(fake);
    assert.equal(received.path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
    assert.equal(received.modelId, MODEL);
    assert.ok(received.auth.ok && received.auth.method === "sigv4");
    assert.deepEqual(received.auth.ok && received.auth.signedHeaders, [
      "accept",
      "content-type",
      "host",
      "x-amz-content-sha256",
      "x-amz-date",
    ]);

    const converse = await send(fake, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE));
    assert.equal(converse.status, 200, await converse.clone().text());
    assert.equal((await converse.json()).stopReason, "end_turn");
  });

  test("a path with the ':' raw is signed as it is sent, and accepted too", async () => {
    const response = await send(fake, `/model/${MODEL}/converse`, JSON.stringify(CONVERSE));
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(last(fake).path, `/model/${MODEL}/converse`);
  });

  test("the streaming operations, sent with upstreamFetch (undici) as the adapters send them", async () => {
    for (const [operation, body] of [
      ["invoke-with-response-stream", INVOKE],
      ["converse-stream", CONVERSE],
    ] as const) {
      const url = `${fake.httpUrl}${bedrockModelPath(MODEL, operation)}`;
      const text = JSON.stringify(body);
      const headers = await signBedrockRequest({
        url,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/vnd.amazon.eventstream" },
        body: text,
        credential: sigv4,
        region: fake.region,
      });
      const result = await upstreamFetch(url, { method: "POST", headers, body: text }, { signal: new AbortController().signal });
      assert.ok(result.ok, result.ok ? "" : `${result.message} ${result.detail}`);
      assert.equal(result.response.headers.get("content-type"), "application/vnd.amazon.eventstream");
      const frames = decodeFrames(new Uint8Array(await result.response.arrayBuffer()));
      assert.ok(frames.length > 3);
      assert.equal(frames.at(-1)!.headers[":event-type"], operation === "converse-stream" ? "metadata" : "chunk");
    }
  });

  test("a body in slices is signed as the bytes it makes", async () => {
    const text = JSON.stringify(CONVERSE);
    const slices = [Buffer.from(text.slice(0, 10)), Buffer.from(text.slice(10, 25)), Buffer.from(text.slice(25))];
    const response = await send(fake, bedrockModelPath(MODEL, "converse"), slices);
    assert.equal(response.status, 200, await response.clone().text());
    const buffer = await send(fake, bedrockModelPath(MODEL, "converse"), Buffer.from(text));
    assert.equal(buffer.status, 200);
    // A large body in 64 KB slices, as jsonBody makes them (hashed slice by slice, the event loop let go between).
    const large = Buffer.from(JSON.stringify({ messages: [{ role: "user", content: [{ text: "ü".repeat(3_000_000) }] }] }));
    const sliced = Array.from({ length: Math.ceil(large.length / 65536) }, (_, index) =>
      large.subarray(index * 65536, (index + 1) * 65536),
    );
    const big = await send(fake, bedrockModelPath(MODEL, "converse"), sliced);
    assert.equal(big.status, 200, await big.clone().text());
  });

  test("a wrong secret, or a body changed after signing, is refused", async () => {
    const wrong = await send(fake, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE), {
      ...sigv4,
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYWRONGKEY",
    } as AwsCredential);
    assert.equal(wrong.status, 403);
    assert.equal(wrong.headers.get("x-amzn-errortype")?.split(":")[0], "InvalidSignatureException");
    assert.match((await wrong.json()).message, /signature we calculated does not match/);

    const changed = await send(
      fake,
      bedrockModelPath(MODEL, "converse"),
      JSON.stringify(CONVERSE),
      sigv4,
      JSON.stringify({ messages: [{ role: "user", content: [{ text: "Something else" }] }] }),
    );
    assert.equal(changed.status, 403);
  });

  test("a session credential sends its token, signed; without it the same key is refused", async () => {
    const credential = parseAwsCredential(`${defaultCredentials.accessKeyId}:${defaultCredentials.secretAccessKey}:${SESSION_TOKEN}`);
    assert.equal(credential.kind, "sigv4");
    const response = await send(session, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE), credential);
    assert.equal(response.status, 200, await response.clone().text());
    const received = last(session);
    assert.equal(received.headers["x-amz-security-token"], SESSION_TOKEN);
    assert.ok(received.auth.ok && received.auth.signedHeaders?.includes("x-amz-security-token"));

    const without = await send(session, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE), sigv4);
    assert.equal(without.status, 403);
    assert.equal(without.headers.get("x-amzn-errortype")?.split(":")[0], "UnrecognizedClientException");
  });

  test("a Bedrock API key goes as a Bearer token; another key is refused", async () => {
    const credential = parseAwsCredential(API_KEY);
    assert.deepEqual(credential, { kind: "apiKey", token: API_KEY });
    const headers = await signBedrockRequest({
      url: `${session.httpUrl}/model/x/converse`,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
      credential,
      region: "us-east-1",
    });
    assert.deepEqual(headers, { "content-type": "application/json", authorization: `Bearer ${API_KEY}` });
    const response = await send(session, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE), credential);
    assert.equal(response.status, 200, await response.clone().text());
    assert.ok(last(session).auth.ok && (last(session).auth as { method: string }).method === "bearer");
    const other = await send(session, bedrockModelPath(MODEL, "converse"), JSON.stringify(CONVERSE), parseAwsCredential("ABSKb3RoZXI="));
    assert.equal(other.status, 403);
  });

  test("one signer per credential and region, at most 256 kept", async () => {
    const signers = singleton("providers.aws-signers", () => new Map());
    for (let index = 0; index < 300; index++)
      await signBedrockRequest({
        url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse",
        method: "POST",
        headers: {},
        body: "{}",
        credential: { ...sigv4, secretAccessKey: `secret-${index}` } as AwsCredential,
        region: "us-east-1",
      });
    assert.equal(signers.size, 256);
  });
});

describe("parseAwsCredential and bedrockModelPath", () => {
  test("ACCESS_KEY_ID:SECRET[:SESSION_TOKEN] is an access key; anything else an API key", () => {
    assert.deepEqual(parseAwsCredential(" AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY \n"), {
      kind: "sigv4",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    });
    assert.deepEqual(parseAwsCredential("ASIAIOSFODNN7EXAMPLE:secret+/=:token/+="), {
      kind: "sigv4",
      accessKeyId: "ASIAIOSFODNN7EXAMPLE",
      secretAccessKey: "secret+/=",
      sessionToken: "token/+=",
    });
    assert.deepEqual(parseAwsCredential("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"), {
      kind: "apiKey",
      token: "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
    });
    assert.equal(parseAwsCredential("akiaiosfodnn7example:secret").kind, "apiKey");
    assert.equal(parseAwsCredential("AKIAIOSFODNN7EXAMPLE:").kind, "apiKey");
    assert.equal(parseAwsCredential("AKIAIOSFODNN7EXAMPLE:a:b:c").kind, "apiKey");
  });

  test("awsCredentialProblem says what a key should look like", () => {
    assert.equal(awsCredentialProblem("AKIAIOSFODNN7EXAMPLE:secret"), null);
    assert.equal(awsCredentialProblem(API_KEY), null);
    assert.equal(awsCredentialProblem("bedrock-api-key-abc"), null);
    assert.match(awsCredentialProblem("AKIAIOSFODNN7EXAMPLE:")!, /ACCESS_KEY_ID:SECRET_ACCESS_KEY/);
    assert.match(awsCredentialProblem("sk-ant-api03-abc")!, /starts with ABSK/);
    assert.match(awsCredentialProblem("ABSK abc")!, /no spaces/);
  });

  test("a model id is encoded as the AWS SDK encodes a path label", () => {
    assert.equal(
      bedrockModelPath("anthropic.claude-3-haiku-20240307-v1:0", "invoke"),
      "/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke",
    );
    assert.equal(bedrockModelPath("plain.model_id-1~x", "converse"), "/model/plain.model_id-1~x/converse");
    assert.equal(
      bedrockModelPath("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude(x)", "converse-stream"),
      "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude%28x%29/converse-stream",
    );
  });
});
