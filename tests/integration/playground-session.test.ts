// The portal's playground runs through the session (SECURITY.md): /api/user/playground/v1/… is the /v1 endpoint
// itself, authenticated by the cookie and billed through one server-side playground key per user with its own
// spending cap. No API key is ever sent to the browser.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

let gateway: Gateway;
let person: Awaited<ReturnType<typeof createUserWithKey>>;
let browser: Browser;

before(async () => {
  gateway = await startGateway({ portal: true });
  person = await createUserWithKey(gateway, { balance: 50_000_000 });
  browser = await signedIn(gateway.url, person.email, person.password);
});
after(stopAllGateways);

const chat = { model: "std-5.5", max_tokens: 16, messages: [{ role: "user", content: "Hello from the playground" }] };

async function balance(): Promise<number> {
  return (await browser.call("GET", "/api/user/self")).body.balance;
}

describe("the playground through the session", () => {
  test("chat, messages and images run with the cookie alone, billed through one playground key whose secret nobody sees", async () => {
    const before = await balance();
    const answer = await browser.call("POST", "/api/user/playground/v1/chat/completions", chat);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.object, "chat.completion");
    const requestId = answer.headers.get("x-request-id");

    const message = await browser.call(
      "POST",
      "/api/user/playground/v1/messages",
      { model: "msg-haiku-4-5-20251001", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] },
      { "anthropic-version": "2023-06-01" },
    );
    assert.equal(message.status, 200, JSON.stringify(message.body));
    assert.equal(message.body.type, "message");
    const image = await browser.call("POST", "/api/user/playground/v1/images/generations", {
      prompt: "a small boat",
      size: "1024x1024",
      quality: "low",
    });
    assert.equal(image.status, 200);
    assert.ok(image.body.data[0].b64_json.length > 100);

    const info = await browser.call("GET", "/api/user/playground");
    assert.equal(info.status, 200);
    const key = info.body.key;
    assert.ok(key?.prefix.startsWith("sk-"));
    assert.equal(key.cap, 2_000_000);
    assert.ok(key.remaining < key.cap, "the runs came out of the cap");
    assert.equal(JSON.stringify(info.body).match(/sk-[A-Za-z0-9]{20,}/), null, "no full key in the answer");

    const keys = (await browser.call("GET", "/api/user/keys")).body.data as { id: string; purpose: string | null; name: string }[];
    const playground = keys.filter((row) => row.purpose === "playground");
    assert.equal(playground.length, 1, "one playground key, reused by every run");
    assert.equal(playground[0]!.id, key.id);
    const usage = await browser.call("GET", "/api/user/usage?limit=10");
    const row = usage.body.data.find((entry: { requestId: string }) => entry.requestId === requestId);
    assert.equal(row.keyId, key.id, "the ledger row names the playground key");
    assert.equal(before - (await balance()), key.cap - key.remaining, "the balance paid exactly what the key's cap shows");
  });

  test("image edits go as multipart with the portal's header; without it, or from another origin, they are refused", async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: "#3366aa" } })
      .png()
      .toBuffer();
    const form = () => {
      const data = new FormData();
      data.append("prompt", "make it red");
      data.append("size", "1024x1024");
      data.append("quality", "low");
      data.append("image[]", new Blob([new Uint8Array(png)], { type: "image/png" }), "base.png");
      return data;
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/api/user/playground/v1/images/edits`, {
        method: "POST",
        headers: { cookie: browser.cookie, ...headers },
        body: form(),
      });
    const rows = async () => (await browser.call("GET", "/api/user/usage?limit=1")).body.total as number;
    const before = await rows();
    assert.equal((await post({})).status, 415, "a multipart POST without the header is what a hostile page could send");
    assert.equal((await post({ "x-gateway-portal": "1", origin: "http://evil.example" })).status, 403);
    assert.equal(await rows(), before, "refusals leave no ledger row");
    const edited = await post({ "x-gateway-portal": "1" });
    assert.equal(edited.status, 200, await edited.clone().text());
    assert.ok(((await edited.json()) as { data: { b64_json: string }[] }).data[0]!.b64_json.length > 100);
    const [row] = (await browser.call("GET", "/api/user/usage?limit=1")).body.data;
    assert.deepEqual([row.endpoint, row.status], ["/v1/images/edits", "success"], "billed like any edit");
  });

  test("speech as JSON and transcription as multipart with the portal's header, billed like any audio call", async () => {
    const spoken = await fetch(`${gateway.url}/api/user/playground/v1/audio/speech`, {
      method: "POST",
      headers: { cookie: browser.cookie, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-tts-1", input: "Hello there.", voice: "alloy", response_format: "wav" }),
    });
    assert.equal(spoken.status, 200, await spoken.clone().text());
    assert.equal(spoken.headers.get("content-type"), "audio/wav");
    const wav = new Uint8Array(await spoken.arrayBuffer());
    let [row] = (await browser.call("GET", "/api/user/usage?limit=1")).body.data;
    assert.deepEqual(
      [row.endpoint, row.status, row.cost, row.requestId],
      ["/v1/audio/speech", "success", 12 * 15, spoken.headers.get("x-request-id")],
    );

    const form = () => {
      const data = new FormData();
      data.append("model", "std-transcribe-1");
      data.append("file", new Blob([wav], { type: "audio/wav" }), "speech.wav");
      return data;
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/api/user/playground/v1/audio/transcriptions`, {
        method: "POST",
        headers: { cookie: browser.cookie, ...headers },
        body: form(),
      });
    const rows = async () => (await browser.call("GET", "/api/user/usage?limit=1")).body.total as number;
    const before = await rows();
    assert.equal((await post({})).status, 415, "a multipart POST without the header is what a hostile page could send");
    assert.equal((await post({ "x-gateway-portal": "1", origin: "http://evil.example" })).status, 403);
    assert.equal(await rows(), before, "refusals leave no ledger row");
    const heard = await post({ "x-gateway-portal": "1" });
    assert.equal(heard.status, 200, await heard.clone().text());
    // 12 characters at 60 ms each on the simulator.
    assert.deepEqual(await heard.json(), { text: "This is a simulated transcription of 0.72 seconds of audio." });
    [row] = (await browser.call("GET", "/api/user/usage?limit=1")).body.data;
    assert.deepEqual([row.endpoint, row.status, row.cost], ["/v1/audio/transcriptions", "success", 72]);
  });

  test("refused without a session, from another origin, or as a form; nothing is charged", async () => {
    const rows = async () => (await browser.call("GET", "/api/user/usage?limit=1")).body.total as number;
    const before = await rows();
    const anonymous = await fetch(`${gateway.url}/api/user/playground/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat),
    });
    assert.equal(anonymous.status, 401);
    assert.match((await anonymous.json()).error.message, /Sign in first/);
    const anonymousMessages = await fetch(`${gateway.url}/api/user/playground/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat),
    });
    assert.equal((await anonymousMessages.json()).type, "error", "the Messages dialect for /messages");
    const crossSite = await browser.call("POST", "/api/user/playground/v1/chat/completions", chat, { origin: "http://evil.example" });
    assert.equal(crossSite.status, 403);
    const form = await browser.call("POST", "/api/user/playground/v1/chat/completions", JSON.stringify(chat), {
      "content-type": "text/plain",
    });
    assert.equal(form.status, 415);
    const withKey = await fetch(`${gateway.url}/api/user/playground/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${person.key}`, "content-type": "application/json" },
      body: JSON.stringify(chat),
    });
    assert.equal(withKey.status, 401, "an API key is not a session");
    assert.equal(await rows(), before, "no ledger row for a refusal");
  });

  test("the cap stops the playground, not the account; Renew gives a fresh key with the full cap", async () => {
    const key = (await browser.call("GET", "/api/user/playground")).body.key;
    await gateway.admin("PATCH", `/api/admin/keys/${key.id}`, { quota: 1 });
    const refused = await browser.call("POST", "/api/user/playground/v1/chat/completions", chat);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "quota_exhausted");
    const direct = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${person.key}`, "content-type": "application/json" },
      body: JSON.stringify(chat),
    });
    assert.equal(direct.status, 200, "the account's own keys still work");

    const renewed = await browser.call("POST", "/api/user/playground/renew", {});
    assert.equal(renewed.status, 200);
    assert.notEqual(renewed.body.key.id, key.id);
    assert.equal(renewed.body.key.remaining, renewed.body.key.cap);
    assert.equal((await browser.call("POST", "/api/user/playground/v1/chat/completions", chat)).status, 200);
    const keys = (await browser.call("GET", "/api/user/keys")).body.data as { id: string; purpose: string | null }[];
    assert.deepEqual(
      keys.filter((row) => row.purpose === "playground").map((row) => row.id),
      [renewed.body.key.id],
      "the old one is gone",
    );
    const badGroup = await browser.call("POST", "/api/user/playground/renew", { group: "no-such-group" });
    assert.deepEqual([badGroup.status, badGroup.body.error.param], [400, "group"]);
  });

  test("a playground key revoked on the Keys page is replaced on the next run", async () => {
    const key = (await browser.call("GET", "/api/user/playground")).body.key;
    assert.equal((await browser.call("DELETE", `/api/user/keys/${key.id}`)).status, 200);
    assert.equal((await browser.call("POST", "/api/user/playground/v1/chat/completions", chat)).status, 200);
    const next = (await browser.call("GET", "/api/user/playground")).body.key;
    assert.notEqual(next.id, key.id);
  });
});
