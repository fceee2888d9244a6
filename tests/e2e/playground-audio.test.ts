// The portal for the embedding, speech and transcription endpoints, in Chromium against the real server (the
// simulator serves them): the playground's Audio panel speaks a text that an <audio> element plays (MP3 and WAV,
// decoded by Chromium), transcribes it and an uploaded file, and shows each run's cost as the ledger has it; Models &
// pricing lists the four models in their units; the operator sees and edits the audio rates on Groups & prices ›
// Prices. axe (WCAG 2 A and AA) finds no violation on the Audio panel or the Models page, at 1280 and 390 px.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { launchBrowser, openTab, screenshot, type Tab } from "../helpers/browser";

let gateway: Gateway;
let browser: Browser;
const tabs: Tab[] = [];
let user: Awaited<ReturnType<typeof createUserWithKey>>;

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

before(async () => {
  gateway = await startGateway({ portal: true });
  browser = await launchBrowser();
  user = await createUserWithKey(gateway, { balance: 20_000_000 });
});
after(async () => {
  for (const opened of tabs) await opened.context.close().catch(() => undefined);
  await browser?.close();
  await stopAllGateways();
});

async function signedIn(email: string, password: string, viewport = VIEWPORTS[0]): Promise<Tab> {
  const opened = await openTab(browser, gateway.url, viewport);
  tabs.push(opened);
  const { page } = opened;
  await page.goto("/sign-in");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL("**/dashboard");
  return opened;
}

/** Every axe violation (WCAG 2 A and AA, any impact) of the page as it is now, and any sideways scrolling. */
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

/** The length the page's <audio> element reads once it has loaded the file's header. */
async function playerDuration(page: Page): Promise<{ src: string; duration: number }> {
  return page.getByTestId("speech-audio").evaluate(async (element) => {
    const audio = element as HTMLAudioElement;
    if (audio.readyState < 1 || !Number.isFinite(audio.duration)) {
      await new Promise<void>((resolve, reject) => {
        audio.addEventListener("loadedmetadata", () => resolve(), { once: true });
        audio.addEventListener("error", () => reject(new Error(`the audio did not load: media error ${audio.error?.code}`)), {
          once: true,
        });
        audio.load();
      });
    }
    return { src: audio.currentSrc, duration: audio.duration };
  });
}

/** The newest ledger row of `model` for the signed-in person. */
async function latestRow(page: Page, model: string): Promise<{ cost: number; endpoint: string; status: string }> {
  return page.evaluate(async (name) => {
    const answer = await fetch(`/api/user/usage?kind=request&limit=1&model=${encodeURIComponent(name)}`);
    return ((await answer.json()) as { data: { cost: number; endpoint: string; status: string }[] }).data[0]!;
  }, model);
}

const costText = (micros: number) => `Cost: $${(micros / 1e6).toFixed(6)}`;

async function openAudio(page: Page, narrow = false): Promise<void> {
  await page.goto("/playground");
  // Side by side from a tablet's width; on a phone, a list to pick from.
  if (narrow) {
    await page.getByTestId("endpoint-picker").click();
    await page.getByRole("option", { name: "Audio", exact: true }).click();
  } else await page.getByTestId("endpoint-picker").getByText("Audio", { exact: true }).click();
  await page.getByRole("form", { name: "Speak a text" }).waitFor();
}

async function speak(page: Page, text: string, format: "mp3" | "wav", voice = "nova"): Promise<void> {
  const form = page.getByRole("form", { name: "Speak a text" });
  await form.getByLabel("Text to speak").fill(text);
  await form.getByTestId("voice-picker").click();
  await page.getByRole("option", { name: voice, exact: true }).click();
  await form.getByText(format, { exact: true }).click();
  const before = await page.evaluate(() => document.querySelector("[data-testid=speech-audio]")?.getAttribute("src") ?? null);
  await form.getByRole("button", { name: "Speak" }).click();
  await page.waitForFunction(
    (previous) => {
      const src = document.querySelector("[data-testid=speech-audio]")?.getAttribute("src");
      return src && src !== previous;
    },
    before,
    { timeout: 30_000 },
  );
}

