// In Chromium at 1280x800 and 390x844: the operator's ledger is a compact table on a laptop (a card per row only on a
// phone), filtered by the key prefix it shows; a row opens a drawer with its timing and the failover that served it
// (docs/api.md, "The operator's ledger"); the audit log says each change in words with what changed, and filters; the
// operator's nav reaches Settings in an 800 px tall window; a voided code reads "Voided"; a user row opens the user.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { withDatabase } from "../helpers/database";

const MODEL = "std-5.5";
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let gateway: Gateway;
let browser: Browser;
let broken: FaultUpstream;
let healthy: FaultUpstream;
const tabs: Tab[] = [];
let payer: Awaited<ReturnType<typeof createUserWithKey>>;
let prefix: string;

async function chat(key: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hello" }] }),
  });
  assert.equal(response.status, 200);
  await response.text();
}

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: ["std-image-2"] });
  broken = await startFaultUpstream("5xx");
  healthy = await startFaultUpstream("ok");
  for (const [name, upstream, priority] of [
    ["broken-primary", broken, 100],
    ["healthy-backup", healthy, 50],
  ] as const)
    await gateway.admin("POST", "/api/admin/channels", {
      name,
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: "sk-upstream-secret-e2e",
      models: [MODEL],
      priority,
    });
  // Other traffic first, then the request the test looks for: 30 rows of another user, enough to fill a screen.
  const other = await createUserWithKey(gateway, { email: "other-traffic@example.com" });
  for (let index = 0; index < 30; index++) await chat(other.key);
  // A request its client left and one that failed, among the first rows (a striped one among them): their badges
  // must be as readable as the others' (axe's contrast check).
  const otherKey = (await gateway.admin("GET", `/api/admin/keys?userId=${other.userId}`)).data[0];
  await withDatabase(gateway.databaseUrl, async (query) => {
    for (const [index, status, httpStatus] of [
      [0, "error", 502],
      [1, "cancelled", 200],
    ] as const)
      await query(
        `INSERT INTO "UsageLog" ("id", "kind", "requestId", "userId", "keyId", "keyPrefix", "endpoint", "model", "cost", "status", "httpStatus", "textOutputTokens", "createdAt")
         VALUES (?, 'request', ?, ?, ?, ?, '/v1/chat/completions', ?, ?, ?, ?, ?, ?)`,
        [
          `usage-badge-${index}`,
          `req_badge_${index}`,
          other.userId,
          other.keyId,
          otherKey.prefix,
          MODEL,
          120,
          status,
          httpStatus,
          3,
          new Date(),
        ],
      );
  });
  payer = await createUserWithKey(gateway, { email: "ledger-payer@example.com" });
  prefix = (await gateway.admin("GET", `/api/admin/keys?userId=${payer.userId}`)).data[0].prefix;
  await chat(payer.key);
  await gateway.admin("PATCH", `/api/admin/users/${payer.userId}`, { balanceDelta: 5 });
  // A batch with one voided code.
  await gateway.admin("POST", "/api/admin/redeem-codes", { quota: 1_000_000, count: 2, batch: "voided-batch" });
  const codes = (await gateway.admin("GET", "/api/admin/redeem-codes?batch=voided-batch")).data;
  await gateway.admin("POST", "/api/admin/redeem-codes/void", { ids: [codes[0].id] });
  await gateway.admin("POST", "/api/admin/groups", { name: "audited", models: [MODEL] });
});
after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await Promise.all([broken?.close(), healthy?.close()]);
  await stopAllGateways();
});

async function signedInTab(viewport: { width: number; height: number }): Promise<Page> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  const { page } = opened;
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill("admin@example.com");
  await page.locator("input[name=password]").fill("admin-password-123");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
  return page;
}

