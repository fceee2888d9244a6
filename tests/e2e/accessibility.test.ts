// Every page of the portal in Chromium at 1280x800 and 390x844: an axe-core check
// (WCAG 2 A and AA rules) with no serious or critical violation, no sideways scrolling of the page or of any table
// (a table that does not fit becomes one card per row, every row action on screen), and a screenshot
// of each page at each width under test-results/screenshots/ to look at.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];
let member: Awaited<ReturnType<typeof createUserWithKey>>;

const PUBLIC_PAGES = ["/", "/sign-in", "/sign-up", "/forgot-password", "/reset-password", "/verify-email", "/no-such-page"];
const USER_PAGES = ["/dashboard", "/playground", "/models", "/keys", "/usage", "/redeem", "/security"];
const ADMIN_PAGES = [
  "/admin",
  "/admin/channels",
  "/admin/users",
  "/admin/groups",
  "/admin/codes",
  "/admin/usage",
  "/admin/outbox",
  "/admin/announcements",
  "/admin/audit",
  "/admin/settings",
];
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  // Something on every page: a request in the ledger, a code batch, a key.
  // A user with a key, requests on two models and a top-up: their pages hold full tables and charts.
  member = await createUserWithKey(gateway);
  for (const model of ["std-5.5", "msg-haiku-4-5-20251001"]) {
    await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${member.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, max_tokens: 8, messages: [{ role: "user", content: "hello" }] }),
    });
  }
  await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 1_000_000, count: 2, batch: "a11y" });
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

/** Serious and critical axe violations of the page as it is now, one line each. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(" "))
          .join(" | ")}`,
    );
}

async function check(page: Page, path: string, width: number, who = "a11y"): Promise<string[]> {
  await page.goto(path);
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  await page.waitForLoadState("networkidle").catch(() => undefined);
  const problems = (await violations(page)).map((line) => `${path} @${width}: ${line}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (overflow > 0) problems.push(`${path} @${width}: the page scrolls sideways by ${overflow} px`);
  // Tables (components/data-table.tsx): none scrolls sideways inside its card, and every control in a row (links,
  // buttons, menus) lies inside the window, so each action is reachable as the page is.
  const tables = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>(".data-table"), (table) => ({
      name: table.querySelector("table")?.getAttribute("data-testid") ?? "a table",
      hidden: table.scrollWidth - table.clientWidth,
      outside: Array.from(table.querySelectorAll<HTMLElement>("tbody a, tbody button, tbody [role=button]"))
        .map((control) => control.getBoundingClientRect())
        .filter((box) => box.width > 0 && (box.left < 0 || box.right > window.innerWidth)).length,
    })),
  );
  for (const table of tables) {
    if (table.hidden > 1) problems.push(`${path} @${width}: ${table.name} hides ${table.hidden} px of columns (scrolls sideways)`);
    if (table.outside) problems.push(`${path} @${width}: ${table.name} has ${table.outside} row controls outside the window`);
  }
  await screenshot(page, `${who}-${width}${path.replace(/\//g, "-") || "-home"}`);
  return problems;
}

describe("accessibility and layout of every page", () => {
  for (const viewport of VIEWPORTS) {
    test(`public, user and operator pages at ${viewport.width} px: no serious or critical axe violation, no sideways scrolling`, async () => {
      const problems: string[] = [];
      const visitor = await openTab(browser, gateway.url, viewport);
      tabs.push(visitor);
      for (const path of PUBLIC_PAGES) problems.push(...(await check(visitor.page, path, viewport.width)));
      const admin = await openTab(browser, gateway.url, viewport);
      tabs.push(admin);
      await signIn(admin.page, "admin@example.com", "admin-password-123");
      for (const path of [...USER_PAGES, ...ADMIN_PAGES]) problems.push(...(await check(admin.page, path, viewport.width)));
      // The same user pages for someone with keys and usage (the admin has neither), named "member-…".
      const user = await openTab(browser, gateway.url, viewport);
      tabs.push(user);
      await signIn(user.page, member.email, member.password);
      for (const path of ["/dashboard", "/keys", "/usage"]) problems.push(...(await check(user.page, path, viewport.width, "member")));
      assert.deepEqual(problems, []);
    });
  }
});
