// The playground's flows and the layout of a few small pieces, in Chromium at 1280x800 and 390x844 against the real
// server (the simulator serves the images): a painted mask is used for the edit at once (components/playground/
// mask-editor.tsx) and the edited image is brought into view when the run starts; the size picker lists every size
// whatever is chosen (components/playground/image-controls.tsx); Renew asks first, naming what it does, then says it
// was done and shows the new key (components/playground/playground.tsx); "Renew" and the keys' "playground" badge show
// whole; the base URL stays on one line (components/base-url.tsx); the landing page's example scrolls sideways inside
// its block instead of breaking mid-token (components/landing-snippet.tsx). axe (WCAG 2 A and AA) on each page.
// The gateway runs with a long APP_URL (a *.localhost name Chromium is told to resolve to this machine), the form of
// address that made the base URL wrap.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { tmpdir } from "node:os";
import { writeFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import sharp from "sharp";
import { chromium, type Browser, type Page } from "playwright";
import { COMMON_SIZES } from "@/lib/images/size";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { CHROMIUM_PATH, openTab, screenshot, type Tab } from "../helpers/browser";

const VIEWPORTS = [
  { width: 1280, height: 800, name: "1280" },
  { width: 390, height: 844, name: "390" },
];

let gateway: Gateway;
let browser: Browser;
let site: string;
const tabs: Tab[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  site = `http://playground-flow-portal.localhost:${port}`;
  gateway = await startGateway({ portal: true, env: { PORT: String(port), APP_URL: site } });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP *.localhost 127.0.0.1",
    ],
  });
});
after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

async function open(viewport: { width: number; height: number }): Promise<Tab> {
  const opened = await openTab(browser, site, { width: viewport.width, height: viewport.height });
  tabs.push(opened);
  return opened;
}

/** A new user with a balance, signed in at `viewport`. */
async function signedIn(viewport: { width: number; height: number }): Promise<Tab> {
  const user = await createUserWithKey(gateway, { balance: 20_000_000 });
  const opened = await open(viewport);
  const { page } = opened;
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(user.email);
  await page.locator("input[name=password]").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
  return opened;
}

/** Every axe violation (WCAG 2 A and AA) of the page as it is now, and any sideways scrolling of the page. */
async function problems(page: Page, where: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const found = result.violations.map(
    (violation) =>
      `${where}: ${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(" "))
        .join(" | ")}`,
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (overflow > 0) found.push(`${where}: the page scrolls sideways by ${overflow} px`);
  return found;
}

async function pickEndpoint(page: Page, label: string, narrow: boolean): Promise<void> {
  if (narrow) {
    await page.getByTestId("endpoint-picker").click();
    await page.getByRole("option", { name: label, exact: true }).click();
  } else await page.getByTestId("endpoint-picker").getByText(label, { exact: true }).click();
}

/** Whether the element's own text fits its box (nothing cut off or replaced by an ellipsis). */
async function clipped(page: Page, selector: string): Promise<{ text: string; scroll: number; client: number }[]> {
  return page
    .locator(selector)
    .evaluateAll((elements) =>
      elements
        .map((element) => ({ text: element.textContent ?? "", scroll: element.scrollWidth, client: element.clientWidth }))
        .filter((box) => box.scroll > box.client),
    );
}

/** The share of the element's height that is on screen below the portal's 60 px header. */
async function shareInView(page: Page, testId: string): Promise<number> {
  return page
    .getByTestId(testId)
    .first()
    .evaluate((element) => {
      const box = element.getBoundingClientRect();
      const seen = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 60);
      return box.height > 0 ? Math.max(0, seen) / box.height : 0;
    });
}

