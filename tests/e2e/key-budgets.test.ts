// In Chromium at 1280x800 and 390x844: the owner sets a key's budget and allowed addresses in the create and edit
// dialogs and sees them in the Keys table (docs/api.md, "Key budgets and allowed addresses"); after a chat run in the
// playground the balance badge and the playground key's "left" move without a reload, and the Keys table's figures
// for that key agree with them (spent + remaining = its cap) and with the API. Each page changed is checked with axe.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";
import { signedIn } from "../helpers/user-api";

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

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
}

/** Goes to a page through the navigation (no reload: the data client's cache stays), opening it on a phone. */
async function navigate(page: Page, label: string, mobile: boolean): Promise<void> {
  if (mobile) await page.getByRole("button", { name: "Open navigation" }).click();
  await page.getByRole("link", { name: label }).first().click();
}

async function axe(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  assert.deepEqual(
    serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`),
    [],
  );
}

/** "$1.999856" → 1999856 micro-USD. */
const micros = (text: string) => Math.round(Number(text.replace(/[^0-9.]/g, "")) * 1_000_000);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  const mobile = viewport.width < 500;
  describe(`key budgets in the portal at ${viewport.width}x${viewport.height}`, () => {
    test("a budget and allowed addresses set in the dialogs show in the Keys table; after a playground chat every money figure moves and agrees", async () => {
      const owner = await createUserWithKey(gateway, { balance: 50_000_000 });
      const opened = await openTab(browser, gateway.url, viewport);
      tabs.push(opened);
      const { page } = opened;
      await signIn(page, owner.email, owner.password);
      await navigate(page, "API keys", mobile);
      await page.waitForURL("**/keys");

      // Create a key with a budget and two addresses.
      await page.getByRole("button", { name: "Create key" }).first().click();
      const create = page.getByRole("dialog");
      await create.locator("input[name=name]").fill("budgeted");
      await create.locator("input[name=budget]").fill("5");
      await create.getByLabel("Budget period", { exact: true }).click();
      await page.getByRole("option", { name: "per day" }).click();
      await create.locator("textarea[name=allowedIps]").fill("203.0.113.0/24\n2001:db8::/32");
      await create.getByTestId("key-rpm").getByText("The group's limit").waitFor();
      await axe(page);
      await screenshot(page, `key-budgets-${viewport.width}-create`);
      await create.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("button", { name: "I have copied it" }).click();
      const row = page.getByTestId("key-row").filter({ hasText: "budgeted" });
      await row.getByTestId("key-budget").getByText("$5.00 a day").waitFor();
      await row.getByTestId("key-budget-left").getByText("$5.00 left").waitFor();
      await row.getByTestId("key-allowed-ips").getByText("2 addresses only").waitFor();

      // A bad address in the edit dialog is refused with the entry named; a lower budget is saved.
      await row.getByRole("button", { name: "Edit key budgeted" }).click();
      const edit = page.getByRole("dialog");
      await edit.locator("input[name=budget]").fill("4");
      await edit.locator("textarea[name=allowedIps]").fill("203.0.113.0/24\n10.0.0.0/33");
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.getByText(/'10\.0\.0\.0\/33' in allowedIps is not an IPv4 or IPv6 address or CIDR/).waitFor();
      await edit.locator("textarea[name=allowedIps]").fill("203.0.113.0/24");
      await axe(page);
      await edit.getByRole("button", { name: "Save" }).click();
      await row.getByTestId("key-budget").getByText("$4.00 a day").waitFor();
      await row.getByTestId("key-allowed-ips").getByText("203.0.113.0/24 only").waitFor();
      const api = await signedIn(gateway.url, owner.email, owner.password);
      const saved = (await api.call("GET", "/api/user/keys")).body.data.find((key: { name: string }) => key.name === "budgeted");
      assert.deepEqual([saved.budget, saved.budgetPeriod, saved.allowedIps], [4_000_000, "day", ["203.0.113.0/24"]]);
      await page.reload();
      await row.getByTestId("key-budget").waitFor();
      await axe(page);
      await screenshot(page, `key-budgets-${viewport.width}-keys`);

      // A chat run in the playground: the balance badge and the playground key's "left" move, without a reload.
      await navigate(page, "Playground", mobile);
      await page.waitForURL("**/playground");
      const badge = page.getByTestId("playground-balance");
      await badge.getByText("$50.00").waitFor();
      if (mobile) {
        await page.getByTestId("endpoint-picker").click();
        await page.getByRole("option", { name: "Chat", exact: true }).click();
      } else await page.getByTestId("endpoint-picker").getByText("Chat", { exact: true }).click();
      await page.locator("textarea[name=message]").fill("Say hello in three words");
      await page.keyboard.press("Enter");
      await page.getByTestId("assistant-message").getByTestId("simulator-badge").waitFor();
      await page.waitForFunction(() => !/\$50\.00$/.test(document.querySelector("[data-testid=playground-balance]")?.textContent ?? ""));
      await page
        .getByTestId("playground-key-status")
        .getByText(/of its \$2\.00 cap/)
        .waitFor();
      await page.waitForFunction(
        () => !/ \$2\.00 of its/.test(document.querySelector("[data-testid=playground-key-status]")?.textContent ?? " $2.00 of its"),
      );
      const balanceShown = micros((await badge.textContent()) ?? "");
      const leftShown = micros(/· (\$[\d.,]+) of its/.exec((await page.getByTestId("playground-key-status").textContent()) ?? "")![1]!);
      const self = (await api.call("GET", "/api/user/self")).body;
      assert.equal(balanceShown, self.balance, "the badge shows the balance the API has");
      assert.ok(leftShown < 2_000_000, "the playground key's left moved");
      await screenshot(page, `key-budgets-${viewport.width}-playground`);

      // The Keys table, reached without a reload, agrees: the playground key's remaining is the playground's "left",
      // and what it spent plus what remains is its cap.
      await navigate(page, "API keys", mobile);
      await page.waitForURL("**/keys");
      const playgroundRow = page.getByTestId("key-row").filter({ hasText: "playground" });
      const remaining = micros((await playgroundRow.getByTestId("key-remaining").textContent()) ?? "");
      const spent = micros((await playgroundRow.getByTestId("key-spent").textContent()) ?? "");
      assert.equal(remaining, leftShown, "the table's remaining is the playground's left");
      assert.equal(spent + remaining, 2_000_000, "spent and remaining add up to the cap");
    });
  });
}
