// The operator's channel form in Chromium for every upstream type, against the vendors' fakes (tests/fakes/,
// tests/helpers/vendor-channels.ts): one channel of each type added through the form (a Vertex AI service-account
// key set on the file input), saved, tested with the Test button (OK) and its upstream's models fetched (the count
// the API answers); a key file without its private key and a malformed region shown on their inputs; a preset
// filling an OpenAI-compatible service's base URL; axe (WCAG 2 A and AA, as tests/e2e/accessibility.test.ts) on the
// page with the form open for each type. Screenshots under test-results/screenshots/channel-form-*.png.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Locator, Page } from "playwright";
import { startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";
import { anthropicMessage, chatCompletion, sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream";
import { bedrockConverseChannel, geminiChannel, sharedVertexFake, type VendorChannel } from "../helpers/vendor-channels";
import { startAzureFake, type AzureFake } from "../fakes/azure";
import type { VertexFake } from "../fakes/vertex";

let gateway: Gateway;
let browser: Browser;
let tab: Tab;
let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let azureFake: AzureFake;
let gemini: VendorChannel;
let vertex: VertexFake;
let bedrock: VendorChannel;

const AZURE_KEY = "azure-resource-key-0123456789abcdef";

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  openaiFake = await startFakeUpstream((request, response) => {
    if (request.method === "GET" && request.path === "/v1/models")
      return sendJson(response, 200, { object: "list", data: ["gpt-4o", "gpt-4o-mini", "o3"].map((id) => ({ id, object: "model" })) });
    if (request.path === "/v1/chat/completions") return sendJson(response, 200, chatCompletion("pong", request.body?.model ?? "gpt-4o"));
    sendJson(response, 404, { error: { message: "not found" } });
  });
  anthropicFake = await startFakeUpstream((request, response) => {
    if (request.method === "GET" && request.path.startsWith("/v1/models"))
      return sendJson(response, 200, { data: [{ id: "claude-sonnet-4-5", type: "model" }], has_more: false });
    if (request.path === "/v1/messages")
      return sendJson(response, 200, anthropicMessage("pong", request.body?.model ?? "claude-sonnet-4-5"));
    sendJson(response, 404, { type: "error", error: { type: "not_found_error", message: "not found" } });
  });
  azureFake = await startAzureFake({ apiKey: AZURE_KEY, deployments: { "gw-chat": { model: "gpt-4o", kind: "chat" } } });
  gemini = await geminiChannel();
  vertex = await sharedVertexFake();
  bedrock = await bedrockConverseChannel();
  tab = await openTab(browser, gateway.url);
  await tab.page.goto("/sign-in");
  await tab.page.locator("input[name=email]").fill("admin@example.com");
  await tab.page.locator("input[name=password]").fill("admin-password-123");
  await tab.page.getByRole("button", { name: "Sign in", exact: true }).click();
  await tab.page.waitForURL("**/dashboard");
});

after(async () => {
  await tab?.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
  for (const fake of [openaiFake, anthropicFake, azureFake, gemini, bedrock]) await fake?.close().catch(() => undefined);
  await vertex?.close().catch(() => undefined);
});

/** Serious and critical axe violations of the page as it is now, one line each (as tests/e2e/accessibility.test.ts). */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`,
    );
}

async function storedChannel(name: string) {
  const listed = await gateway.admin("GET", "/api/admin/channels");
  const channel = listed.data.find((entry: { name: string }) => entry.name === name);
  assert.ok(channel, `no channel named ${name}`);
  return channel as { id: string; type: string; baseUrl: string; settings: Record<string, unknown>; hasApiKey: boolean };
}

/** Waits until the input shows `value` (the form fills some inputs itself). */
async function valueShown(input: Locator, value: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await input.inputValue()) !== value) {
    if (Date.now() > deadline) assert.fail(`the input shows ${JSON.stringify(await input.inputValue())}, not ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Opens the New channel form and fills what every type has: name, type, one model and its upstream name. */
