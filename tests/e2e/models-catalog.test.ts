// In Chromium at 1280x800 and 390x844, with axe: the Models & pricing catalog (components/portal/models.tsx) —
// the image price table's "high" column and footnote within its card on a phone, a model of another group with its
// group badge and no curl example, the badges under a short title, search, kind filter and sort; the operator's
// price picker offering a channel's own model (components/admin/model-picker.tsx); and an announcement posted on the
// operator's page showing on a user's dashboard until dismissed (docs/api.md, "Models & pricing", "Announcements").
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Locator, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];
let member: Awaited<ReturnType<typeof createUserWithKey>>;

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  // A second group open to users, with a model of its own; the member's key is in "default".
  await gateway.admin("POST", "/api/admin/prices", { model: "vip-chat-1", textInput: 7, textOutput: 21 });
  await gateway.admin("POST", "/api/admin/groups", { name: "vip", models: ["vip-chat-1"] });
  await gateway.admin("POST", "/api/admin/settings", { userGroups: ["default", "vip"] });
  await gateway.admin("POST", "/api/admin/channels", { name: "Acme upstream", type: "simulator", models: ["acme-e2e-chat-1"] });
  member = await createUserWithKey(gateway);
});
after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

async function tab(viewport: { width: number; height: number }): Promise<Tab> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  return opened;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`);
}

async function noSidewaysScroll(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${where}: the page scrolls sideways by ${overflow} px`);
}

/** The element's box lies within the container's box and within the window, sideways. */
async function within(element: Locator, container: Locator, width: number, what: string): Promise<void> {
  await element.scrollIntoViewIfNeeded();
  const box = (await element.boundingBox())!;
  const outer = (await container.boundingBox())!;
  assert.ok(box.width > 0, `${what} is drawn`);
  assert.ok(
    box.x >= outer.x - 0.5 && box.x + box.width <= outer.x + outer.width + 0.5,
    `${what} within its card (${JSON.stringify({ box, outer })})`,
  );
  assert.ok(box.x >= 0 && box.x + box.width <= width, `${what} within the window`);
}

const cardOf = (page: Page, model: string) => page.locator(`[data-testid=model-card][data-model="${model}"]`);
const shownModels = (page: Page) =>
  page.getByTestId("model-card").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-model")));

async function choose(page: Page, testId: string, option: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

describe("the model catalog", () => {
  for (const viewport of VIEWPORTS) {
    test(`Models & pricing at ${viewport.width} px: image prices reachable, another group's model badged without curl, search, filter, sort`, async () => {
      const { page } = await tab(viewport);
      await signIn(page, member.email, member.password);
      await page.goto("/models");
      await page.getByRole("heading", { name: "Models & pricing" }).waitFor();

      // The image table's "high" column and its footnote, inside the card and the window.
      const image = cardOf(page, "std-image-2");
      const table = image.getByTestId("image-prices");
      await table.waitFor();
      const tableBox = await table.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
      assert.ok(tableBox.scroll <= tableBox.client + 1, `the table is not wider than it shows (${JSON.stringify(tableBox)})`);
      await within(table.getByRole("columnheader", { name: "high" }), image, viewport.width, "the high column's header");
      await within(table.getByRole("row").last().getByRole("cell").last(), image, viewport.width, "the last row's high price");
      await within(table.getByText("Per image, output only"), image, viewport.width, "the footnote");
      await table.getByText("$0.04116").first().waitFor();

      // A model of the other group: its badge, no curl example, and what to do instead.
      const vip = cardOf(page, "vip-chat-1");
      await vip.getByTestId("model-group").filter({ hasText: "group vip" }).waitFor();
      assert.equal(await vip.getByTestId("model-example").count(), 0, "no curl example that would answer 403");
      await vip
        .getByTestId("model-other-group")
        .getByText(/Offered to group vip; your keys are in group default/)
        .waitFor();
      // A model of the member's own group keeps its example, and names its group too (two groups are in play).
      const own = cardOf(page, "std-5.5");
      await own.getByTestId("model-example").waitFor();
      await own.getByTestId("model-group").filter({ hasText: "group default" }).waitFor();

      // std-tts-1: the badges sit under the title, not beside it.
      const speech = cardOf(page, "std-tts-1");
      const title = (await speech.getByRole("heading", { name: "std-tts-1" }).boundingBox())!;
      const badges = (await speech.getByTestId("model-badges").boundingBox())!;
      assert.ok(badges.y >= title.y + title.height, `badges below the title (${JSON.stringify({ title, badges })})`);

      await noSidewaysScroll(page, `/models @${viewport.width}`);
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `models-catalog-${viewport.width}`);

      // Search by name.
      await page.getByTestId("models-search").fill("embedding");
      await page.getByTestId("models-count").getByText("2 of").waitFor();
      assert.deepEqual((await shownModels(page)).sort(), ["std-embedding-3-large", "std-embedding-3-small"]);
      await page.getByTestId("models-search").fill("");

      // Filter by kind.
      await choose(page, "models-kind", "Speech");
      await page.getByTestId("models-count").getByText("1 of").waitFor();
      assert.deepEqual(await shownModels(page), ["std-tts-1"]);

      // Sort text models by price, both ways, and by context window.
      await choose(page, "models-kind", "Text");
      const listed = (await (await page.request.get("/api/user/models")).json()).data as {
        id: string;
        kind: string;
        contextWindow: number;
        price: { textInput: number };
      }[];
      const text = listed.filter((model) => model.kind === "text");
      const cheapest = [...text].sort((a, b) => a.price.textInput - b.price.textInput || a.id.localeCompare(b.id))[0]!.id;
      const dearest = [...text].sort((a, b) => b.price.textInput - a.price.textInput || a.id.localeCompare(b.id))[0]!.id;
      await choose(page, "models-sort", "Price: lowest first");
      await page.waitForFunction((id) => document.querySelector("[data-testid=model-card]")?.getAttribute("data-model") === id, cheapest);
      await choose(page, "models-sort", "Price: highest first");
      await page.waitForFunction((id) => document.querySelector("[data-testid=model-card]")?.getAttribute("data-model") === id, dearest);
      assert.notEqual(cheapest, dearest);
      await choose(page, "models-sort", "Context window: largest first");
      const windows = await shownModels(page);
      const sizes = windows.map((id) => text.find((model) => model.id === id)!.contextWindow);
      assert.deepEqual(
        sizes,
        [...sizes].sort((a, b) => b - a),
        "largest context window first",
      );
      assert.equal(sizes[0], 1_000_000);
    });
  }
});

