// The operator's channel form without a browser: what it reads from a stored channel and sends back (each type's own
// settings inputs taken out of the settings JSON and put back, every other settings key kept), the presets of
// OpenAI-compatible services (lib/portal/channel-presets.ts), and a server error's `param` landing on its input
// (`formErrors` in lib/portal/api.ts). The form in Chromium: tests/e2e/channel-types.test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, formErrors } from "@/lib/portal/api";
import { CHANNEL_PRESETS, PRESET_SETTING_KEYS, presetById, presetForBaseUrl, withPresetSettings } from "@/lib/portal/channel-presets";
import type { AdminChannel } from "@/lib/portal/types";
import {
  CHANNEL_ALIASES,
  channelBody,
  channelRules,
  channelValues,
  serviceAccountProject,
  type ChannelValues,
} from "@/components/admin/channels/values";

function stored(fields: Partial<AdminChannel>): AdminChannel {
  return {
    id: "ch_1",
    name: "Upstream",
    type: "openai",
    baseUrl: "",
    models: ["std-5.5"],
    modelMapping: {},
    settings: {},
    priority: 0,
    weight: 1,
    status: "enabled",
    disabledReason: null,
    hasApiKey: true,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  };
}

function newChannel(fields: Partial<ChannelValues>): ChannelValues {
  return { ...channelValues(null), name: "New", models: ["std-5.5"], ...fields };
}

describe("stored settings in the form and back", () => {
  test("a vertex channel: region and project get their inputs; a key the form does not show stays in the JSON and is sent back", () => {
    const channel = stored({
      type: "vertex",
      settings: { region: "us-east5", project: "my-proj-123", timeoutMs: 90_000, custom: { a: 1 } },
    });
    const values = channelValues(channel);
    assert.equal(values.region, "us-east5");
    assert.equal(values.project, "my-proj-123");
    assert.deepEqual(JSON.parse(values.settings), { timeoutMs: 90_000, custom: { a: 1 } });
    const body = channelBody(values, channel);
    assert.deepEqual(body.settings, { timeoutMs: 90_000, custom: { a: 1 }, region: "us-east5", project: "my-proj-123" });
    // The stored key is kept (not sent), and so is the default endpoint (no base URL sent).
    assert.equal("apiKey" in body, false);
    assert.equal("baseUrl" in body, false);
  });

  test("an azure channel's apiVersion gets its input; an empty one is left out (the default applies); other keys stay", () => {
    const channel = stored({
      type: "azure",
      baseUrl: "https://res.openai.azure.com",
      settings: { apiVersion: "2025-04-01-preview", maxTokensField: "max_tokens" },
    });
    const values = channelValues(channel);
    assert.equal(values.apiVersion, "2025-04-01-preview");
    assert.deepEqual(JSON.parse(values.settings), { maxTokensField: "max_tokens" });
    assert.deepEqual(channelBody({ ...values, apiVersion: "" }, channel).settings, { maxTokensField: "max_tokens" });
  });

  test("a key another type reads stays in the JSON: an openai channel's region is not taken out, and not dropped", () => {
    const channel = stored({ type: "openai", baseUrl: "https://api.example.com/v1", settings: { region: "eu", apiVersion: 3 } });
    const values = channelValues(channel);
    assert.equal(values.region, "");
    assert.deepEqual(channelBody(values, channel).settings, { region: "eu", apiVersion: 3 });
  });

  test("a bedrock channel's region and credential; a cleared base URL that was stored is sent empty (the API says why)", () => {
    const body = channelBody(newChannel({ type: "bedrock", region: " us-east-1 ", apiKey: "AKIA:secret" }), null);
    assert.deepEqual(body.settings, { region: "us-east-1" });
    assert.equal(body.apiKey, "AKIA:secret");
    assert.equal("baseUrl" in body, false);
    const channel = stored({ type: "bedrock", baseUrl: "https://proxy.example.com", settings: { region: "us-east-1" } });
    assert.equal(channelBody({ ...channelValues(channel), baseUrl: "" }, channel).baseUrl, "");
  });

  test("the browser's rules: the base URL is required only where the type has no default; a region where the type needs one", () => {
    const baseUrl = channelRules.baseUrl;
    assert.ok(baseUrl("", newChannel({ type: "openai" })));
    assert.ok(baseUrl("", newChannel({ type: "azure" })));
    assert.equal(baseUrl("", newChannel({ type: "gemini" })), null);
    assert.equal(baseUrl("", newChannel({ type: "vertex" })), null);
    assert.equal(baseUrl("", newChannel({ type: "bedrock" })), null);
    assert.match(channelRules.region("", newChannel({ type: "bedrock" })) ?? "", /AWS region/);
    assert.match(channelRules.region("", newChannel({ type: "vertex" })) ?? "", /Google Cloud region/);
    assert.equal(channelRules.region("", newChannel({ type: "gemini" })), null);
  });

  test("a service-account file's project_id, read for the project input", () => {
    assert.equal(serviceAccountProject(JSON.stringify({ type: "service_account", project_id: "gateway-417203" })), "gateway-417203");
    assert.equal(serviceAccountProject("not json"), null);
    assert.equal(serviceAccountProject("null"), null);
    assert.equal(serviceAccountProject(JSON.stringify({ project_id: 7 })), null);
  });
});

