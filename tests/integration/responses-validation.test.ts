// Responses API: every validation rule pinned (status, message, nothing charged).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type OpenAI from "openai";
import sharp from "sharp";
import { DEFAULT_MODERATION_TERMS } from "@/lib/moderation/policy";
import { createUserWithKey } from "../helpers/gateway";
import { gateway, ledgerRows, account, client, ask } from "../helpers/responses-setup";

describe("validation: status, message, nothing charged", () => {
  const base = () => ask("A lighthouse", { quality: "low" }) as Record<string, any>;
  const without = (field: string) => {
    const body = base();
    delete body[field];
    return body;
  };
  const withTool = (fields: Record<string, unknown>) => ({ ...base(), tools: [{ type: "image_generation", ...fields }] });
  const withPart = (part: Record<string, unknown>) => ({
    ...base(),
    input: [{ role: "user", content: [{ type: "input_text", text: "Edit this" }, part] }],
  });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  type Case = { name: string; body: unknown | (() => Promise<unknown>); status?: number; message: string | RegExp; param?: string | null };
  const cases: Case[] = [
    { name: "instructions missing", body: without("instructions"), message: "Instructions are required", param: "instructions" },
    { name: "instructions empty", body: { ...base(), instructions: "  " }, message: "Instructions are required", param: "instructions" },
    {
      name: "instructions not a string",
      body: { ...base(), instructions: 5 },
      message: "Invalid 'instructions': must be a string; got number 5",
      param: "instructions",
    },
    { name: "input a plain string", body: { ...base(), input: "A lighthouse" }, message: "Input must be a list", param: "input" },
    {
      name: "input an object",
      body: { ...base(), input: { role: "user", content: "x" } },
      message: "Input must be a list",
      param: "input",
    },
    { name: "input missing", body: without("input"), message: "Input must be a list", param: "input" },
    { name: "input empty", body: { ...base(), input: [] }, message: "Invalid 'input': must hold at least one message", param: "input" },
    { name: "stream missing", body: without("stream"), message: /^Streaming is required: set 'stream' to true/, param: "stream" },
    { name: "stream false", body: { ...base(), stream: false }, message: /^Streaming is required: set 'stream' to true/, param: "stream" },
    {
      name: "n sent",
      body: { ...base(), n: 3 },
      message: /^'n' is not available on \/v1\/responses: ask for several images in the prompt instead/,
      param: "n",
    },
    {
      name: "previous_response_id sent",
      body: { ...base(), previous_response_id: "resp_123" },
      message: /^'previous_response_id' is not available on this endpoint/,
      param: "previous_response_id",
    },
    {
      name: "action edit with no image",
      body: withTool({ action: "edit" }),
      message: /^action 'edit' needs an image to edit: add an input_image/,
      param: "tools[0].action",
    },
    { name: "model missing", body: without("model"), message: "Invalid 'model': is required; use 'std-5.5'", param: "model" },
    {
      name: "model is the image model",
      body: { ...base(), model: "std-image-2" },
      message: /^Invalid 'model': \/v1\/responses serves the text model 'std-5.5'; got 'std-image-2' \('std-image-2' is the image model/,
      param: "model",
    },
    // Without the image tool (no tools, or function tools) the request is served as text: tests/clients/responses-text.test.ts.
    {
      name: "a tool of another kind",
      body: { ...base(), tools: [{ type: "web_search" }] },
      message: /^Invalid 'tools\[0\]': this endpoint offers function tools/,
      param: "tools[0]",
    },
    {
      name: "an image tool beside another",
      body: { ...base(), tools: [{ type: "image_generation" }, { type: "function", name: "x" }] },
      message: "Invalid 'tools[1].type': only 'image_generation' tools are available on this endpoint; got 'function'",
      param: "tools[1].type",
    },
    {
      name: "two image tools",
      body: { ...base(), tools: [{ type: "image_generation" }, { type: "image_generation" }] },
      message: "Invalid 'tools': send one tool of type 'image_generation'",
      param: "tools",
    },
    {
      name: "unknown quality",
      body: withTool({ quality: "ultra" }),
      message: "Invalid 'tools[0].quality': must be one of 'low', 'medium', 'high', 'auto'; got 'ultra'",
      param: "tools[0].quality",
    },
    {
      name: "size not a multiple of 16",
      body: withTool({ size: "1000x1000" }),
      message: "Invalid 'tools[0].size': '1000x1000' width and height must both be multiples of 16 px.",
      param: "tools[0].size",
    },
    {
      name: "size over 3840",
      body: withTool({ size: "4096x2048" }),
      message: /^Invalid 'tools\[0\]\.size': '4096x2048' the longest side must be at most 3840 px/,
      param: "tools[0].size",
    },
    {
      name: "size too few pixels",
      body: withTool({ size: "512x512" }),
      message: /^Invalid 'tools\[0\]\.size': '512x512' total pixels must be at least 655,360/,
      param: "tools[0].size",
    },
    {
      name: "size ratio over 3:1",
      body: withTool({ size: "3840x1024" }),
      message: /^Invalid 'tools\[0\]\.size': '3840x1024' the long side may be at most 3 times the short side/,
      param: "tools[0].size",
    },
    {
      name: "size a number",
      body: withTool({ size: 1024 }),
      message: "Invalid 'tools[0].size': must be a string such as 'auto' or '1024x1024'; got number 1024",
      param: "tools[0].size",
    },
    {
      name: "unknown output_format",
      body: withTool({ output_format: "gif" }),
      message: "Invalid 'tools[0].output_format': must be one of 'png', 'jpeg', 'webp'; got 'gif'",
      param: "tools[0].output_format",
    },
    {
      name: "output_compression over 100",
      body: withTool({ output_format: "jpeg", output_compression: 101 }),
      message: "Invalid 'tools[0].output_compression': must be from 0 to 100; got number 101",
      param: "tools[0].output_compression",
    },
    {
      name: "output_compression a string",
      body: withTool({ output_compression: "high" }),
      message: "Invalid 'tools[0].output_compression': must be a whole number from 0 to 100; got 'high'",
      param: "tools[0].output_compression",
    },
    {
      name: "unknown moderation",
      body: withTool({ moderation: "strict" }),
      message: "Invalid 'tools[0].moderation': must be one of 'auto', 'low'; got 'strict'",
      param: "tools[0].moderation",
    },
    {
      name: "unknown action",
      body: withTool({ action: "paint" }),
      message: "Invalid 'tools[0].action': must be one of 'auto', 'generate', 'edit'; got 'paint'",
      param: "tools[0].action",
    },
    {
      name: "transparent background",
      body: withTool({ background: "transparent" }),
      message: /^Invalid 'tools\[0\]\.background': 'transparent' is not supported/,
      param: "tools[0].background",
    },
    {
      name: "partial_images over 3",
      body: withTool({ partial_images: 5 }),
      message: "Invalid 'tools[0].partial_images': must be from 0 to 3; got number 5",
      param: "tools[0].partial_images",
    },
    {
      name: "another image model in the tool",
      body: withTool({ model: "gpt-image-1" }),
      message: "Invalid 'tools[0].model': the image tool runs 'std-image-2'; got 'gpt-image-1'",
      param: "tools[0].model",
    },
    {
      name: "input role unknown",
      body: { ...base(), input: [{ role: "robot", content: "x" }] },
      message: "Invalid 'input[0].role': must be one of 'user', 'assistant', 'system', 'developer'; got 'robot'",
      param: "input[0].role",
    },
    {
      name: "input item of another type",
      body: { ...base(), input: [{ type: "function_call_output", call_id: "x", output: "y" }] },
      message: "Invalid 'input[0].type': only messages (role and content) are accepted here; got 'function_call_output'",
      param: "input[0].type",
    },
    {
      name: "input_text without text",
      body: withPart({ type: "input_text", text: 5 }),
      message: "Invalid 'input[0].content[1].text': must be a string; got number 5",
      param: "input[0].content[1].text",
    },
    {
      name: "unknown content type",
      body: withPart({ type: "input_file", file_data: "x" }),
      message: "Invalid 'input[0].content[1].type': user content items must be 'input_text' or 'input_image'; got 'input_file'",
      param: "input[0].content[1].type",
    },
    {
      name: "image by http URL",
      body: withPart({ type: "input_image", image_url: "https://example.com/cat.png" }),
      message: /^Invalid 'input\[0\]\.content\[1\]\.image_url': the gateway does not fetch image URLs/,
      param: "input[0].content[1].image_url",
    },
    {
      name: "image by file id",
      body: withPart({ type: "input_image", file_id: "file-123" }),
      message: /^Invalid 'input\[0\]\.content\[1\]\.file_id': file ids are not available/,
      param: "input[0].content[1].file_id",
    },
    {
      name: "image data URI not base64",
      body: withPart({ type: "input_image", image_url: "data:image/png,rawbytes" }),
      message: "Invalid 'input[0].content[1].image_url': must be a base64 data URI such as 'data:image/png;base64,...'",
      param: "input[0].content[1].image_url",
    },
    {
      name: "image base64 malformed",
      body: withPart({ type: "input_image", image_url: "data:image/png;base64,@@@not-base64@@@" }),
      message: "Invalid 'input[0].content[1].image_url': the data after 'base64,' is not valid base64",
      param: "input[0].content[1].image_url",
    },
    {
      name: "image of another type",
      body: withPart({ type: "input_image", image_url: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" }),
      message: "Invalid 'input[0].content[1].image_url': images must be PNG, JPEG or WebP; got 'image/gif'",
      param: "input[0].content[1].image_url",
    },
    {
      name: "image data that is not an image",
      body: withPart({ type: "input_image", image_url: `data:image/png;base64,${Buffer.from("hello, this is text").toString("base64")}` }),
      message: "Invalid 'input[0].content[1].image_url': the data is not a PNG, JPEG or WebP image",
      param: "input[0].content[1].image_url",
    },
    {
      name: "image truncated",
      body: async () => {
        const noisy = await sharp(Buffer.from(Array.from({ length: 512 * 512 * 3 }, (_, index) => (index * 7919) % 251)), {
          raw: { width: 512, height: 512, channels: 3 },
        })
          .png()
          .toBuffer();
        return withPart({
          type: "input_image",
          image_url: `data:image/png;base64,${noisy.subarray(0, Math.floor(noisy.length / 2)).toString("base64")}`,
        });
      },
      message: "Invalid 'input[0].content[1].image_url': the image data is damaged or truncated",
      param: "input[0].content[1].image_url",
    },
    {
      name: "image header only",
      body: withPart({ type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` }),
      message:
        /^Invalid 'input\[0\]\.content\[1\]\.image_url': the (data is not a PNG, JPEG or WebP image|image data is damaged or truncated)$/,
      param: "input[0].content[1].image_url",
    },
    { name: "body not JSON", body: "{not json", message: "Request body is not valid JSON", param: null },
    { name: "body an array", body: "[1,2]", message: "Request body must be a JSON object", param: null },
    {
      name: "blocked by the content policy",
      body: { ...base(), input: [{ role: "user", content: `a ${DEFAULT_MODERATION_TERMS.auto[1]} person` }] },
      message: /^The prompt was refused by the content policy/,
      param: "prompt",
    },
  ];

  test("every rule answers 400 in the OpenAI dialect and charges nothing", async () => {
    const user = await createUserWithKey(gateway, { balance: 5_000_000, quota: 5_000_000 });
    const before = await account(user.userId);
    for (const entry of cases) {
      const body = typeof entry.body === "function" ? await (entry.body as () => Promise<unknown>)() : entry.body;
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      assert.equal(response.status, entry.status ?? 400, `${entry.name}: ${text}`);
      const error = JSON.parse(text).error;
      if (typeof entry.message === "string") assert.equal(error.message, entry.message, entry.name);
      else assert.match(error.message, entry.message, entry.name);
      assert.equal(error.param, entry.param === undefined ? null : entry.param, `${entry.name}: param`);
      assert.equal(error.type, "invalid_request_error", entry.name);
      assert.deepEqual(await ledgerRows(response.headers.get("x-request-id")!), [], `${entry.name}: no ledger row`);
    }
    assert.deepEqual(await account(user.userId), before, "balance and key quota unchanged");
  });

  test("the official client sees the same 400s as APIError", async () => {
    await assert.rejects(
      client().responses.create({ ...ask("x"), instructions: undefined } as never),
      (error: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(error.status, 400);
        assert.equal(error.message, "400 Instructions are required");
        return true;
      },
    );
    await assert.rejects(
      client().responses.create({ ...ask("x"), input: "a plain string" } as never),
      (error: InstanceType<typeof OpenAI.APIError>) => {
        assert.equal(error.status, 400);
        assert.equal(error.message, "400 Input must be a list");
        return true;
      },
    );
  });

  test("a key whose group lacks the image model gets 403 and is not charged", async () => {
    await gateway.admin("POST", "/api/admin/groups", { name: "text-only", models: ["std-5.5"] });
    const user = await createUserWithKey(gateway, { group: "text-only", balance: 5_000_000 });
    const before = await account(user.userId);
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify(base()),
    });
    assert.equal(response.status, 403);
    const body = await response.json();
    assert.match(body.error.message, /does not include the model 'std-image-2'/);
    assert.deepEqual(await account(user.userId), before);
  });
});
