// The portal's pages in Chromium, at 1280x800 and 390x844 where layout is the point: the dashboard's cards and charts
// (no overflow, a legend that is not cut, one rounding rule), usage charts and totals for the filtered rows, each
// chart's numbers as a table, a key's spend and its own model list, progress previews in the playground, the
// light/dark toggle before sign-in. Tables are checked on every page by accessibility.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];
let user: Awaited<ReturnType<typeof createUserWithKey>>;

const MODELS = ["std-5.5", "msg-haiku-4-5-20251001", "msg-sonnet-4-6", "msg-opus-4-6"];

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 50_000_000 });
  // Spend on several models today, so the cards hold six-digit amounts and the legend has many entries.
  for (const model of MODELS) {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 40, messages: [{ role: "user", content: `hello ${model}` }] }),
    });
    assert.equal(response.status, 200, await response.text());
  }
});
after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

async function signedInTab(viewport: { width: number; height: number }): Promise<Page> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  const { page } = opened;
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(user.email);
  await page.locator("input[name=password]").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
  return page;
}

/** Elements matching `selector` whose content is wider than their box, or that stick out of their card. */
async function overflowing(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((css) => {
    const out: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>(css)) {
      const card = element.closest<HTMLElement>(".mantine-Card-root");
      const box = element.getBoundingClientRect();
      const limit = card?.getBoundingClientRect();
      if (element.scrollWidth > element.clientWidth + 1) out.push(`${element.textContent}: wider than its box`);
      if (limit && (box.right > limit.right + 1 || box.left < limit.left - 1 || box.bottom > limit.bottom + 1))
        out.push(`${element.textContent}: outside its card`);
    }
    return out;
  }, selector);
}

describe("the portal's pages: dashboard, usage, keys, playground, theme", () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`dashboard at ${viewport.width} px: amounts fit their cards, one rounding rule, the legend whole, the numbers as a table`, async () => {
      const page = await signedInTab(viewport);
      await page.getByTestId("chart-legend").waitFor();
      const spentToday = (await page.getByTestId("stat-today").textContent()) ?? "";
      // Under a dollar: four decimals on every card (the exact amount on hover).
      assert.match(spentToday, /^\$0\.\d{4}$/);
      assert.match((await page.getByTestId("stat-today").getAttribute("title")) ?? "", /^\$0\.\d{6}$/);
      assert.deepEqual(await overflowing(page, "[data-testid=stat-today], [data-testid=stat-balance], [data-testid=stat-month]"), []);
      // Every model that was used is in the legend, and the legend lies inside its card.
      const legend = await page.getByTestId("chart-legend").textContent();
      for (const model of MODELS) assert.ok(legend?.includes(model), `${model} in the legend: ${legend}`);
      assert.deepEqual(await overflowing(page, "[data-testid=chart-legend]"), []);
      // The requests chart as a table: today's row holds one request per model, four in all.
      await page.getByText("Requests by model as a table").click();
      const table = page.getByTestId("chart-table").last();
      await table.waitFor();
      const cells = await table.locator("tbody tr").last().locator("td").allTextContents();
      assert.equal(cells.at(-1), String(MODELS.length), cells.join(" | "));
      await screenshot(page, `pages-${viewport.width}-dashboard`);
    });
  }

  test("usage: totals of the filtered rows and the chart by model or by key, filters applied", async () => {
    const page = await signedInTab({ width: 1280, height: 800 });
    await page.goto("/usage");
    await page.getByTestId("usage-summary").waitFor();
    assert.equal(await page.getByTestId("total-requests").textContent(), String(MODELS.length));
    const ledger = (await gateway.admin("GET", `/api/admin/usage?keyId=${user.keyId}&limit=100`)).data as { cost: number }[];
    const spent = ledger.reduce((sum, row) => sum + row.cost, 0);
    assert.equal(await page.getByTestId("total-spent").getAttribute("title"), `$${(spent / 1_000_000).toFixed(6)}`);
    // By key: the legend is the key's prefix (one series: a single key has no legend, its table names it).
    await page.getByText("By key", { exact: true }).click();
    await page.getByText("Spend by key as a table").click();
    const header = await page.getByTestId("chart-table").locator("thead").textContent();
    assert.match(header ?? "", new RegExp(user.key.slice(0, 8)));
    // Filtered to one model: the totals follow.
    await page.getByRole("combobox", { name: "Model", exact: true }).fill("msg-opus-4-6");
    await page.getByRole("option", { name: "msg-opus-4-6", exact: true }).click();
    await page.getByTestId("total-requests").filter({ hasText: /^1$/ }).waitFor();
    await screenshot(page, "pages-1280-usage");
  });

  test("keys: the spend of each key, and a key kept to one model from the edit dialog", async () => {
    const page = await signedInTab({ width: 1280, height: 800 });
    await page.goto("/keys");
    const row = page.getByTestId("key-row").filter({ hasText: "test key" });
    await row.waitFor();
    assert.match((await row.getByTestId("key-spent").textContent()) ?? "", /^\$0\.\d{6}$/);
    await row.getByRole("button", { name: /^Edit key/ }).click();
    await page.getByRole("dialog").getByLabel("Models", { exact: true }).click();
    await page.getByRole("option", { name: "std-5.5", exact: true }).click();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Save" }).click();
    await row.getByTestId("key-models").filter({ hasText: "std-5.5 only" }).waitFor();
    // Enforced: another model of the group is refused for this key.
    const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-opus-4-6", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(refused.status, 403);
    await screenshot(page, "pages-1280-keys");
  });

  test("playground: with two progress previews asked for, each image shows them before it is done", async () => {
    const page = await signedInTab({ width: 1280, height: 800 });
    await page.goto("/playground");
    await page.getByTestId("endpoint-picker").getByText("Responses").click();
    await page.locator("textarea[name=input]").fill("Draw a lighthouse at dusk");
    await page.getByTestId("previews-select").click();
    await page.getByRole("option", { name: "2 previews" }).click();
    await page.getByRole("button", { name: "Run streaming request" }).click();
    await page
      .getByTestId("preview-badge")
      .filter({ hasText: /Preview [12] of 2/ })
      .waitFor({ timeout: 30_000 });
    await page.getByTestId("run-state").getByText("done").waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId("preview-badge").count(), 0, "the finished image replaces its previews");
    assert.equal(await page.getByTestId("result-image").count(), 1);
  });

  test("light or dark before sign-in: the landing page and the sign-in page have the toggle", async () => {
    const opened = await openTab(browser, gateway.url, { width: 390, height: 844 });
    tabs.push(opened);
    const { page } = opened;
    for (const path of ["/", "/sign-in"]) {
      await page.goto(path);
      const before = await page.locator("html").getAttribute("data-mantine-color-scheme");
      await page.getByRole("button", { name: "Switch between light and dark mode" }).click();
      await page.locator(`html[data-mantine-color-scheme="${before === "dark" ? "light" : "dark"}"]`).waitFor({ state: "attached" });
      await page.getByRole("button", { name: "Switch between light and dark mode" }).click();
      await page.locator(`html[data-mantine-color-scheme="${before}"]`).waitFor({ state: "attached" });
    }
  });
});