describe("presets of OpenAI-compatible services", () => {
  test("the seven services and their base URLs", () => {
    assert.deepEqual(
      CHANNEL_PRESETS.map((preset) => [preset.label, preset.baseUrl]),
      [
        ["DeepSeek", "https://api.deepseek.com/v1"],
        ["OpenRouter", "https://openrouter.ai/api/v1"],
        ["Groq", "https://api.groq.com/openai/v1"],
        ["xAI", "https://api.x.ai/v1"],
        ["Mistral", "https://api.mistral.ai/v1"],
        ["Ollama", "http://localhost:11434/v1"],
        ["vLLM", "http://localhost:8000/v1"],
      ],
    );
    for (const preset of CHANNEL_PRESETS) {
      assert.ok(preset.note.length > 10, preset.id);
      // The only settings a preset sets are ones the openai type reads (docs/api.md "Channel types").
      for (const [key, value] of Object.entries(preset.settings))
        assert.ok(
          (key === "maxTokensField" && value === "max_tokens") || (key === "streamUsage" && value === "unasked"),
          `${preset.id}: ${key}`,
        );
    }
    assert.deepEqual([...PRESET_SETTING_KEYS].sort(), ["maxTokensField", "streamUsage"]);
  });

  test("a preset is found by its base URL; applying one replaces what another set and keeps the rest", () => {
    assert.equal(presetForBaseUrl("https://api.mistral.ai/v1/")?.id, "mistral");
    assert.equal(presetForBaseUrl("https://api.example.com/v1"), null);
    assert.equal(presetForBaseUrl(""), null);
    const mistral = withPresetSettings({ timeoutMs: 60_000 }, presetById("mistral")!);
    assert.deepEqual(mistral, { timeoutMs: 60_000, maxTokensField: "max_tokens", streamUsage: "unasked" });
    assert.deepEqual(withPresetSettings(mistral, presetById("groq")!), { timeoutMs: 60_000 });
  });
});

describe("a server error on its input", () => {
  const fields = Object.keys(channelValues(null));
  const error = (param: string | null, message = "Invalid 'x': nope") => new ApiError(400, "invalid_request", message, param);

  test("settings.region, settings.project, settings.apiVersion land on their own inputs", () => {
    for (const [param, field] of [
      ["settings.region", "region"],
      ["settings.project", "project"],
      ["settings.apiVersion", "apiVersion"],
    ]) {
      assert.deepEqual(formErrors(error(param, "Give the region"), fields, CHANNEL_ALIASES), {
        fields: { [field!]: "Give the region" },
        form: null,
      });
    }
  });

  test("a settings key without an input of its own lands on the settings JSON; models.0 on Models; an unknown param above the form", () => {
    assert.deepEqual(formErrors(error("settings.maxTokensField"), fields, CHANNEL_ALIASES).fields, { settings: "Nope" });
    assert.deepEqual(formErrors(error("models.0"), fields, CHANNEL_ALIASES).fields, { models: "Nope" });
    assert.deepEqual(formErrors(error("status"), fields, CHANNEL_ALIASES).fields, { enabled: "Nope" });
    assert.deepEqual(formErrors(error("elsewhere"), fields, CHANNEL_ALIASES), { fields: {}, form: "Invalid 'x': nope" });
    assert.deepEqual(formErrors(error("apiKey", 'The service account key has no "private_key"'), fields, CHANNEL_ALIASES), {
      fields: { apiKey: 'The service account key has no "private_key"' },
      form: null,
    });
  });
});