async function newChannel(page: Page, name: string, typeLabel: string, model: string, upstream: string): Promise<Locator> {
  await page.getByRole("button", { name: "New channel" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.locator("input[name=name]").fill(name);
  await dialog.getByLabel("Type", { exact: true }).click();
  await page.getByRole("option", { name: typeLabel, exact: true }).click();
  await dialog.getByLabel("Models", { exact: true }).fill(model);
  await dialog.getByLabel("Models", { exact: true }).press("Enter");
  await dialog.locator("textarea[name=modelMapping]").fill(`${model} = ${upstream}`);
  return dialog;
}

/** The form as it is (open, filled), checked with axe; its violations are collected under `type`. */
async function checkForm(page: Page, type: string, problems: string[]): Promise<void> {
  for (const line of await violations(page)) problems.push(`${type} form: ${line}`);
  await screenshot(page, `channel-form-${type}`);
}

/** Creates the channel, tests it (OK), fetches its models in the edit form (the count the API answers). */
async function saveTestAndFetch(page: Page, dialog: Locator, name: string): Promise<void> {
  await dialog.getByRole("button", { name: "Create channel" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = page.getByTestId("channel-row").filter({ hasText: name });
  await row.getByRole("button", { name: `Test ${name}`, exact: true }).click();
  const result = row.getByTestId("channel-test-result");
  await result.waitFor();
  assert.match((await result.textContent()) ?? "", /^OK · [\d,]+ ms/, `${name}: ${await result.textContent()}`);

  const channel = await storedChannel(name);
  const expected = (await gateway.admin("POST", `/api/admin/channels/${channel.id}/fetch-models`, {})).models as string[];
  assert.ok(expected.length > 0);
  await row.getByRole("button", { name: `Edit ${name}`, exact: true }).click();
  const edit = page.getByRole("dialog");
  await edit.getByRole("button", { name: "Fetch the upstream's models" }).click();
  const fetched = edit.getByTestId("fetched-models");
  await fetched.waitFor();
  assert.match((await fetched.textContent()) ?? "", new RegExp(`^${expected.length} found`), `${name}: ${await fetched.textContent()}`);
  await edit.getByRole("button", { name: "Cancel" }).click();
  await edit.waitFor({ state: "detached" });
}

describe("the channel form for every upstream type", () => {
  test("one channel of each type added, tested and its models fetched; field errors on their inputs; presets; no axe violation", async () => {
    const { page, errors } = tab;
    const problems: string[] = [];
    // The page as it was when a step failed, to look at.
    const failed = async (error: unknown) => {
      const dialog = page.getByRole("dialog");
      if (await dialog.count()) console.log(`The open form said: ${(await dialog.allInnerTexts()).join("\n")}`);
      await screenshot(page, "channel-form-failure");
      throw error;
    };
    await run(page, problems).catch(failed);
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
  });

  test("at 390 px the form of each type has no axe violation and does not scroll sideways", async () => {
    const { page, errors } = tab;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/admin/channels");
    await page.getByTestId("channel-row").first().waitFor();
    await page.getByRole("button", { name: "New channel" }).click();
    const dialog = page.getByRole("dialog");
    const problems: string[] = [];
    for (const label of [
      "OpenAI-compatible",
      "Anthropic",
      "Azure OpenAI",
      "Google Gemini API",
      "Google Vertex AI",
      "Amazon Bedrock",
      "Simulator (built-in, offline)",
    ]) {
      await dialog.getByLabel("Type", { exact: true }).click();
      await page.getByRole("option", { name: label, exact: true }).click();
      for (const line of await violations(page)) problems.push(`${label} @390: ${line}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) problems.push(`${label} @390: the page scrolls sideways by ${overflow} px`);
    }
    await screenshot(page, "channel-form-390");
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
  });
});

/** Every step of the test above, in order; axe violations go to `problems`. */
async function run(page: Page, problems: string[]): Promise<void> {
  await page.goto("/admin/channels");
  await page.getByTestId("channel-row").first().waitFor();

  // OpenAI-compatible, through the presets: one fills the base URL, the name and the setting the service needs;
  // another replaces them. Then the base URL of the fake.
  let dialog = await newChannel(page, "", "OpenAI-compatible", "std-5.5", "gpt-4o");
  await dialog.getByLabel("Preset", { exact: true }).click();
  await page.getByRole("option", { name: "DeepSeek", exact: true }).click();
  assert.equal(await dialog.locator("input[name=baseUrl]").inputValue(), "https://api.deepseek.com/v1");
  assert.equal(await dialog.locator("input[name=name]").inputValue(), "DeepSeek");
  assert.deepEqual(JSON.parse(await dialog.locator("textarea[name=settings]").inputValue()), { maxTokensField: "max_tokens" });
  await checkForm(page, "openai-preset", problems);
  await dialog.getByLabel("Preset", { exact: true }).click();
  await page.getByRole("option", { name: "Groq", exact: true }).click();
  assert.equal(await dialog.locator("input[name=baseUrl]").inputValue(), "https://api.groq.com/openai/v1");
  assert.equal(await dialog.locator("input[name=name]").inputValue(), "Groq");
  assert.deepEqual(JSON.parse(await dialog.locator("textarea[name=settings]").inputValue()), {});
  await dialog.locator("input[name=name]").fill("Local OpenAI");
  await dialog.locator("input[name=baseUrl]").fill(`${openaiFake.url}/v1`);
  await dialog.locator("input[name=apiKey]").fill("sk-local-0123456789");
  await saveTestAndFetch(page, dialog, "Local OpenAI");

  dialog = await newChannel(page, "Local Anthropic", "Anthropic", "msg-sonnet-4-6", "claude-sonnet-4-5");
  await dialog.locator("input[name=baseUrl]").fill(anthropicFake.url);
  await dialog.locator("input[name=apiKey]").fill("sk-ant-local-0123456789");
  await checkForm(page, "anthropic", problems);
  await saveTestAndFetch(page, dialog, "Local Anthropic");

  // Azure: the resource's endpoint, its key, an API version of its own input; the mapping names the deployment.
  dialog = await newChannel(page, "Azure resource", "Azure OpenAI", "std-5.5", "gw-chat");
  await dialog.getByText(/map every public model to its deployment/).waitFor();
  assert.equal(await dialog.locator("input[name=apiVersion]").getAttribute("placeholder"), "2024-10-21");
  await dialog.locator("input[name=baseUrl]").fill(azureFake.url);
  await dialog.locator("input[name=apiKey]").fill(AZURE_KEY);
  await dialog.locator("input[name=apiVersion]").fill("2025-04-01-preview");
  await checkForm(page, "azure", problems);
  await saveTestAndFetch(page, dialog, "Azure resource");
  assert.equal((await storedChannel("Azure resource")).settings.apiVersion, "2025-04-01-preview");
  assert.ok(azureFake.received.some((request) => request.query["api-version"] === "2025-04-01-preview"));

  // Gemini: the key; the base URL is optional (Google's by default), here the fake's.
  const geminiBody = gemini.channel as { baseUrl: string; apiKey: string };
  dialog = await newChannel(page, "Gemini API", "Google Gemini API", gemini.model, gemini.upstreamModel);
  assert.equal(await dialog.locator("input[name=baseUrl]").getAttribute("placeholder"), "https://generativelanguage.googleapis.com");
  await dialog.locator("input[name=apiKey]").fill(geminiBody.apiKey);
  await dialog.locator("input[name=baseUrl]").fill(geminiBody.baseUrl);
  await checkForm(page, "gemini", problems);
  await saveTestAndFetch(page, dialog, "Gemini API");

  // Vertex AI: a key file without its private key is refused on the key's input (a 400, not a 500); the file's
  // project_id fills the project; the right file then works.
  dialog = await newChannel(page, "Vertex Claude", "Google Vertex AI", "msg-sonnet-4-6", "claude-sonnet-4-5@20250929");
  await dialog.getByText(/starting with claude- /).waitFor();
  const { private_key: _dropped, ...keyless } = vertex.serviceAccount;
  const fileInput = dialog.locator("input[type=file]");
  await fileInput.setInputFiles({ name: "keyless.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(keyless)) });
  await valueShown(dialog.locator("input[name=project]"), vertex.serviceAccount.project_id);
  await dialog.locator("input[name=region]").fill("us-east5");
  await dialog.locator("input[name=baseUrl]").fill(vertex.url);
  await dialog.getByRole("button", { name: "Create channel" }).click();
  const keyInput = dialog.locator("textarea[name=apiKey]");
  await dialog.getByText('The service account key has no "private_key"').waitFor();
  assert.equal(await keyInput.getAttribute("aria-invalid"), "true");
  const describedBy = (await keyInput.getAttribute("aria-describedby")) ?? "";
  const described = await Promise.all(describedBy.split(/\s+/).map((id) => page.locator(`[id="${id}"]`).textContent()));
  assert.ok(
    described.some((text) => text?.includes('has no "private_key"')),
    describedBy,
  );
  await checkForm(page, "vertex-key-error", problems);
  await fileInput.setInputFiles({
    name: "gateway-sa.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(vertex.serviceAccount, null, 2)),
  });
  await dialog.getByText('The service account key has no "private_key"').waitFor({ state: "detached" });
  assert.equal(JSON.parse(await keyInput.inputValue()).private_key, vertex.serviceAccount.private_key);
  await checkForm(page, "vertex", problems);
  await saveTestAndFetch(page, dialog, "Vertex Claude");
  const storedVertex = await storedChannel("Vertex Claude");
  assert.deepEqual(storedVertex.settings, { region: "us-east5", project: vertex.serviceAccount.project_id });
  assert.equal(storedVertex.hasApiKey, true);

  // Bedrock: a malformed region is the server's field error on the region input; a settings key the form has no
  // input for (timeoutMs) is kept through an edit.
  const bedrockBody = bedrock.channel as { baseUrl: string; apiKey: string; settings: { region: string } };
  dialog = await newChannel(page, "Bedrock Nova", "Amazon Bedrock", bedrock.model, bedrock.upstreamModel);
  await dialog.getByText(/containing anthropic\. /).waitFor();
  await dialog.locator("input[name=region]").fill("Frankfurt");
  await dialog.locator("input[name=apiKey]").fill(bedrockBody.apiKey);
  await dialog.locator("input[name=baseUrl]").fill(bedrockBody.baseUrl);
  await dialog.locator("textarea[name=settings]").fill('{"timeoutMs": 90000}');
  // Leaving the JSON formats it over three lines, which moves the buttons below: leave it before clicking them.
  await dialog.locator("textarea[name=settings]").blur();
  await dialog.getByRole("button", { name: "Create channel" }).click();
  await dialog.getByText(/Give the AWS region of the Bedrock runtime/).waitFor();
  assert.equal(await dialog.locator("input[name=region]").getAttribute("aria-invalid"), "true");
  await dialog.locator("input[name=region]").fill(bedrockBody.settings.region);
  await checkForm(page, "bedrock", problems);
  await saveTestAndFetch(page, dialog, "Bedrock Nova");
  assert.deepEqual((await storedChannel("Bedrock Nova")).settings, { timeoutMs: 90000, region: bedrockBody.settings.region });
  const bedrockRow = page.getByTestId("channel-row").filter({ hasText: "Bedrock Nova" });
  await bedrockRow.getByRole("button", { name: "Edit Bedrock Nova", exact: true }).click();
  const edit = page.getByRole("dialog");
  assert.equal(await edit.locator("input[name=region]").inputValue(), bedrockBody.settings.region);
  assert.deepEqual(JSON.parse(await edit.locator("textarea[name=settings]").inputValue()), { timeoutMs: 90000 });
  await edit.getByRole("button", { name: "Save channel" }).click();
  await edit.waitFor({ state: "detached" });
  const afterEdit = await storedChannel("Bedrock Nova");
  assert.deepEqual(afterEdit.settings, { timeoutMs: 90000, region: bedrockBody.settings.region });
  assert.equal(afterEdit.hasApiKey, true);
  await screenshot(page, "channel-form-all-types");
}
