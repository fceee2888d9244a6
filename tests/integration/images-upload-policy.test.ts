// Image API: the 50 MB upload limit through the HTTP endpoint, with the gateway's memory measured, and the content policy.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import OpenAI from "openai";
import { DEFAULT_MODERATION_TERMS } from "@/lib/moderation/policy";
import { createUserWithKey } from "../helpers/gateway";
import {
  MB,
  LIMIT,
  gateway,
  key,
  openai,
  ledgerRows,
  account,
  decode,
  postJson,
  postForm,
  png,
  paddedPng,
  memory,
  resetPeak,
  expectError,
} from "../helpers/images-setup";

describe("the 50 MB upload limit, through the HTTP endpoint", () => {
  test("a file of exactly 50 MB is accepted and edited; one byte more is refused with 413", async () => {
    const exact = await paddedPng(LIMIT);
    const ok = await postForm([
      ["prompt", "exactly the limit"],
      ["quality", "low"],
      ["image[]", exact, "exact.png", "image/png"],
    ]);
    const body = await ok.json();
    assert.equal(ok.status, 200, JSON.stringify(body));
    assert.deepEqual(await decode(body.data[0].b64_json), { format: "png", width: 1536, height: 1024 });

    const over = await paddedPng(LIMIT + 1);
    const refused = await postForm([
      ["prompt", "one byte over"],
      ["image[]", over, "over.png", "image/png"],
    ]);
    const requestId = await expectError(
      refused,
      413,
      "file_too_large",
      "image[]",
      /^File for field 'image\[\]' is larger than the 50 MB limit$/,
    );
    assert.deepEqual(await ledgerRows(requestId), []);
    const mask = await postForm([
      ["prompt", "mask over"],
      ["image[]", await png(512, 512), "a.png"],
      ["mask", over, "mask.png", "image/png"],
    ]);
    await expectError(mask, 413, "file_too_large", "mask", /File for field 'mask' is larger than the 50 MB limit/);
  });

  test("a 200 MB upload is refused while it streams: the client reads the 413, the gateway's memory stays flat", async (context) => {
    const pid = gateway.process.pid!;
    // Warm up the endpoint so first-use allocations are not counted.
    await postForm([
      ["prompt", "warm-up"],
      ["image[]", Buffer.from("x"), "x.png"],
    ]);
    const before = memory(pid);
    const peakReset = resetPeak(pid);
    const boundary = "----gateway-limit-test";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nhuge\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const total = 200 * MB;
    let sampledPeak = before.rss;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memory(pid).rss)), 10);
    const started = performance.now();
    const result = await new Promise<{ status: number; text: string; sent: number; error?: string }>((resolve) => {
      let sent = 0;
      let status = 0;
      let text = "";
      const request = http.request(`${gateway.url}/v1/images/edits`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      request.on("response", (response) => {
        status = response.statusCode!;
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => {
          request.destroy();
          resolve({ status, text, sent });
        });
      });
      request.on("error", (error) => resolve({ status, text, sent, error: error.message }));
      request.write(head);
      const chunk = Buffer.alloc(256 * 1024, 0x5a);
      const pump = () => {
        while (sent < total && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once("drain", pump);
        }
        if (!request.destroyed) request.end(`\r\n--${boundary}--\r\n`);
      };
      pump();
    });
    const elapsed = performance.now() - started;
    clearInterval(sampler);
    const afterwards = memory(pid);
    const peakGrowth = Math.max(peakReset ? afterwards.peak : 0, sampledPeak) - before.rss;
    context.diagnostic(
      `refused after the client sent ${(result.sent / MB).toFixed(1)} MB of ${total / MB} in ${elapsed.toFixed(0)} ms; gateway RSS ${before.rss.toFixed(1)} MB before, ` +
        `peak +${peakGrowth.toFixed(1)} MB (${peakReset ? "VmHWM after a reset, and " : ""}VmRSS sampled every 10 ms), ${afterwards.rss.toFixed(1)} MB after`,
    );
    assert.equal(result.status, 413, `the client read the answer (${result.error ?? "no error"})`);
    const body = JSON.parse(result.text);
    assert.deepEqual(body.error, {
      message: "File for field 'image[]' is larger than the 50 MB limit",
      type: "invalid_request_error",
      code: "file_too_large",
      param: "image[]",
    });
    assert.ok(result.sent < 120 * MB, `the upload was cut, not read to its end (${(result.sent / MB).toFixed(1)} MB sent)`);
    assert.ok(peakGrowth < 40, `the gateway's peak memory grew by ${peakGrowth.toFixed(1)} MB for a 200 MB upload`);
    // The gateway is still healthy afterwards.
    const after = await openai().images.generate({ model: "std-image-2", prompt: "still alive", size: "1024x1024", quality: "low" });
    assert.equal(after.data!.length, 1);
  });
});