describe("the playground's flows and the layout of small pieces", () => {
  test("Edit: the button says why it waits, a painted mask is used at once, and the edited image comes into view", async () => {
    const png = path.join(tmpdir(), `playground-flow-${Date.now()}.png`);
    writeFileSync(
      png,
      await sharp({ create: { width: 512, height: 512, channels: 3, background: "#2255aa" } })
        .png()
        .toBuffer(),
    );
    for (const viewport of VIEWPORTS) {
      const { page, errors } = await signedIn(viewport);
      await page.goto("/playground");
      await pickEndpoint(page, "Edit", viewport.width < 768);
      const form = page.getByRole("form", { name: "Edit images" });
      await form.locator("input[type=file]").first().setInputFiles(png);
      await form.getByText("Draw", { exact: true }).click();
      const canvas = page.getByTestId("mask-canvas");
      await canvas.waitFor();
      const editButton = form.getByRole("button", { name: "Edit image" });
      // Nothing painted yet: the button is off and says why.
      assert.equal(await editButton.isDisabled(), true);
      await form.getByTestId("edit-blocked").filter({ hasText: /paint/i }).waitFor({ timeout: 5_000 });

      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 8 });
      await page.mouse.up();
      // The painted mask is the mask: no further step before the edit can run.
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll<HTMLButtonElement>("form[aria-label='Edit images'] button[type=submit]")].some(
            (button) => !button.disabled && button.textContent?.includes("Edit image"),
          ),
        null,
        { timeout: 5_000 },
      );
      await form.getByTestId("mask-ready").waitFor();
      assert.equal(await form.getByTestId("edit-blocked").count(), 0, "no reason shown once it can run");
      assert.deepEqual(await problems(page, `edit panel at ${viewport.name}`), []);

      await editButton.click();
      await page.getByTestId("result-image").first().waitFor();
      await page.waitForFunction(() => {
        const image = document.querySelector<HTMLImageElement>('[data-testid="result-image"]');
        return Boolean(image?.complete && image.naturalWidth > 0);
      });
      const share = await shareInView(page, "result-image");
      assert.ok(share >= 0.5, `at ${viewport.name}, ${Math.round(share * 100)}% of the edited image is on screen`);
      await page.getByTestId("run-cost").first().waitFor();
      await screenshot(page, `playground-flow-edit-${viewport.name}`);
      assert.deepEqual(errors, []);
    }
  });

  test("the size picker lists every size, whichever is chosen; a custom size is still checked as typed", async () => {
    for (const viewport of VIEWPORTS) {
      const { page } = await signedIn(viewport);
      await page.goto("/playground");
      const form = page.getByRole("form", { name: "Generate an image" });
      const listed = async () => {
        await form.getByTestId("size-input").click();
        const listbox = page.getByRole("listbox");
        await listbox.waitFor();
        const names = (await listbox.getByRole("option").allTextContents()).map((name) => name.trim());
        return names;
      };
      let names = await listed();
      for (const size of COMMON_SIZES) assert.ok(names.includes(size), `at ${viewport.name}, ${size} is offered: ${names.join(", ")}`);
      await page.getByRole("option", { name: "1536x1024", exact: true }).click();
      await form.getByText("1536×1024 px").waitFor();
      names = await listed();
      for (const size of COMMON_SIZES) assert.ok(names.includes(size), `at ${viewport.name}, after a pick, ${size} is still offered`);
      assert.deepEqual(await problems(page, `size picker open at ${viewport.name}`), []);
      // Any other size: typed, and checked as it is typed.
      await page.getByRole("option", { name: /custom/i }).click();
      const custom = form.locator("input[name=size]");
      await custom.fill("1000x1000");
      await form.getByText("Width and height must both be multiples of 16 px.").waitFor();
      assert.equal(await form.getByRole("button", { name: "Generate image" }).isDisabled(), true);
      await custom.fill("2048x1024");
      await form.getByText("2048×1024 px").waitFor();
      assert.equal(await form.getByRole("button", { name: "Generate image" }).isDisabled(), false);
    }
  });

  test("Renew asks first, naming the new key and the cap; once confirmed, a notice and the new key; the words show whole", async () => {
    for (const viewport of VIEWPORTS) {
      const { page } = await signedIn(viewport);
      await page.goto("/playground");
      // The playground's key, as the first run would make it.
      const made = await page.evaluate(async () => {
        const answer = await fetch("/api/user/playground/renew", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        return ((await answer.json()) as { key: { prefix: string } }).key.prefix;
      });
      await page.reload();
      const status = page.getByTestId("playground-key-status");
      await status.getByText(`${made}…`).waitFor();
      const renew = page.getByRole("button", { name: "Renew", exact: true });
      await renew.waitFor();
      // Whole words: neither the button nor its label is cut off, and the text fits the label's box.
      const renewBox = await renew.evaluate((element) => {
        const label = element.querySelector(".mantine-Button-label") ?? element;
        const range = document.createRange();
        range.selectNodeContents(label);
        return {
          button: [element.scrollWidth, element.clientWidth],
          label: [label.scrollWidth, label.clientWidth],
          text: range.getBoundingClientRect().width,
          box: label.getBoundingClientRect().width,
        };
      });
      assert.ok(
        renewBox.button[0]! <= renewBox.button[1]! && renewBox.label[0]! <= renewBox.label[1]! && renewBox.text <= renewBox.box + 0.5,
        `at ${viewport.name}, "Renew" is cut off: ${JSON.stringify(renewBox)}`,
      );

      // Asked first: what Renew does, named.
      await renew.click();
      const dialog = page.getByRole("dialog", { name: /renew/i });
      await dialog.waitFor({ timeout: 5_000 });
      await dialog
        .getByText(/\$2\.00/)
        .first()
        .waitFor();
      await dialog.getByText(/stops working/i).waitFor();
      await dialog.getByText(`${made}…`).waitFor();
      assert.deepEqual(await problems(page, `renew dialog at ${viewport.name}`), []);
      // Cancel changes nothing.
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      const unchanged = await page.evaluate(
        async () => ((await (await fetch("/api/user/playground")).json()) as { key: { prefix: string } }).key.prefix,
      );
      assert.equal(unchanged, made);

      await renew.click();
      await dialog.getByRole("button", { name: "Renew key" }).click();
      const notice = page.getByTestId("renew-notice");
      await notice.waitFor();
      const now = await page.evaluate(
        async () => ((await (await fetch("/api/user/playground")).json()) as { key: { prefix: string } }).key.prefix,
      );
      assert.notEqual(now, made, "a new key");
      await notice.getByText(`${now}…`).waitFor();
      await notice.getByText(/\$2\.00/).waitFor();
      await status.getByText(`${now}…`).waitFor();
      await status.getByText("$2.00 of its $2.00 cap left").waitFor();
      assert.deepEqual(await problems(page, `playground after renew at ${viewport.name}`), []);
      await screenshot(page, `playground-flow-renewed-${viewport.name}`);

      // The Keys page lists it with its "playground" badge, shown whole.
      await page.goto("/keys");
      const row = page.getByTestId("key-row").filter({ hasText: now });
      await row.waitFor();
      await row.getByText("playground", { exact: true }).waitFor();
      assert.deepEqual(
        await clipped(page, "[data-testid=key-row] .mantine-Badge-root, [data-testid=key-row] .mantine-Badge-label"),
        [],
        `at ${viewport.name}`,
      );
      assert.deepEqual(await problems(page, `keys page at ${viewport.name}`), []);
    }
  });

  test("the base URL stays on one line and copies whole; the landing page's example scrolls inside its block", async () => {
    for (const viewport of VIEWPORTS) {
      const { page } = await open(viewport);
      await page.goto("/");
      const openai = page.getByTestId("base-url-openai");
      const oneLine = () =>
        openai.evaluate((element) => {
          const lineHeight = Number.parseFloat(getComputedStyle(element).lineHeight);
          return { height: element.getBoundingClientRect().height, lineHeight };
        });
      let lines = await oneLine();
      assert.ok(
        lines.height < lines.lineHeight * 1.5,
        `at ${viewport.name} on the landing page: ${lines.height} px for a ${lines.lineHeight} px line`,
      );
      assert.equal(await openai.textContent(), `${site}/v1`);

      const example = page.getByTestId("landing-example");
      const style = await example.evaluate((element) => {
        const computed = getComputedStyle(element);
        return { whiteSpace: computed.whiteSpace, overflowX: computed.overflowX, tag: element.tagName };
      });
      assert.equal(style.whiteSpace, "pre", `at ${viewport.name}`);
      assert.ok(["auto", "scroll"].includes(style.overflowX), `at ${viewport.name}: overflow-x ${style.overflowX}`);
      assert.match((await example.textContent()) ?? "", new RegExp(`baseURL: "${site.replace(/[.]/g, "\\.")}/v1"`));
      assert.deepEqual(await problems(page, `landing page at ${viewport.name}`), []);
      await screenshot(page, `playground-flow-landing-${viewport.name}`);

      if (viewport.width >= 768) {
        // The portal's sidebar, a narrow column.
        const signed = await signedIn(viewport);
        await signed.page.goto("/playground");
        const sidebar = signed.page.getByTestId("base-url-openai");
        lines = await sidebar.evaluate((element) => ({
          height: element.getBoundingClientRect().height,
          lineHeight: Number.parseFloat(getComputedStyle(element).lineHeight),
        }));
        assert.ok(
          lines.height < lines.lineHeight * 1.5,
          `in the sidebar at ${viewport.name}: ${lines.height} px for a ${lines.lineHeight} px line`,
        );
        assert.equal(await sidebar.textContent(), `${site}/v1`);
        assert.deepEqual(await problems(signed.page, `playground at ${viewport.name}`), []);
      }
    }
  });
});