describe("the operator's model picker and announcements", () => {
  for (const viewport of VIEWPORTS) {
    test(`at ${viewport.width} px: the new price's picker lists a channel's model; an announcement reaches the dashboard`, async () => {
      const { page } = await tab(viewport);
      await signIn(page, "admin@example.com", "admin-password-123");
      await page.goto("/admin/groups");
      await page.getByRole("tab", { name: "Prices" }).click();
      await page.getByRole("button", { name: "New price" }).click();
      const dialog = page.getByRole("dialog");
      const picker = dialog.locator("input[name=model]");
      await picker.waitFor();
      // Checked with the list closed: Mantine's open listbox wraps its options in a scroll area, which axe reports
      // as aria-required-children whatever the options hold.
      assert.deepEqual(await seriousViolations(page), []);
      await picker.click();
      await picker.fill("acme");
      const option = page.getByRole("option", { name: /acme-e2e-chat-1/ });
      await option.waitFor();
      assert.match((await option.textContent()) ?? "", /channel Acme upstream · no price/);
      await screenshot(page, `models-picker-${viewport.width}`);
      await option.click();
      assert.equal(await picker.inputValue(), "acme-e2e-chat-1");
      await page.keyboard.press("Escape");

      // The operator posts a notice on the Announcements page.
      const title = `Maintenance at ${viewport.width}`;
      await page.goto("/admin/announcements");
      await page.getByRole("heading", { name: "Announcements", level: 1 }).waitFor();
      await page.getByRole("button", { name: "New announcement" }).click();
      const form = page.getByRole("dialog");
      await form.locator("input[name=title]").fill(title);
      await form.locator("textarea[name=body]").fill("The gateway restarts at 22:00 UTC.\nAbout a minute.");
      await form.getByRole("button", { name: "Post announcement" }).click();
      await page.getByTestId("announcement-row").filter({ hasText: title }).getByText("shown now").waitFor();
      await noSidewaysScroll(page, `/admin/announcements @${viewport.width}`);
      await page.reload();
      await page.getByTestId("announcement-row").filter({ hasText: title }).waitFor();
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `announcements-admin-${viewport.width}`);

      // A user sees it on the dashboard, dismisses it, and it stays dismissed in that browser.
      const user = (await tab(viewport)).page;
      await signIn(user, member.email, member.password);
      const notice = user.getByTestId("announcement").filter({ hasText: title });
      await notice.waitFor();
      await notice.getByText("About a minute.").waitFor();
      await noSidewaysScroll(user, `/dashboard @${viewport.width}`);
      assert.deepEqual(await seriousViolations(user), []);
      await screenshot(user, `announcements-dashboard-${viewport.width}`);
      await notice.getByRole("button", { name: `Dismiss ${title}` }).click();
      await notice.waitFor({ state: "detached" });
      await user.reload();
      await user.getByRole("heading", { name: "Dashboard" }).waitFor();
      await user.waitForLoadState("networkidle");
      assert.equal(await user.getByTestId("announcement").filter({ hasText: title }).count(), 0, "dismissed in this browser");
    });
  }
});
