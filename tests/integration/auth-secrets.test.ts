// No full key in logs, bodies or usage rows; injection strings reach the database only as values; request bodies
// cannot redirect the upstream; no URL a caller supplies is ever fetched.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey } from "../helpers/gateway";
import { chatCompletion, sendJson } from "../helpers/fake-upstream";
import { gateway, keys, png, fake, bearer } from "../helpers/auth-security-setup";

// ------------------------------------------------------------------------------------ no secret leaves the gateway

describe("a key's full value appears nowhere but in the answer that created it", () => {
  test("logs (at debug level), error bodies, usage rows and the operator's lists carry at most the display prefix", async () => {
    const user = await createUserWithKey(gateway, { balance: 1_000_000, quota: 200 });
    // An upstream that refuses the request (a 400 is passed on, not failed over to the simulator).
    const failing = await fake((_request, response) => sendJson(response, 400, { error: { message: "upstream refused it" } }));
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "failing",
      type: "openai",
      baseUrl: `${failing.url}/v1`,
      apiKey: "upstream-secret-value-123",
      models: ["msg-opus-4-6"],
      priority: 500,
    });
    const bodies: string[] = [];
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      bodies.push(await response.text());
      return response.status;
    };
    try {
      // A success, a refusal for quota, a refusal for the model, an upstream failure, a wrong scheme, a topup try.
      assert.equal(
        await post(
          "/v1/messages",
          { "x-api-key": user.key },
          { model: "msg-haiku-4-5-20251001", max_tokens: 1, messages: [{ role: "user", content: "a" }] },
        ),
        200,
      );
      assert.equal(
        await post("/v1/chat/completions", bearer(user.key), {
          model: "std-5.5",
          max_tokens: 1000,
          messages: [{ role: "user", content: "a" }],
        }),
        403,
      );
      assert.equal(
        await post("/v1/chat/completions", bearer(user.key), { model: "no-such-model", messages: [{ role: "user", content: "a" }] }),
        404,
      );
      await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { quota: 1_000_000 });
      assert.equal(
        await post("/v1/chat/completions", bearer(user.key), {
          model: "msg-opus-4-6",
          max_tokens: 5,
          messages: [{ role: "user", content: "a" }],
        }),
        400,
      );
      assert.equal(
        await post("/v1/messages", bearer(user.key), { model: "msg-opus-4-6", max_tokens: 5, messages: [{ role: "user", content: "a" }] }),
        401,
      );
      assert.equal(await post("/api/user/topup", bearer(user.key), { key: "GW-NOT-A-REAL-CODE" }), 400);
      await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { status: "disabled" });
      assert.equal(
        await post("/v1/chat/completions", bearer(user.key), { model: "std-5.5", messages: [{ role: "user", content: "a" }] }),
        401,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const prefix = user.key.slice(0, 10);
      const secretPart = user.key.slice(10);
      for (const body of bodies) assert.equal(body.includes(secretPart), false, `an answer holds the key: ${body.slice(0, 200)}`);
      const output = gateway.output();
      assert.match(output, /"level":"debug"|"level":"info"/, "the log was on");
      assert.equal(output.includes(secretPart), false, "the log never holds the full key");
      assert.equal(output.includes("upstream-secret-value-123"), false, "nor an upstream's key");
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${user.keyId}&limit=100`)).data as { keyPrefix: string }[];
      assert.ok(rows.length >= 2);
      for (const row of rows) assert.equal(row.keyPrefix, prefix);
      assert.equal(JSON.stringify(rows).includes(secretPart), false, "usage rows hold the prefix only");
      const lists = JSON.stringify([
        await gateway.admin("GET", "/api/admin/keys"),
        await gateway.admin("GET", "/api/admin/channels"),
        await gateway.admin("GET", "/api/admin/users"),
      ]);
      assert.equal(lists.includes(secretPart), false);
      assert.equal(lists.includes("upstream-secret-value-123"), false);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
  });
});

// ----------------------------------------------------------------------------------------- queries and injection

describe("injection strings in every parameter reach the database only as values", () => {
  test("operator filters, a redeem code, reset and sign-up emails: answers as for any unknown value, other rows never leak", async () => {
    const injections = ["' OR '1'='1", "' OR 1=1--", '" OR ""="', '1; DROP TABLE "UsageLog";--', "%' OR '%'='", "\\' OR 1=1 #"];
    const before = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.length;
    assert.ok(before > 0, "there are rows that a working injection would return");
    for (const value of injections) {
      for (const filter of ["userId", "keyId", "model", "requestId", "kind"]) {
        const rows = (await gateway.admin("GET", `/api/admin/usage?${filter}=${encodeURIComponent(value)}`)).data;
        assert.deepEqual(rows, [], `${filter}=${value}`);
      }
      assert.deepEqual((await gateway.admin("GET", `/api/admin/keys?userId=${encodeURIComponent(value)}`)).data, []);
      assert.deepEqual((await gateway.admin("GET", `/api/admin/redeem-codes?batch=${encodeURIComponent(value)}`)).data, []);
      assert.deepEqual((await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(value)}`)).data, []);
      const topup = await fetch(`${gateway.url}/api/user/topup`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ key: value }),
      });
      assert.ok([400, 429].includes(topup.status), `topup ${value}: ${topup.status}`);
      const reset = await fetch(`${gateway.url}/api/user/reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "someone@example.com", token: value, password: "a-new-password-123" }),
      });
      assert.equal(reset.status, 400);
    }
    // The tables are all still there and whole.
    assert.ok((await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.length >= before);
    assert.equal(
      (
        await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { ...bearer(keys.valid!), "content-type": "application/json" },
          body: JSON.stringify({ model: "std-5.5", max_tokens: 4, messages: [{ role: "user", content: "' OR 1=1--" }] }),
        })
      ).status,
      200,
    );
  });
});

// ------------------------------------------------------------------------------------- the upstream is not for callers

describe("request bodies cannot choose where the gateway connects", () => {
  test("base_url, api_base and similar fields are ignored: the channel's upstream is called, a decoy never", async () => {
    const decoy = await fake((_request, response) => sendJson(response, 200, chatCompletion("decoy", "m")));
    const real = await fake((request, response) => {
      if (request.path.includes("/images/"))
        sendJson(response, 200, {
          created: 1,
          data: [{ b64_json: png.toString("base64") }],
          usage: { input_tokens: 5, output_tokens: 196 },
        });
      else sendJson(response, 200, chatCompletion("real", "m"));
    });
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "the real one",
      type: "openai",
      baseUrl: `${real.url}/v1`,
      apiKey: "x",
      models: ["std-5.5", "std-image-2"],
      priority: 500,
    });
    try {
      const redirect = {
        base_url: `${decoy.url}/v1`,
        api_base: `${decoy.url}/v1`,
        baseURL: `${decoy.url}/v1`,
        baseUrl: `${decoy.url}/v1`,
        endpoint: `${decoy.url}/v1/chat/completions`,
        url: decoy.url,
      };
      const chatAnswer = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }], ...redirect }),
      });
      assert.equal(chatAnswer.status, 200);
      assert.equal((await chatAnswer.json()).choices[0].message.content, "real");
      const image = await fetch(`${gateway.url}/v1/images/generations`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ model: "std-image-2", prompt: "a kite", size: "1024x1024", quality: "low", ...redirect }),
      });
      assert.equal(image.status, 200, await image.clone().text());
      assert.equal(real.received.length, 2);
      assert.equal(decoy.received.length, 0, "the decoy was never called");
      // The image upstream gets the fields the gateway knows, nothing else.
      const sent = real.received.find((request) => request.path.includes("/images/"))!.body;
      for (const field of Object.keys(redirect)) assert.equal(field in sent, false, `${field} is not forwarded to the image upstream`);
      // A header cannot do it either.
      const viaHeader = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          ...bearer(keys.valid!),
          "content-type": "application/json",
          "x-upstream-url": decoy.url,
          "x-forwarded-host": new URL(decoy.url).host,
          host: new URL(decoy.url).host,
        },
        body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(viaHeader.status, 200);
      assert.equal(decoy.received.length, 0);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
  });
});

describe("the gateway fetches no URL a caller supplies", () => {
  test("image URLs in Responses input, edit fields and chat content, in every form (loopback, numeric, IPv6-mapped, redirects): never fetched", async () => {
    const decoy = await fake((_request, response) => {
      // If anything ever fetched from here, it would get a redirect to another loopback address.
      response.writeHead(302, { location: "http://127.0.0.1:9/next" }).end();
    });
    const port = new URL(decoy.url).port;
    const urls = [
      `http://127.0.0.1:${port}/cat.png`,
      `http://2130706433:${port}/cat.png`, // 127.0.0.1 as one number
      `http://0x7f000001:${port}/cat.png`,
      `http://[::ffff:127.0.0.1]:${port}/cat.png`,
      `http://localhost:${port}/cat.png`,
      `http://169.254.169.254/latest/meta-data/`,
      `https://127.0.0.1:${port}/redirect-me`,
    ];
    for (const url of urls) {
      const responses = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({
          model: "std-5.5",
          stream: true,
          instructions: "edit",
          input: [
            {
              role: "user",
              content: [
                { type: "input_text", text: "edit" },
                { type: "input_image", image_url: url },
              ],
            },
          ],
          tools: [{ type: "image_generation" }],
        }),
      });
      assert.equal(responses.status, 400, url);
      assert.match((await responses.json()).error.message, /does not fetch image URLs|data URI/);
      const form = new FormData();
      form.append("prompt", "edit it");
      form.append("image_url", url);
      form.append("image", url);
      const edit = await fetch(`${gateway.url}/v1/images/edits`, { method: "POST", headers: bearer(keys.valid!), body: form });
      assert.equal(edit.status, 400, url);
      // Chat content with an image link is the upstream's to fetch (here the simulator, which fetches nothing).
      const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({
          model: "std-5.5",
          max_tokens: 8,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "what is this" },
                { type: "image_url", image_url: { url } },
              ],
            },
          ],
        }),
      });
      assert.equal(chat.status, 200);
    }
    // An upstream that answers with an image link, or with a redirect to the decoy: neither is followed.
    const linking = await fake((request, response) => {
      if (request.path.includes("generations"))
        sendJson(response, 200, { created: 1, data: [{ url: `http://2130706433:${port}/generated.png` }] });
      else response.writeHead(307, { location: `${decoy.url}/v1/chat/completions` }).end();
    });
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "linking",
      type: "openai",
      baseUrl: `${linking.url}/v1`,
      apiKey: "x",
      models: ["std-image-2", "msg-opus-4-6"],
      priority: 500,
    });
    try {
      const image = await fetch(`${gateway.url}/v1/images/generations`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ prompt: "a kite", size: "1024x1024", quality: "low" }),
      });
      const imageBody = await image.json();
      // The simulator (lower priority) may serve it after the link was refused; either way the link was not fetched.
      assert.ok(image.status === 200 || image.status === 502, JSON.stringify(imageBody));
      const redirected = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...bearer(keys.valid!), "content-type": "application/json" },
        body: JSON.stringify({ model: "msg-opus-4-6", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
      await redirected.arrayBuffer();
      assert.equal(linking.received.length, 2);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel.id}`);
    }
    assert.equal(decoy.received.length, 0, "nothing was ever fetched from a caller's or an upstream's URL");
  });
});
