// Debian's Chromium driven by playwright (which carries playwright-core) (docs/decisions/0025-debian-chromium-for-browser-tests.md: `npx playwright install` cannot download a browser
// here). Screenshots go to test-results/screenshots/ as artifacts of the run.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright";

export const CHROMIUM_PATH = process.env.GATEWAY_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.join(process.cwd(), "test-results", "screenshots");

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}. Install it as root with: apt-get install -y chromium (npm test does this itself when run as root).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export type Tab = { context: BrowserContext; page: Page; errors: string[]; cspViolations: string[] };

/**
 * A fresh browser context (own cookies) with one page; uncaught page errors are collected in `errors`, and what the
 * Content-Security-Policy blocked (Chromium reports it on the console) in `cspViolations`.
 */
export async function openTab(browser: Browser, baseURL: string, viewport = { width: 1440, height: 960 }): Promise<Tab> {
  const context = await browser.newContext({ baseURL, viewport, acceptDownloads: true, reducedMotion: "reduce" });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const cspViolations: string[] = [];
  page.on("pageerror", (error) => errors.push(`${error.name}: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text()))
      cspViolations.push(`${page.url()}: ${message.text()}`);
  });
  return { context, page, errors, cspViolations };
}

/** Saves a full-page PNG as test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  // Let charts and transitions settle before the picture is taken.
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
