// Price modifiers in the operator's pages, in Chromium against the real server (docs/billing.md, "Price modifiers"):
// a multiplier set on Groups & prices › Prices lets service_tier: "priority" through, a malformed one is shown next to
// the modifiers, and a field added on Settings is refused until priced. Screenshots under test-results/screenshots/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
});

after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

async function signedIn(viewport?: { width: number; height: number }): Promise<Tab> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  const { page } = opened;
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill("admin@example.com");
  await page.locator("input[name=password]").fill("admin-password-123");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
  return opened;
}

async function chat(key: string, extra: Record<string, unknown>): Promise<{ status: number; param: string | null }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hello" }], ...extra }),
  });
  const body = await response.json();
  return { status: response.status, param: body.error?.param ?? null };
}

/** Serious and critical axe violations (WCAG 2 A and AA) of the page as it is now, one line each. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`);
}

async function openPrice(page: Page, model: string): Promise<void> {
  await page.goto("/admin/groups");
  await page.getByRole("tab", { name: "Prices" }).click();
  await page.getByRole("button", { name: `Edit price of ${model}` }).click();
  await page.getByRole("dialog").waitFor();
}

describe("price modifiers in the operator's pages", () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`the Prices tab and the price form with its modifiers at ${viewport.width} px: no serious axe violation, no sideways scrolling`, async () => {
      const { page } = await signedIn(viewport);
      await openPrice(page, "std-5.5");
      await page.getByRole("dialog").getByRole("button", { name: "Add modifier" }).click();
      const problems = await violations(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) problems.push(`the page scrolls sideways by ${overflow} px`);
      await screenshot(page, `price-modifiers-form-${viewport.width}`);
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "hidden" });
      problems.push(...(await violations(page)));
      await screenshot(page, `price-modifiers-table-${viewport.width}`);
      assert.deepEqual(problems, []);
    });
  }

  test("Prices: a multiplier set in the form lets service_tier priority through; a malformed key is shown beside the modifiers", async () => {
    const { page, errors } = await signedIn();
    const user = await createUserWithKey(gateway);
    assert.deepEqual(await chat(user.key, { service_tier: "priority" }), { status: 400, param: "service_tier" });

    await openPrice(page, "std-5.5");
    const dialog = page.getByRole("dialog");
    // The seeded flex discount is there to keep.
    assert.equal(await dialog.locator("input[name=modifier-0]").inputValue(), "service_tier:flex");
    await dialog.getByRole("button", { name: "Add modifier" }).click();
    await dialog.locator("input[name=modifier-1]").fill("bad key!");
    await dialog.locator("input[name=multiplier-1]").fill("2");
    await dialog.getByRole("button", { name: "Save price" }).click();
    await dialog
      .getByRole("alert")
      .filter({ hasText: /field:value/ })
      .waitFor();
    await screenshot(page, "price-modifiers-error");

    await dialog.locator("input[name=modifier-1]").fill("service_tier:priority");
    await dialog.getByRole("button", { name: "Save price" }).click();
    await page.getByText("Price saved").waitFor();
    await page.getByText("service_tier:priority ×2").waitFor();
    await screenshot(page, "price-modifiers-prices");
    const row = (await gateway.admin("GET", "/api/admin/prices")).data.find((price: { model: string }) => price.model === "std-5.5");
    assert.deepEqual(row.modifiers, { "service_tier:flex": 0.5, "service_tier:priority": 2 });
    assert.deepEqual(await chat(user.key, { service_tier: "priority" }), { status: 200, param: null });

    // Removing it in the form refuses the tier again.
    await openPrice(page, "std-5.5");
    await page.getByRole("dialog").getByRole("button", { name: "Remove modifier service_tier:priority" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Save price" }).click();
    await page.getByText("Price saved").first().waitFor();
    assert.equal((await chat(user.key, { service_tier: "priority" })).status, 400);
    assert.deepEqual(errors, []);
  });

  test("Settings: a field added to the price modifiers is refused until priced; removed, it passes again", async () => {
    const { page, errors } = await signedIn();
    const user = await createUserWithKey(gateway);
    assert.equal((await chat(user.key, { reasoning_lane: "deep" })).status, 200, "an unknown field passes");

    await page.goto("/admin/settings");
    const fields = page.getByRole("combobox", { name: "Further fields" });
    await fields.fill("reasoning_lane");
    await fields.press("Enter");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved").waitFor();
    await screenshot(page, "price-modifiers-settings");
    assert.deepEqual((await gateway.admin("GET", "/api/admin/settings")).priceModifierFields, ["reasoning_lane"]);
    assert.deepEqual(await chat(user.key, { reasoning_lane: "deep" }), { status: 400, param: "reasoning_lane" });

    await gateway.admin("POST", "/api/admin/prices", { model: "std-5.5", modifiers: { "reasoning_lane:deep": 1.5 } });
    assert.equal((await chat(user.key, { reasoning_lane: "deep" })).status, 200, "priced, it passes");

    // A name every request carries is refused with the reason beside the field.
    await fields.fill("messages");
    await fields.press("Enter");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText(/every request carries this field/i).waitFor();

    await page.reload();
    await page.getByRole("button", { name: "Save settings" }).waitFor();
    // Backspace in the empty input takes the last name off.
    await fields.click();
    await fields.press("Backspace");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved").waitFor();
    assert.deepEqual((await gateway.admin("GET", "/api/admin/settings")).priceModifierFields, []);
    assert.deepEqual(errors, []);
  });
});