// ---------------------------------------------------------------------------------------------------- content policy

describe("content policy", () => {
  test("defaults: auto refuses what low lets through; a refused prompt costs nothing and leaves no ledger row", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const gory = { model: "std-image-2", prompt: "a gory battle scene", size: "1024x1024", quality: "low" } as const;
    const refused = await postJson("/v1/images/generations", gory, user.key);
    const requestId = await expectError(
      refused,
      400,
      "content_policy_violation",
      "prompt",
      /refused by the content policy \(moderation 'auto'\): it contains the blocked term 'gory'\. Nothing was charged\./,
    );
    assert.deepEqual(await ledgerRows(requestId), []);
    assert.deepEqual(await account(user.userId), { balance: 5_000_000, quota: 5_000_000 });
    const allowed = await postJson("/v1/images/generations", { ...gory, moderation: "low" }, user.key);
    assert.equal(allowed.status, 200, "moderation=low filters less strictly");
    const always = await postJson("/v1/images/generations", { ...gory, prompt: "child porn", moderation: "low" }, user.key);
    await expectError(always, 400, "content_policy_violation", "prompt", /moderation 'low'/);
    // Edits are filtered the same way, before anything is charged.
    const edit = await postForm(
      [
        ["prompt", "make it GORY"],
        ["image[]", await png(512, 512), "a.png"],
      ],
      user.key,
    );
    await expectError(edit, 400, "content_policy_violation", "prompt", /blocked term 'gory'/);
    // Through the SDK, the error is a BadRequestError with the policy code.
    await assert.rejects(
      openai(user.key).images.generate(gory),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.code === "content_policy_violation",
    );
  });

  test("the operator configures the terms per level: GET, POST, reset; changes apply at once", async () => {
    const initial = await gateway.admin("GET", "/api/admin/moderation");
    assert.deepEqual(initial.auto, [...DEFAULT_MODERATION_TERMS.auto]);
    assert.deepEqual(initial.low, [...DEFAULT_MODERATION_TERMS.low]);
    assert.equal(initial.customised, false);
    const dragon = { model: "std-image-2", prompt: "a red Dragon over the sea", size: "1024x1024", quality: "low" };
    try {
      const saved = await gateway.admin("POST", "/api/admin/moderation", { auto: ["dragon*", " dragon* "] });
      assert.deepEqual(saved.auto, ["dragon*"]);
      assert.deepEqual(saved.low, [...DEFAULT_MODERATION_TERMS.low], "a level left out is kept");
      assert.equal(saved.customised, true);
      await expectError(await postJson("/v1/images/generations", dragon), 400, "content_policy_violation", "prompt", /'dragon\*'/);
      assert.equal((await postJson("/v1/images/generations", { ...dragon, moderation: "low" })).status, 200);
      assert.equal(
        (await postJson("/v1/images/generations", { ...dragon, prompt: "a gory scene" })).status,
        200,
        "the old auto list was replaced",
      );
      await gateway.admin("POST", "/api/admin/moderation", { low: ["dragon"] });
      await expectError(
        await postJson("/v1/images/generations", { ...dragon, moderation: "low" }),
        400,
        "content_policy_violation",
        "prompt",
        /moderation 'low'.*'dragon'/,
      );

      const bad = async (body: unknown, message: RegExp) => {
        const response = await fetch(`${gateway.url}/api/admin/moderation`, {
          method: "POST",
          headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 400);
        assert.match((await response.json()).error.message, message);
      };
      await bad({ auto: "dragon" }, /must be an array of strings/);
      await bad({ auto: ["!!!"] }, /at least one letter or digit/);
      await bad({ high: ["x"] }, /unknown field\(s\): high/);
      await bad({}, /Nothing to change/);
      await bad({ reset: true, auto: ["x"] }, /either 'reset: true' or new lists/);
      const forbidden = await fetch(`${gateway.url}/api/admin/moderation`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(forbidden.status, 403, "an API key cannot read or change the policy");
    } finally {
      const reset = await gateway.admin("POST", "/api/admin/moderation", { reset: true });
      assert.equal(reset.customised, false);
    }
    assert.equal((await postJson("/v1/images/generations", dragon)).status, 200);
    await expectError(
      await postJson("/v1/images/generations", { ...dragon, prompt: "a gory scene" }),
      400,
      "content_policy_violation",
      "prompt",
      /'gory'/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------- fake upstream
