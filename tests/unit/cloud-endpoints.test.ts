// Where each cloud channel type sends its calls when the operator gives no base URL (docs/api.md, "Channel types"):
// the vendor's public endpoint for the channel's region.
import { test } from "node:test";
import assert from "node:assert/strict";
import { apiRoot as vertexRoot } from "@/lib/providers/vertex";
import { apiRoot as bedrockRoot } from "@/lib/providers/bedrock";
import { base as geminiBase } from "@/lib/providers/gemini";
import { providerOf } from "@/lib/providers";

const channel = (settings: Record<string, unknown>, baseUrl = "") => ({ baseUrl, apiKey: "", settings });

test("Vertex AI: the region's endpoint, the global one for `global`, the channel's base URL when given", () => {
  assert.equal(vertexRoot(channel({ region: "us-east5" })), "https://us-east5-aiplatform.googleapis.com");
  assert.equal(vertexRoot(channel({ region: "global" })), "https://aiplatform.googleapis.com");
  assert.equal(vertexRoot(channel({ region: "us-east5" }, "https://vertex.internal.example/")), "https://vertex.internal.example");
});

test("Bedrock: the runtime of the channel's region", () => {
  assert.equal(bedrockRoot(channel({ region: "eu-central-1" })), "https://bedrock-runtime.eu-central-1.amazonaws.com");
  assert.equal(bedrockRoot(channel({ region: "us-east-1" }, "http://127.0.0.1:9/")), "http://127.0.0.1:9");
});

test("Gemini API: generativelanguage.googleapis.com unless the channel says otherwise", () => {
  assert.equal(geminiBase(""), "https://generativelanguage.googleapis.com");
  assert.equal(geminiBase("https://proxy.example/gemini/"), "https://proxy.example/gemini");
});

test("which dialect each type speaks natively, per upstream model", () => {
  assert.equal(providerOf("vertex").nativeText("claude-sonnet-4-5@20250929"), "messages");
  assert.equal(providerOf("vertex").nativeText("gemini-2.5-pro"), "hub");
  assert.equal(providerOf("bedrock").nativeText("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), "messages");
  assert.equal(providerOf("bedrock").nativeText("amazon.nova-pro-v1:0"), "hub");
  assert.equal(providerOf("gemini").nativeText("gemini-2.5-pro"), "hub");
  assert.equal(providerOf("azure").nativeText("my-gpt-4o"), "chat");
});