describe("the portal for embeddings, speech and transcription", () => {
  test("Audio panel: speak (MP3, then WAV) and hear it, transcribe the speech and an uploaded file, each run's cost", async () => {
    const { page, errors } = await signedIn(user.email, user.password);
    await openAudio(page);

    // MP3: the player gets the answer as a blob and Chromium reads its length.
    await speak(page, "Testing the audio panel.", "mp3");
    const mp3 = await playerDuration(page);
    assert.match(mp3.src, /^blob:/);
    assert.ok(mp3.duration > 0, `an MP3 of ${mp3.duration} s`);
    const speechCard = page.getByTestId("speech-result");
    await speechCard.getByTestId("run-cost").waitFor();
    let row = await latestRow(page, "std-tts-1");
    // 24 characters at $15 per 1M characters.
    assert.deepEqual([row.cost, row.endpoint, row.status], [24 * 15, "/v1/audio/speech", "success"]);
    assert.equal(await speechCard.getByTestId("run-cost").textContent(), costText(row.cost));
    await speechCard.getByText("nova", { exact: true }).waitFor();

    // WAV: 60 ms per character from the simulator, exactly.
    await speak(page, "A second, longer sentence to speak.", "wav", "coral");
    const wav = await playerDuration(page);
    assert.ok(Math.abs(wav.duration - 35 * 0.06) < 0.01, `a WAV of ${wav.duration} s`);
    await speechCard.getByText("coral", { exact: true }).waitFor();
    await speechCard.getByText("$0.000525").waitFor();

    // Transcribe the speech just made: the simulator's transcript names the length it measured.
    const transcribeForm = page.getByRole("form", { name: "Transcribe audio" });
    await transcribeForm.getByRole("button", { name: "Transcribe" }).click();
    const transcript = page.getByTestId("transcript");
    await transcript.filter({ hasText: /simulated transcription/ }).waitFor();
    const heard = (await transcript.textContent()) ?? "";
    const said = /of ([\d.]+) seconds of audio/.exec(heard);
    assert.ok(said, heard);
    assert.ok(Math.abs(Number(said[1]) - wav.duration) < 0.01, `${said[1]} s transcribed, ${wav.duration} s played`);
    const transcriptCard = page.getByTestId("transcript-result");
    await transcriptCard
      .getByTestId("transcript-seconds")
      .getByText(`${wav.duration.toFixed(2)} s of audio`)
      .waitFor();
    await transcriptCard.getByTestId("run-cost").waitFor();
    row = await latestRow(page, "std-transcribe-1");
    assert.deepEqual([row.endpoint, row.status], ["/v1/audio/transcriptions", "success"]);
    assert.ok(row.cost > 0);
    assert.equal(await transcriptCard.getByTestId("run-cost").textContent(), costText(row.cost));
    await screenshot(page, "audio-panel-1280");
    const found = await problems(page, "Audio panel @1280");

    // An uploaded file (a WAV the API made, 12 characters long: 0.72 s).
    const file = await fetch(`${gateway.url}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-tts-1", input: "Hello, file.", voice: "alloy", response_format: "wav" }),
    });
    assert.equal(file.status, 200);
    await transcribeForm.getByText("A file", { exact: true }).click();
    await transcribeForm
      .locator("input[type=file]")
      .setInputFiles({ name: "hello.wav", mimeType: "audio/wav", buffer: Buffer.from(await file.arrayBuffer()) });
    await transcribeForm.getByRole("button", { name: "Transcribe" }).click();
    await transcriptCard.getByText("of hello.wav").waitFor();
    await transcript.filter({ hasText: "This is a simulated transcription of 0.72 seconds of audio." }).waitFor();
    await transcriptCard.getByText(costText(72)).waitFor();
    found.push(...(await problems(page, "Audio panel with a file @1280")));
    assert.deepEqual(found, []);
    assert.deepEqual(errors, []);
  });

  test("Audio panel at 390 px: the endpoint picker and the panel fit, no axe violation", async () => {
    const { page, errors } = await signedIn(user.email, user.password, VIEWPORTS[1]);
    await openAudio(page, true);
    const found = await problems(page, "Audio panel, empty @390");
    await speak(page, "Small screen.", "wav");
    assert.ok((await playerDuration(page)).duration > 0);
    await page.getByTestId("speech-result").getByTestId("run-cost").waitFor();
    await screenshot(page, "audio-panel-390");
    found.push(...(await problems(page, "Audio panel @390")));
    assert.deepEqual(found, []);
    assert.deepEqual(errors, []);
  });

  for (const viewport of VIEWPORTS) {
    test(`Models & pricing at ${viewport.width} px: the embedding, speech and transcription models in their units; no axe violation`, async () => {
      const { page } = await signedIn(user.email, user.password, viewport);
      await page.goto("/models");
      await page.getByRole("heading", { name: "Models & pricing" }).waitFor();
      const card = (model: string) =>
        page.getByTestId("model-card").filter({ has: page.getByRole("heading", { name: model, exact: true }) });
      for (const [model, kind, unit, price] of [
        ["std-embedding-3-small", "embeddings", "Per 1M input tokens", "$0.02"],
        ["std-embedding-3-large", "embeddings", "Per 1M input tokens", "$0.13"],
        ["std-tts-1", "speech", "Per 1M characters", "$15.00"],
        // $100 per 1M seconds: $0.006 a minute.
        ["std-transcribe-1", "transcription", "Per minute of audio", "$0.006"],
      ] as const) {
        const prices = card(model).getByTestId("model-prices");
        await prices.getByText(unit, { exact: true }).waitFor();
        await prices.getByText(price, { exact: true }).waitFor();
        assert.equal(await card(model).getByTestId("model-kind").textContent(), kind, model);
      }
      assert.match(
        (await card("std-tts-1").getByTestId("model-example").textContent()) ?? "",
        /\/v1\/audio\/speech[\s\S]*--output speech\.mp3/,
      );
      assert.match((await card("std-transcribe-1").getByTestId("model-example").textContent()) ?? "", /-F file=@speech\.mp3/);
      assert.match((await card("std-embedding-3-small").getByTestId("model-example").textContent()) ?? "", /\/v1\/embeddings/);
      await screenshot(page, `audio-models-${viewport.width}`);
      assert.deepEqual(await problems(page, `Models @${viewport.width}`), []);
    });
  }

  test("Groups & prices › Prices: the audio rates shown for the models they apply to, and edited in the form", async () => {
    const { page, errors } = await signedIn("admin@example.com", "admin-password-123");
    await page.goto("/admin/groups");
    await page.getByRole("tab", { name: "Prices" }).click();
    const rate = (model: string) =>
      page
        .locator("tbody tr")
        .filter({ has: page.locator("td", { hasText: new RegExp(`^${model.replace(/[.]/g, "\\.")}$`) }) })
        .getByTestId("audio-rate");
    await rate("std-tts-1").getByText("$15.00 per 1M characters").waitFor();
    await rate("std-transcribe-1").getByText("$100.00 per 1M seconds").waitFor();
    await rate("std-transcribe-1").getByText("($0.006 a minute)").waitFor();
    assert.equal(await rate("std-5.5").textContent(), "—");

    // A text model's form has no audio rate; the speech model's has its own, and only that one.
    await page.getByRole("button", { name: "Edit price of std-5.5" }).click();
    let dialog = page.getByRole("dialog");
    await dialog.locator("input[name=textInput]").waitFor();
    assert.equal(await dialog.locator("input[name=characterInput], input[name=audioInputSecond]").count(), 0);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    await page.getByRole("button", { name: "Edit price of std-transcribe-1" }).click();
    dialog = page.getByRole("dialog");
    await dialog.locator("input[name=audioInputSecond]").fill("200");
    await dialog.getByText("$0.012 a minute").waitFor();
    assert.equal(await dialog.locator("input[name=characterInput]").count(), 0);
    await screenshot(page, "audio-price-form");
    await dialog.getByRole("button", { name: "Save price" }).click();
    await page.getByText("Price saved").waitFor();
    await rate("std-transcribe-1").getByText("$200.00 per 1M seconds").waitFor();
    const row = (await gateway.admin("GET", "/api/admin/prices")).data.find(
      (price: { model: string }) => price.model === "std-transcribe-1",
    );
    assert.deepEqual([row.audioInputSecond, row.characterInput, row.textInput], [200, 0, 0]);
    await screenshot(page, "audio-prices-table");
    assert.deepEqual(errors, []);
  });
});
