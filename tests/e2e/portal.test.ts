// The portal in a real browser (Debian's Chromium through playwright-core) against the real server with Next.js:
// a new user's whole journey (sign-up → sign-in → key → redeem → image in the playground (through the session: no
// key in the browser) → 2FA on → sign out (the session ends on the server) →
// sign in with the second factor → 2FA off), a streaming Responses run, an admin creating a channel and a code batch
// in the operator pages, a non-admin refused every operator page, and one user never seeing another's rows.
// Screenshots of the main pages are saved under test-results/screenshots/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { Browser, Page } from "playwright";
import { startGateway, stopAllGateways, createUserWithKey, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";
import { sendJson, startFakeUpstream } from "../helpers/fake-upstream";
import { currentTotp } from "@/lib/accounts/totp";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];

const ADMIN = { email: "admin@example.com", password: "admin-password-123" };

async function tab(viewport?: { width: number; height: number }): Promise<Tab> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  return opened;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function signOut(page: Page): Promise<void> {
  await page.getByTestId("account-menu").click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await page.waitForURL("**/sign-in");
}

/** A TOTP code for the step after the current one: accepted (±1 step of skew) and never used before. */
async function nextTotp(secret: string): Promise<string> {
  return currentTotp(secret, Math.floor(Date.now() / 1000) + 30);
}

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
});

after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