async function noSeriousAxeViolations(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  assert.deepEqual(
    serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`),
    [],
  );
}

describe("the operator's ledger", () => {
  test("at 1280x800: a table with at least 10 rows on screen; the shown key prefix filters; a row opens timing and the failover", async () => {
    const page = await signedInTab(LAPTOP);
    await page.goto("/admin/usage");
    const table = page.getByTestId("ledger-table");
    await page.getByTestId("ledger-row").first().waitFor();
    assert.equal(await table.locator("[data-stacked]").count(), 0);
    assert.equal(await page.locator(".data-table[data-stacked]").count(), 0, "a table, not cards");
    const onScreen = await page
      .getByTestId("ledger-row")
      .evaluateAll((rows) => rows.filter((row) => row.getBoundingClientRect().bottom <= window.innerHeight).length);
    assert.ok(onScreen >= 10, `${onScreen} rows on screen`);
    await noSeriousAxeViolations(page);
    await screenshot(page, "operator-ledger-1280");

    // The key as the table shows it, with its ellipsis, finds the payer's rows.
    await page.getByLabel("Key", { exact: true }).fill(`${prefix}…`);
    await page.getByTestId("ledger-row").filter({ hasText: "other-traffic@example.com" }).first().waitFor({ state: "detached" });
    const rows = page.getByTestId("ledger-row");
    assert.equal(await rows.count(), 1);
    await rows.first().getByText(MODEL).waitFor();

    // Opened by keyboard: the time is a button.
    await rows.first().getByRole("button").focus();
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("dialog");
    await drawer.getByText("Upstream first byte").waitFor();
    const failovers = drawer.getByTestId("ledger-failovers");
    await failovers.getByText("broken-primary").waitFor();
    await failovers.getByText("healthy-backup").waitFor();
    await failovers.getByText(/tried · 5\d\d/).waitFor();
    await drawer.getByText("the upstream's usage report").waitFor();
    assert.equal(await drawer.getByText("not recorded").count(), 0, "queue, first byte and total are all there");
    await noSeriousAxeViolations(page);
    await screenshot(page, "operator-ledger-1280-drawer");
  });

  test("at 390x844: a card per row, and a card opens the same drawer", async () => {
    const page = await signedInTab(PHONE);
    await page.goto("/admin/usage");
    await page.getByTestId("ledger-row").first().waitFor();
    await page.locator(".data-table[data-stacked]").waitFor();
    await page
      .getByTestId("ledger-row")
      .filter({ hasText: "ledger-payer@example.com" })
      .filter({ hasText: MODEL })
      .getByRole("button")
      .click();
    await page.getByRole("dialog").getByText("Upstream first byte").waitFor();
    await noSeriousAxeViolations(page);
    await screenshot(page, "operator-ledger-390-drawer");
  });
});

describe("the other operator pages", () => {
  for (const viewport of [LAPTOP, PHONE]) {
    test(`at ${viewport.width}x${viewport.height}: the audit log in words with what changed, filtered by kind`, async () => {
      const page = await signedInTab(viewport);
      await page.goto("/admin/audit");
      const row = page.getByTestId("audit-row").filter({ hasText: 'Channel "healthy-backup" created' });
      await row.waitFor();
      await row.getByText(/apiKey: — → \(not shown\)/).waitFor();
      assert.equal(await page.getByText("sk-upstream-secret-e2e").count(), 0);
      await page.getByRole("combobox", { name: "Kind of change" }).click();
      await page.getByRole("option", { name: "Groups" }).click();
      await page.getByTestId("audit-row").filter({ hasText: 'Group "audited" created' }).waitFor();
      await page.getByTestId("audit-row").filter({ hasText: "Channel" }).first().waitFor({ state: "detached" });
      await noSeriousAxeViolations(page);
      await screenshot(page, `operator-audit-${viewport.width}`);
    });
  }

  test("at 1280x800: the nav reaches Settings, by scrolling it", async () => {
    const page = await signedInTab(LAPTOP);
    await page.goto("/admin/usage");
    const settings = page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Settings" });
    await settings.scrollIntoViewIfNeeded();
    const box = await settings.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= LAPTOP.height, `Settings is on screen (${JSON.stringify(box)})`);
    await settings.click();
    await page.waitForURL("**/admin/settings");
  });

  for (const viewport of [LAPTOP, PHONE]) {
    test(`at ${viewport.width}x${viewport.height}: a voided code reads "Voided"; a user row opens the user`, async () => {
      const page = await signedInTab(viewport);
      await page.goto("/admin/codes");
      await page.getByText("Voided", { exact: true }).first().waitFor();
      assert.equal(await page.getByText("disabled", { exact: true }).count(), 0);
      await noSeriousAxeViolations(page);

      await page.goto("/admin/users");
      const row = page.getByTestId("user-row").filter({ hasText: "ledger-payer@example.com" });
      await row.getByRole("button", { name: "Open ledger-payer@example.com" }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("dialog").getByText("ledger-payer@example.com").first().waitFor();
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
      // A click elsewhere on the row opens it too.
      await row.locator("td").nth(3).click();
      await page.getByRole("dialog").getByText("ledger-payer@example.com").first().waitFor();
      await noSeriousAxeViolations(page);
    });
  }
});
