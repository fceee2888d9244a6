// In Chromium at 1280x800 and 390x844, with no SMTP_URL (the default): the account pages end nowhere silent.
// Forgot password and sign-up (verification on) say that the gateway sends no mail and to ask the operator; the
// operator's Overview says mail is off and how many messages wait in the outbox, with a link to it; after a password
// reset the old browser is not listed on the Security page, and that browser, sent to sign in, is told why; a used
// reset link is reported as the page opens; the 2FA code field takes focus at sign-in and in the setup. Each page is
// checked with axe (WCAG 2 A and AA, no serious or critical violation).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";
import { callApi, eventually, signedIn } from "../helpers/user-api";
import { currentTotp } from "@/lib/accounts/totp";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
const ADMIN = { email: "admin@example.com", password: "admin-password-123" };

before(async () => {
  gateway = await startGateway({ portal: true, timeoutMs: 180_000 });
  browser = await launchBrowser();
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
}

/** Serious and critical axe violations of the page as it is now. */
async function assertAccessible(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  assert.deepEqual(
    serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`),
    [],
  );
}

/** The token of the newest reset mail to `email` in the outbox, after asking for one. */
async function resetLink(email: string): Promise<string> {
  const resets = async () =>
    ((await gateway.admin("GET", `/api/admin/outbox?to=${encodeURIComponent(email)}`)).data as { subject: string; text: string }[]).filter(
      (mail) => /^Reset your/.test(mail.subject),
    );
  const count = (await resets()).length;
  assert.equal((await callApi(gateway.url, "POST", "/api/user/reset/request", { body: { email } })).status, 200);
  const found = await eventually(async () => ((await resets()).length > count ? await resets() : null), 10_000, "the reset mail");
  const url = new URL(/(https?:\/\/\S+\/reset-password\?\S+)/.exec(found[0]!.text)![1]!);
  return `${url.pathname}${url.search}`;
}

/** The name of the element that has focus. */
const focusedName = (page: Page) => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? null);

for (const viewport of VIEWPORTS) {
  const size = `${viewport.width}x${viewport.height}`;
  describe(`at ${size}`, () => {
    test("forgot password with mail off says so and to ask the operator", async () => {
      const user = await createUserWithKey(gateway);
      const { page } = await tab(viewport);
      await page.goto("/forgot-password");
      await page.locator("input[name=email]").fill(user.email);
      await page.getByRole("button", { name: "Send reset link" }).click();
      const notice = page.getByTestId("mail-off");
      await notice.getByText("This gateway does not send email", { exact: true }).waitFor();
      await notice.getByText(/Ask the operator of this gateway for your reset link/).waitFor();
      assert.equal(await page.getByText("Check your inbox").count(), 0, "no promise of a mail that will not come");
      await screenshot(page, `account-notices-${size}-forgot-mail-off`);
      await assertAccessible(page);
    });

    test("sign-up with verification on and mail off says to ask the operator", async () => {
      await gateway.admin("POST", "/api/admin/settings", { verifyEmail: true });
      try {
        const { page } = await tab(viewport);
        await page.goto("/sign-up");
        await page.locator("input[name=email]").fill(`new-${randomBytes(4).toString("hex")}@example.com`);
        await page.locator("input[name=password]").fill("a-long-password-42");
        await page.locator("input[name=confirm]").fill("a-long-password-42");
        await page.getByRole("button", { name: "Create account" }).click();
        await page.getByRole("heading", { name: "Ask the operator to confirm your account" }).waitFor();
        await page
          .getByTestId("mail-off")
          .getByText(/Ask the operator of this gateway to confirm your account/)
          .waitFor();
        assert.equal(await page.getByRole("heading", { name: "Check your email" }).count(), 0);
        await screenshot(page, `account-notices-${size}-sign-up-mail-off`);
        await assertAccessible(page);
      } finally {
        await gateway.admin("POST", "/api/admin/settings", { verifyEmail: null });
      }
    });

    test("the operator's Overview says mail is off and how many messages wait, linking to the outbox", async () => {
      const { page } = await tab(viewport);
      await signIn(page, ADMIN.email, ADMIN.password);
      await page.waitForURL("**/dashboard");
      // The count the page should show: the outbox's undelivered messages now (nothing is sent while this runs).
      const waiting = (await gateway.admin("GET", "/api/admin/overview")).mail.waiting as number;
      assert.ok(waiting >= 1, "the tests above left messages in the outbox");
      await page.goto("/admin");
      const notice = page.getByTestId("mail-notice");
      await notice.getByText("Mail is off").waitFor();
      await notice.getByText("SMTP_URL is not set", { exact: false }).waitFor();
      assert.equal(await notice.getByTestId("mail-waiting").textContent(), `${waiting} message${waiting === 1 ? "" : "s"}`);
      await screenshot(page, `account-notices-${size}-overview-mail-off`);
      await assertAccessible(page);
      await notice.getByRole("link", { name: "Open the Email outbox" }).click();
      await page.waitForURL("**/admin/outbox");
      await page.getByRole("heading", { name: "Email outbox" }).waitFor();
    });

    test("after a reset the old browser is not listed; sent to sign in, it is told why; the used link says so on open", async () => {
      const user = await createUserWithKey(gateway);
      const old = (await tab(viewport)).page;
      await signIn(old, user.email, user.password);
      await old.waitForURL("**/dashboard");

      // Another browser opens the mailed link and chooses a new password.
      const link = await resetLink(user.email);
      const fresh = (await tab(viewport)).page;
      await fresh.goto(link);
      await fresh.locator("input[name=password]").fill("after-reset-pass-1");
      await fresh.locator("input[name=confirm]").fill("after-reset-pass-1");
      await fresh.getByRole("button", { name: "Set new password" }).click();
      await fresh.waitForURL("**/sign-in?reset=1**");
      await fresh.locator("input[name=password]").fill("after-reset-pass-1");
      await fresh.getByRole("button", { name: "Sign in", exact: true }).click();
      await fresh.waitForURL("**/dashboard");
      await fresh.goto("/security");
      await fresh.getByTestId("session-row").first().waitFor();
      assert.equal(await fresh.getByTestId("session-row").count(), 1, "only this browser: the one signed out by the reset is gone");
      await screenshot(fresh, `account-notices-${size}-security-after-reset`);

      // The old browser's next page: sent to sign in, with the reason.
      await old.goto("/keys");
      await old.waitForURL("**/sign-in?ended=1**");
      await old
        .getByTestId("session-ended")
        .getByText(/You were signed out: this session was ended/)
        .waitFor();
      await screenshot(old, `account-notices-${size}-session-ended`);
      await assertAccessible(old);

      // The same link again: used, said as the page opens, with no password to type first.
      const again = (await tab(viewport)).page;
      await again.goto(link);
      await again
        .getByTestId("reset-link-refused")
        .getByText(/already been used/)
        .waitFor();
      assert.equal(await again.locator("input[name=password]").count(), 0);
      await again.getByRole("link", { name: "Request a new link" }).waitFor();
      await screenshot(again, `account-notices-${size}-reset-link-used`);
      await assertAccessible(again);
    });

    test("the 2FA code field takes focus: at sign-in's second step and in the setup", async () => {
      const user = await createUserWithKey(gateway);
      const { page } = await tab(viewport);
      await signIn(page, user.email, user.password);
      await page.waitForURL("**/dashboard");
      await page.goto("/security");
      await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
      await page.getByTestId("totp-secret").waitFor();
      // The first box of the code has focus.
      await eventually(
        () =>
          page.evaluate(() => {
            const active = document.activeElement;
            return Boolean(active?.tagName === "INPUT" && document.querySelector("[data-testid=totp-code]")?.contains(active));
          }),
        5_000,
        "the code's first box to have focus",
      );
      await assertAccessible(page);

      // 2FA on (through the API), then the sign-in's second step.
      const api = await signedIn(gateway.url, user.email, user.password);
      const secret = (await api.call("POST", "/api/user/2fa/setup", {})).body.secret;
      assert.equal((await api.call("POST", "/api/user/2fa/enable", { code: await currentTotp(secret) })).status, 200);
      const second = (await tab(viewport)).page;
      await signIn(second, user.email, user.password);
      await second.locator("input[name=code]").waitFor();
      await eventually(async () => (await focusedName(second)) === "code", 5_000, "the code field to have focus");
      await screenshot(second, `account-notices-${size}-sign-in-code`);
      await assertAccessible(second);
    });
  });
}