describe("portal", () => {
  test("a new user: sign-up, sign-in, key, redeem, image, 2FA on, sign-in with the second factor, 2FA off", async () => {
    const { page, errors } = await tab();
    const email = `new-user-${Date.now()}@example.com`;
    const password = "correct-horse-battery-9";

    await page.goto("/");
    await screenshot(page, "00-landing");
    // Sign-up (the form signs the new account in), then sign out and in again through the sign-in form.
    await page.goto("/sign-up");
    await screenshot(page, "01-sign-up");
    await page.locator("input[name=email]").fill(email);
    await page.locator("input[name=password]").fill("short");
    await page.locator("input[name=confirm]").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Use at least 8 characters").waitFor();
    // A password the server refuses (too common) is shown next to the password field.
    await page.locator("input[name=password]").fill("password123");
    await page.locator("input[name=confirm]").fill("password123");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText(/too common/).waitFor();
    await page.locator("input[name=password]").fill(password);
    await page.locator("input[name=confirm]").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/dashboard**");
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await signOut(page);
    await screenshot(page, "02-sign-in");
    await signIn(page, email, "wrong-password-0");
    await page.getByTestId("form-error").getByText("Invalid email or password").waitFor();
    await signIn(page, email, password);
    await page.waitForURL("**/dashboard");
    await page.getByText("Get started").waitFor();

    // Create a key: the full key is shown once with a copy button.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByText("No API keys yet").waitFor();
    await page.getByRole("button", { name: "Create key" }).first().click();
    await page.locator("input[name=name]").fill("Build server");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    const shownKey = (await page.getByTestId("new-key").textContent())?.trim() ?? "";
    assert.match(shownKey, /^sk-[A-Za-z0-9]+$/);
    await page.getByRole("dialog").getByRole("button", { name: "Copy key" }).waitFor();
    // The one-time example is complete: the full base URL and the full key; run as written, it is answered.
    const example = (await page.getByTestId("new-key-example").textContent()) ?? "";
    const url = /curl (\S+)/.exec(example)?.[1] ?? "";
    assert.equal(url, `${gateway.url}/v1/chat/completions`);
    const authorization = /-H "Authorization: ([^"]+)"/.exec(example)?.[1] ?? "";
    assert.equal(authorization, `Bearer ${shownKey}`);
    const body = /-d '([^']+)'/.exec(example)?.[1] ?? "";
    const ran = await fetch(url, { method: "POST", headers: { authorization, "content-type": "application/json" }, body });
    assert.notEqual(ran.status, 401, "the pasted example authenticates");
    await ran.body?.cancel();
    assert.equal(
      await page.getByTestId("base-url-openai").first().textContent(),
      `${gateway.url}/v1`,
      "the sidebar shows the full base URL",
    );
    assert.equal(await page.getByTestId("base-url-anthropic").first().textContent(), gateway.url);
    await screenshot(page, "03-key-created");
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.getByTestId("key-row").filter({ hasText: "Build server" }).waitFor();
    assert.ok(!(await page.content()).includes(shownKey), "the full key is not shown again");
    await screenshot(page, "04-keys");
    // Pause and resume the key, then rename it, from its row.
    await page.getByRole("button", { name: "Pause key Build server" }).click();
    await page.getByText("Key paused").waitFor();
    const pausedKeys = (await gateway.admin("GET", "/api/admin/keys?limit=1000")).data as { name: string; status: string }[];
    assert.equal(pausedKeys.find((key) => key.name === "Build server")!.status, "disabled");
    await page.getByRole("button", { name: "Resume key Build server" }).click();
    await page.getByText("Key resumed").waitFor();
    await page.getByRole("button", { name: "Edit key Build server" }).click();
    await page.getByRole("dialog").locator("input[name=name]").fill("Build server (CI)");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    await page.getByTestId("key-row").filter({ hasText: "Build server (CI)" }).waitFor();

    // Redeem a code made through the operator API; a wrong code is refused next to the field.
    const batch = await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 5_000_000, count: 1, batch: "e2e-user" });
    await page.getByRole("link", { name: "Redeem a code" }).click();
    await page.locator("input[name=code]").fill("GW-NOPE0-NOPE0-NOPE0-NOPE0");
    await page.getByRole("button", { name: "Redeem" }).click();
    await page.getByText("This redeem code does not exist").waitFor();
    await page.locator("input[name=code]").fill(batch.codes[0]);
    await page.getByRole("button", { name: "Redeem" }).click();
    await page.getByTestId("redeem-result").getByText("Added $5.00").waitFor();
    await page.getByTestId("redeem-balance").filter({ hasText: "$5.00" }).waitFor();
    await screenshot(page, "05-redeem");

    // Generate an image in the playground and see it.
    await page.getByRole("link", { name: "Playground" }).first().click();
    await page.getByTestId("playground-balance").getByText("$5.00").waitFor();
    // The listed sizes, or "Custom size…" for any other, checked as it is typed.
    await page.getByTestId("size-input").click();
    await page.getByRole("option", { name: "Custom size…" }).click();
    const size = page.locator("input[name=size]");
    await size.fill("1000x1000");
    await page.getByText("Width and height must both be multiples of 16 px.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Generate image" }).isDisabled(), true);
    await size.fill("1024x4000");
    await page.getByText(/longest side must be at most 3840/).waitFor();
    await size.fill("1536x1024");
    await page.getByText("1536×1024 px").waitFor();
    await page.keyboard.press("Escape");
    const compression = page.getByRole("slider", { name: "Compression", includeHidden: true });
    assert.equal(await compression.getAttribute("aria-disabled"), "true", "compression is off for png");
    await page.getByText("jpeg", { exact: true }).click();
    assert.equal(await compression.getAttribute("aria-disabled"), "false", "compression is on for jpeg");
    await page.getByText("png", { exact: true }).click();
    await page.getByRole("button", { name: "Generate image" }).click();
    const image = page.getByTestId("result-image").first();
    await image.waitFor();
    await page.waitForFunction(() => {
      const element = document.querySelector<HTMLImageElement>('[data-testid="result-image"]');
      return Boolean(element?.complete && element.naturalWidth > 0);
    });
    const rendered = await image.evaluate((element: HTMLImageElement) => ({
      src: element.src.slice(0, 30),
      width: element.naturalWidth,
      height: element.naturalHeight,
    }));
    assert.match(rendered.src, /^data:image\/png;base64,/);
    assert.deepEqual([rendered.width, rendered.height], [1536, 1024]);
    await page.getByTestId("result-card").getByTestId("simulator-badge").first().waitFor();
    await page.getByTestId("run-cost").waitFor();
    await screenshot(page, "06-playground-image");

    // Stop: a generation held on its way can be stopped; the time runs while it waits.
    let release: () => void = () => undefined;
    const held = /\/api\/user\/playground\/v1\/images\/generations(\?|$)/;
    await page.route(held, (route) => new Promise<void>((resolve) => (release = () => void route.abort().finally(resolve))));
    await page.getByRole("button", { name: "Generate image" }).click();
    await page
      .getByTestId("run-progress")
      .getByText(/Generating… \d+\.\d s/)
      .waitFor();
    await page.getByTestId("run-progress").getByRole("button", { name: "Stop" }).click();
    await page.getByTestId("run-stopped").waitFor();
    release();
    await page.unroute(held);

    // Edit: a JPEG upload, a mask drawn over it (the JPEG becomes PNG so the mask fits; the painted mask is used as it
    // is), the edited image back.
    const jpeg = path.join(tmpdir(), `e2e-base-${Date.now()}.jpg`);
    writeFileSync(
      jpeg,
      await sharp({ create: { width: 256, height: 256, channels: 3, background: "#2255aa" } })
        .jpeg()
        .toBuffer(),
    );
    await page.getByTestId("endpoint-picker").getByText("Edit", { exact: true }).click();
    await page.locator("input[type=file]").first().setInputFiles(jpeg);
    await page.getByText("Draw", { exact: true }).click();
    const canvas = page.getByTestId("mask-canvas");
    await canvas.waitFor();
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 8 });
    await page.mouse.up();
    await page.getByTestId("mask-ready").waitFor();
    await page.getByRole("button", { name: "Edit image" }).click();
    await page.getByTestId("result-image").first().waitFor();
    await screenshot(page, "06b-playground-edit");
    const edits = await gateway.admin("GET", "/api/admin/usage?limit=5");
    const editRow = edits.data.find((row: { endpoint: string }) => row.endpoint === "/v1/images/edits");
    assert.ok(editRow, "the edit went through the gateway and was billed");
    assert.equal(editRow.status, "success");
    await page.getByTestId("endpoint-picker").getByText("Images", { exact: true }).click();

    // Two-factor authentication: QR code and secret, a code computed here, backup codes shown once.
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = (await page.getByTestId("totp-secret").textContent())?.trim() ?? "";
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    const qrWidth = await page.getByTestId("totp-qr").evaluate((element: HTMLImageElement) => element.naturalWidth);
    assert.ok(qrWidth > 0, "the QR code is an image");
    await screenshot(page, "07-security-setup");
    // A wrong code is refused next to the code field.
    await page.getByTestId("totp-code").locator("input").first().click();
    await page.keyboard.type("000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("totp-code-error").waitFor();
    await page.getByTestId("totp-code").locator("input").first().click();
    await page.keyboard.type(await currentTotp(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("backup-codes").waitFor();
    const backupCodes = await page.getByTestId("backup-code").allTextContents();
    assert.equal(backupCodes.length, 10);
    await screenshot(page, "08-backup-codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    await page.getByTestId("totp-status").getByText("On").waitFor();

    // The security page lists this browser's session.
    await page.getByTestId("session-row").filter({ hasText: "this browser" }).waitFor();

    // The playground ran through the session: no API key was ever stored in this browser.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    assert.doesNotMatch(stored, /sk-[A-Za-z0-9]{20}/, "no key in the browser's storage");

    // Sign out: a copy of the cookie is dead, for the account API and for the playground alike.
    const copiedCookies = await page.context().cookies();
    await signOut(page);
    const copied = copiedCookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
    assert.equal((await fetch(`${gateway.url}/api/user/self`, { headers: { cookie: copied } })).status, 401, "the copied cookie is dead");
    const replay = await fetch(`${gateway.url}/api/user/playground/v1/images/generations`, {
      method: "POST",
      headers: { cookie: copied, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "x", size: "1024x1024", quality: "low" }),
    });
    assert.equal(replay.status, 401, "nor can it run the playground");

    // Sign in again: the password alone is not enough, the code field appears.
    await signIn(page, email, password);
    await page.locator("input[name=code]").waitFor();
    await screenshot(page, "09-sign-in-second-factor");
    await page.locator("input[name=code]").fill("123456");
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.getByText("That code is not valid").waitFor();
    await page.locator("input[name=code]").fill(await nextTotp(secret));
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.waitForURL("**/dashboard");

    // Turn 2FA off with a backup code.
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByTestId("totp-status").getByText("On").waitFor();
    await page.locator("input[name=disable-code]").fill(backupCodes[0]!);
    await page.getByRole("button", { name: "Turn off two-factor authentication" }).click();
    await page.getByTestId("totp-status").getByText("Off").waitFor();
    await page.getByRole("button", { name: "Set up two-factor authentication" }).waitFor();

    // The dashboard and usage now show the image request.
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByTestId("usage-row").filter({ hasText: "std-image-2" }).first().waitFor();
    await page.getByTestId("usage-row").filter({ hasText: "Redeemed a code" }).waitFor();
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const csv = await (await download).path().then((file) => import("node:fs").then((fs) => fs.readFileSync(file!, "utf8")));
    assert.match(csv.split("\r\n")[0]!, /^time,kind,request_id,endpoint,model/);
    assert.ok(csv.includes("std-image-2"));
    await screenshot(page, "10-usage");
    await page.getByRole("link", { name: "Dashboard" }).click();
    await page.getByLabel("Requests by model chart").waitFor();
    await screenshot(page, "11-dashboard");
    assert.deepEqual(errors, [], "no uncaught errors in the pages");
  });

  test("a streaming Responses run shows its events, heartbeats, the image, the revised prompt and the cost", async () => {
    // Heartbeats every 300 ms and a slower simulated image, so a short run shows both.
    const channels = await gateway.admin("GET", "/api/admin/channels");
    const simulator = channels.data.find((channel: { type: string }) => channel.type === "simulator");
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { settings: { keepaliveMs: 300, responsesImageMs: 1500 } });
    const user = await createUserWithKey(gateway, { balance: 20_000_000 });
    const { page, errors } = await tab();
    await signIn(page, user.email, user.password);
    await page.waitForURL("**/dashboard");
    await page.goto("/playground");
    await page.getByTestId("endpoint-picker").getByText("Responses").click();
    await page.locator("textarea[name=input]").fill("Draw two images of a red fox in the snow");
    await page.getByRole("button", { name: "Run streaming request" }).click();
    await page.getByTestId("run-state").getByText("done").waitFor({ timeout: 60_000 });
    const titles = await page.getByTestId("event-title").allTextContents();
    assert.ok(titles.includes("Request created"), titles.join(" | "));
    assert.ok(
      titles.some((title) => title.startsWith("Heartbeat")),
      titles.join(" | "),
    );
    assert.ok(titles.includes("Image 1: received") && titles.includes("Image 2: received"), titles.join(" | "));
    assert.ok(titles.includes("Completed"), titles.join(" | "));
    assert.equal(await page.getByTestId("result-image").count(), 2);
    assert.ok(((await page.getByTestId("revised-prompt").first().textContent()) ?? "").length > 0);
    await page.getByTestId("run-cost").waitFor();
    await screenshot(page, "12-playground-responses");

    // The chat box streams an answer, labelled as simulated.
    await page.getByTestId("endpoint-picker").getByText("Chat").click();
    await page.locator("textarea[name=message]").fill("Say hello in three words");
    await page.keyboard.press("Enter");
    await page.getByTestId("assistant-message").getByTestId("simulator-badge").waitFor();
    assert.match((await page.getByTestId("assistant-message").textContent()) ?? "", /simulated/);
    await page.getByTestId("snippet-curl").getByText("/v1/chat/completions").waitFor();
    await screenshot(page, "13-playground-chat");
    assert.deepEqual(errors, []);
  });

  test("an admin creates a channel, tests it and generates a code batch in the operator pages", async () => {
    const { page, errors } = await tab();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL("**/dashboard");
    await page.getByRole("link", { name: "Channels" }).click();
    await page.getByTestId("channel-row").first().getByTestId("simulator-badge").waitFor();
    await page.getByRole("button", { name: "New channel" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.locator("input[name=name]").fill("Backup OpenAI");
    await dialog.locator("input[name=baseUrl]").fill("not a url");
    await dialog.getByLabel("Models", { exact: true }).fill("std-5.5");
    await dialog.getByLabel("Models", { exact: true }).press("Enter");
    await dialog.getByRole("button", { name: "Create channel" }).click();
    // The server's validation error shows next to the base URL field.
    await dialog.getByText("Must be an http(s) URL").waitFor();
    await screenshot(page, "14-admin-channel-form-error");
    // Make it a simulator channel instead, so its test succeeds offline.
    await dialog.getByLabel("Type", { exact: true }).click();
    await page.getByRole("option", { name: "Simulator (built-in, offline)" }).click();
    await dialog.locator("input[name=name]").fill("E2E simulator");
    await dialog.getByRole("button", { name: "Create channel" }).click();
    const row = page.getByTestId("channel-row").filter({ hasText: "E2E simulator" });
    await row.waitFor();
    await row.getByRole("button", { name: "Test E2E simulator" }).click();
    await row
      .getByTestId("channel-test-result")
      .getByText(/^OK · [\d,]+ ms$/)
      .waitFor();
    // Every model of the built-in simulator, one by one: each answers.
    const builtIn = page.getByTestId("channel-row").filter({ hasText: "Built-in simulator" });
    const builtInModels = (await gateway.admin("GET", "/api/admin/channels")).data.find((channel: { type: string; name: string }) =>
      channel.name.startsWith("Built-in simulator"),
    ).models as string[];
    await builtIn.getByRole("button", { name: /^Test every model of Built-in simulator/ }).click();
    const everyList = builtIn.getByTestId("channel-test-every");
    await everyList.getByText("Testing…").waitFor({ state: "detached", timeout: 120_000 });
    assert.equal(await everyList.getByText(/: OK · [\d,]+ ms$/).count(), builtInModels.length, (await everyList.textContent()) ?? "");
    // An upstream that refuses the channel's key: the test shows the failure, its status and the upstream's words.
    const refusing = await startFakeUpstream((_request, response) =>
      sendJson(response, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } }),
    );
    try {
      await gateway.admin("POST", "/api/admin/channels", {
        name: "Refusing upstream",
        type: "openai",
        baseUrl: refusing.url,
        apiKey: "sk-upstream-wrong",
        models: ["std-5.5"],
        status: "disabled",
      });
      await page.reload();
      const refusedRow = page.getByTestId("channel-row").filter({ hasText: "Refusing upstream" });
      await refusedRow.getByRole("button", { name: "Test Refusing upstream" }).click();
      await refusedRow
        .getByTestId("channel-test-result")
        .getByText(/^Failed · 401 · [\d,]+ ms$/)
        .waitFor();
      await refusedRow.getByText(/Incorrect API key provided/).waitFor();
      assert.equal(refusing.received.length, 1);
      assert.equal(refusing.received[0]!.headers.authorization, "Bearer sk-upstream-wrong");
      assert.equal(refusing.received[0]!.body.model, "std-5.5");
      await screenshot(page, "15-admin-channels");
    } finally {
      await refusing.close();
    }
    const listed = await gateway.admin("GET", "/api/admin/channels");
    assert.ok(
      listed.data.some(
        (channel: { name: string; type: string; models: string[] }) =>
          channel.name === "E2E simulator" && channel.type === "simulator" && channel.models.includes("std-5.5"),
      ),
    );

    await page.getByRole("link", { name: "Redeem codes" }).click();
    await page.locator("input[name=quota]").fill("2");
    await page.locator("input[name=count]").fill("3");
    await page.locator("input[name=batch]").fill("e2e-admin-batch");
    await page.getByRole("button", { name: "Generate codes" }).click();
    const codes = ((await page.getByTestId("created-codes").textContent()) ?? "").trim().split("\n");
    assert.equal(codes.length, 3);
    for (const code of codes) assert.match(code, /^GW-/);
    await screenshot(page, "16-admin-codes-created");
    const download = page.waitForEvent("download");
    await page.getByTestId("download-codes").click();
    const csv = await (await download).path().then((file) => import("node:fs").then((fs) => fs.readFileSync(file!, "utf8")));
    assert.equal(csv.trim().split("\r\n").length, 4);
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByTestId("code-row").filter({ hasText: "e2e-admin-batch" }).nth(2).waitFor();
    assert.equal(await page.getByTestId("code-row").filter({ hasText: "e2e-admin-batch" }).count(), 3);
    await screenshot(page, "17-admin-codes");
    const stored = await gateway.admin("GET", "/api/admin/redeem-codes?batch=e2e-admin-batch");
    assert.equal(stored.data.length, 3);

    // Void the batch from the list: its codes turn "disabled" and the audit log names the admin.
    await page.getByPlaceholder("All batches").click();
    await page.getByRole("option", { name: "e2e-admin-batch" }).click();
    await page.getByRole("button", { name: "Void this batch" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Void" }).click();
    await page.getByText("3 codes voided").waitFor();
    const voided = await gateway.admin("GET", "/api/admin/redeem-codes?batch=e2e-admin-batch");
    assert.deepEqual(
      voided.data.map((code: { status: string }) => code.status),
      ["disabled", "disabled", "disabled"],
    );

    // A user's keys and usage in a drawer; a reset link mailed from the actions menu.
    const customer = await createUserWithKey(gateway);
    await page.goto("/admin/users");
    await page.getByRole("button", { name: `Actions for ${customer.email}` }).click();
    await page.getByRole("menuitem", { name: "Keys, usage and history" }).click();
    await page.getByTestId("user-detail-keys").waitFor();
    await screenshot(page, "17b-admin-user-detail");
    await page.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: `Actions for ${customer.email}` }).click();
    await page.getByRole("menuitem", { name: "Send a password reset link" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Reset link sent").waitFor();
    const outbox = await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(customer.email)}`);
    assert.equal(outbox.data.length, 1);

    // The overview and the audit log.
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByTestId("overview-table").waitFor();
    await screenshot(page, "17c-admin-overview");
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByTestId("audit-row").filter({ hasText: "Redeem codes voided" }).filter({ hasText: ADMIN.email }).waitFor();
    await page.getByTestId("audit-row").filter({ hasText: "password-reset link sent" }).waitFor();
    await screenshot(page, "17d-admin-audit");

    // Settings: email verification and the content policy's terms, both from the page.
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByText("New accounts confirm their email first").waitFor();
    await page.locator("label").filter({ hasText: /^On$/ }).click();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved").waitFor();
    const settings = await gateway.admin("GET", "/api/admin/settings");
    assert.deepEqual([settings.verifyEmail, settings.verifyEmailSource], [true, "setting"]);
    const lowTerms = page.locator("textarea[name=low]");
    await lowTerms.fill(`${await lowTerms.inputValue()}\nzebra-e2e-term`);
    await page.getByRole("button", { name: "Save terms" }).click();
    await page.getByText("Moderation terms saved").waitFor();
    assert.ok((await gateway.admin("GET", "/api/admin/moderation")).low.includes("zebra-e2e-term"));
    await screenshot(page, "17e-admin-settings");
    await gateway.admin("POST", "/api/admin/settings", { verifyEmail: null });
    await gateway.admin("POST", "/api/admin/moderation", { reset: true });

    for (const [name, path] of [
      ["18-admin-users", "/admin/users"],
      ["19-admin-groups", "/admin/groups"],
      ["20-admin-ledger", "/admin/usage"],
      ["21-admin-outbox", "/admin/outbox"],
    ] as const) {
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await screenshot(page, name);
    }
    assert.deepEqual(errors, []);
  });

  test("a non-admin gets no operator page", async () => {
    const user = await createUserWithKey(gateway);
    const { page } = await tab();
    await signIn(page, user.email, user.password);
    await page.waitForURL("**/dashboard");
    assert.equal(await page.getByText("Operator", { exact: true }).count(), 0, "no operator navigation");
    for (const path of [
      "/admin",
      "/admin/channels",
      "/admin/users",
      "/admin/groups",
      "/admin/codes",
      "/admin/usage",
      "/admin/outbox",
      "/admin/audit",
      "/admin/settings",
    ]) {
      await page.goto(path);
      await page.getByTestId("forbidden").waitFor();
      assert.equal(await page.getByTestId("channels-table").count(), 0);
      assert.equal(await page.getByTestId("users-table").count(), 0);
    }
    await screenshot(page, "22-forbidden");
    const status = await page.evaluate(async () => (await fetch("/api/admin/users")).status);
    assert.equal(status, 403);
  });

  test("no page shows another user's data", async () => {
    const alice = await createUserWithKey(gateway);
    const bob = await createUserWithKey(gateway);
    // Alice uses her key; Bob has never made a request.
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-5.5", messages: [{ role: "user", content: "hello from alice" }] }),
    });
    assert.equal(response.status, 200);
    const aliceRequestId = response.headers.get("x-request-id")!;
    const alicePrefix = alice.key.slice(0, 10);

    const asAlice = await tab();
    await signIn(asAlice.page, alice.email, alice.password);
    await asAlice.page.waitForURL("**/dashboard");
    await asAlice.page.goto("/usage");
    await asAlice.page.getByTestId("usage-row").filter({ hasText: "std-5.5" }).waitFor();

    const asBob = await tab();
    await signIn(asBob.page, bob.email, bob.password);
    await asBob.page.waitForURL("**/dashboard");
    await asBob.page.goto("/usage");
    await asBob.page.getByText("No usage yet").waitFor();
    assert.equal(await asBob.page.getByTestId("usage-row").count(), 0);
    await asBob.page.goto("/keys");
    await asBob.page.getByTestId("key-row").first().waitFor();
    const bobKeys = await asBob.page.getByTestId("key-row").allTextContents();
    assert.equal(bobKeys.length, 1, "Bob sees only his own key");
    for (const [name, path] of [
      ["keys", "/keys"],
      ["usage", "/usage"],
      ["dashboard", "/dashboard"],
    ] as const) {
      await asBob.page.goto(path);
      await asBob.page.getByRole("heading", { level: 1 }).waitFor();
      await asBob.page.waitForLoadState("networkidle");
      const html = await asBob.page.content();
      assert.ok(!html.includes(alice.email), `${name}: no trace of Alice's email`);
      assert.ok(!html.includes(alicePrefix), `${name}: no trace of Alice's key`);
      assert.ok(!html.includes(aliceRequestId), `${name}: no trace of Alice's request`);
    }
    // Even asking the API for Alice's key id answers "not found".
    const byKey = await asBob.page.evaluate(async (keyId) => (await fetch(`/api/user/usage?keyId=${keyId}`)).status, alice.keyId);
    assert.equal(byKey, 404);
  });

  test("the portal works on a phone-sized screen", async () => {
    const user = await createUserWithKey(gateway);
    const { page } = await tab({ width: 390, height: 844 });
    await signIn(page, user.email, user.password);
    await page.waitForURL("**/dashboard");
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await screenshot(page, "23-mobile-dashboard");
    await page.getByRole("button", { name: "Open navigation" }).click();
    await page.getByRole("link", { name: "Playground" }).first().click();
    await page.waitForURL("**/playground");
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    await screenshot(page, "24-mobile-playground");
  });

  test("Models & pricing lists what a person may call with prices and examples; the playground offers the same models", async () => {
    await gateway.admin("POST", "/api/admin/prices", { model: "gpt-4o-mini", textInput: 0.15, textOutput: 0.6 });
    const groups = (await gateway.admin("GET", "/api/admin/groups")).data as { name: string; models: string[] }[];
    const current = groups.find((group) => group.name === "default")!;
    if (!current.models.includes("gpt-4o-mini"))
      await gateway.admin("POST", "/api/admin/groups", { name: "default", models: [...current.models, "gpt-4o-mini"] });
    const user = await createUserWithKey(gateway);
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const { page } = await tab(viewport);
      await signIn(page, user.email, user.password);
      await page.waitForURL("**/dashboard");
      await page.goto("/models");
      await page.getByRole("heading", { name: "Models & pricing" }).waitFor();
      const image = page.getByTestId("model-card").filter({ hasText: "std-image-2" });
      // 1024x1536 medium: the reference table's $0.041, shown to the micro-dollar the ledger charges (trailing zero trimmed).
      await image.getByTestId("image-prices").getByText("$0.04116").first().waitFor();
      const added = page.getByTestId("model-card").filter({ hasText: "gpt-4o-mini" });
      await added.getByText("$0.15").waitFor();
      const example = (await added.getByTestId("model-example").textContent()) ?? "";
      assert.match(example, new RegExp(`curl ${gateway.url.replace(/[.]/g, "\\.")}/v1/chat/completions`));
      assert.match(example, /"model":"gpt-4o-mini"/);
      await screenshot(page, `26-models-${viewport.width}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `no sideways scrolling at ${viewport.width} px (${overflow} px)`);
      if (viewport.width === 1280) {
        await page.goto("/playground");
        await page.getByTestId("endpoint-picker").getByText("Chat", { exact: true }).click();
        await page.getByTestId("model-picker").click();
        await page.getByRole("option", { name: "gpt-4o-mini" }).waitFor();
        await page.keyboard.press("Escape");
      }
    }
  });

  test("a missing page is the portal's own, with a way back; the landing page offers the portal to a signed-in user; a favicon", async () => {
    const user = await createUserWithKey(gateway);
    const { page } = await tab();
    const missing = await page.goto("/no-such-page");
    assert.equal(missing?.status(), 404);
    await page.getByRole("heading", { name: "This page does not exist" }).waitFor();
    await page.getByRole("link", { name: "Home page" }).waitFor();
    await screenshot(page, "25-not-found");
    await page.goto("/");
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    assert.equal(await page.getByTestId("base-url-openai").textContent(), `${gateway.url}/v1`);
    await signIn(page, user.email, user.password);
    await page.waitForURL("**/dashboard");
    await page.goto("/");
    await page.getByRole("link", { name: "Open the portal" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "Sign in" }).count(), 0);
    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    assert.ok(icon, "the page names an icon");
    assert.equal((await fetch(new URL(icon, gateway.url))).status, 200);
  });

  test("the Content-Security-Policy (a script nonce per view) blocked nothing on any page the tests opened", () => {
    assert.ok(tabs.length >= 5);
    assert.deepEqual(
      tabs.flatMap((opened) => opened.cspViolations),
      [],
    );
  });
});
