// The pure money rules of docs/billing.md: prompt caching, the long-context tier, server tools and betas.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costOf, plainPrice, textReservation, type Price } from "@/lib/money/prices";
import { planServerTools, textInputBound, DEFAULT_SERVER_TOOL_USES, SERVER_TOOL_RESULT_TOKENS } from "@/lib/money/reservation";
import { countMessagesInputTokens, countChatRequestInputTokens, newCountStats } from "@/lib/money/tokens";
import { allowedBetas } from "@/lib/dialects/messages/betas";
import { GatewayError } from "@/lib/platform/errors";

// msg-sonnet-4-6[1m] as seeded: $3 / $15 up to 200,000 input tokens, $6 / $22.50 above; caching 0.1x / 1.25x / 2x.
const sonnet1m: Price = {
  ...plainPrice({ model: "msg-sonnet-4-6[1m]", textInput: 3, textOutput: 15, imageInput: 3, imageOutput: 0 }),
  cacheRead: 0.1,
  cacheWrite: 1.25,
  cacheWrite1h: 2,
  tier: { threshold: 200_000, textInput: 6, textOutput: 22.5 },
  toolPrices: { web_search: 10_000 },
};
const none = { imageInputTokens: 0, imageOutputTokens: 0 };

test("prompt caching: reads at 0.1x, 5-minute writes at 1.25x, 1-hour writes at 2x of the input rate", () => {
  const usage = {
    ...none,
    textInputTokens: 1_000,
    textOutputTokens: 100,
    cacheReadTokens: 10_000,
    cacheWriteTokens: 3_000,
    cacheWrite1hTokens: 1_000,
  };
  // 1,000 x 3 + 10,000 x 0.3 + 2,000 x 3.75 + 1,000 x 6 + 100 x 15
  assert.equal(costOf(usage, sonnet1m), 3_000 + 3_000 + 7_500 + 6_000 + 1_500);
});

test("the long-context tier prices the whole request once its input (cache tokens included) passes the threshold", () => {
  assert.equal(
    costOf({ ...none, textInputTokens: 200_000, textOutputTokens: 1_000 }, sonnet1m),
    200_000 * 3 + 1_000 * 15,
    "at the threshold: base rates",
  );
  assert.equal(
    costOf({ ...none, textInputTokens: 200_001, textOutputTokens: 1_000 }, sonnet1m),
    Math.ceil(200_001 * 6 + 1_000 * 22.5),
    "past it: every token at the tier",
  );
  assert.equal(
    costOf({ ...none, textInputTokens: 100_000, cacheReadTokens: 150_000, textOutputTokens: 0 }, sonnet1m),
    100_000 * 6 + 150_000 * 0.6,
    "cache reads count toward it",
  );
  assert.equal(
    textReservation(sonnet1m, { inputTokens: 250_000, outputTokens: 1_000 }),
    250_000 * 6 + 1_000 * 22.5,
    "a bound past the threshold is reserved at the tier",
  );
});

test("server tools: priced per use, max_uses set when missing, refused without a price", () => {
  const tools: Record<string, unknown>[] = [
    { type: "web_search_20250305", name: "web_search" },
    { name: "custom_tool", input_schema: {} },
    { type: "bash_20250124", name: "bash" },
  ];
  const plan = planServerTools(tools, sonnet1m, "m");
  assert.equal(tools[0]!.max_uses, DEFAULT_SERVER_TOOL_USES);
  assert.deepEqual(plan.uses, { web_search: DEFAULT_SERVER_TOOL_USES });
  assert.equal(plan.passes, 1 + DEFAULT_SERVER_TOOL_USES);
  assert.equal(plan.inputTokens, DEFAULT_SERVER_TOOL_USES * SERVER_TOOL_RESULT_TOKENS + 1_500);
  assert.equal(costOf({ ...none, textInputTokens: 0, textOutputTokens: 0, toolUses: { web_search: 2 } }, sonnet1m), 20_000);
  assert.throws(
    () => planServerTools([{ type: "code_execution_20250825", name: "code_execution" }], sonnet1m, "m"),
    (error: unknown) => error instanceof GatewayError && /no per-use price/.test(error.message),
  );
});

test("the input bound: 1.2 x the count, never below a quarter of the request's bytes without its media", () => {
  const stats = newCountStats();
  const counted = countChatRequestInputTokens(
    { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(40_000)}` } }] }] },
    stats,
  );
  assert.equal(stats.mediaChars, 40_000 + "data:image/png;base64,".length);
  assert.equal(stats.imageHeadroom, 1_445 - 765, "images are reserved at the vision formula's maximum");
  const bound = textInputBound(counted, { bytes: 40_100, items: 1 }, stats);
  assert.equal(bound, Math.ceil(counted * 1.2) + 680 + 32 + 16);
  assert.equal(textInputBound(10, { bytes: 4_000, items: 0 }, newCountStats()), 1_000 + 32, "a structured request is reserved by its size");
});

test("every priced field is counted: unknown fields by their JSON, cache_control noted", () => {
  const base = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
  const plain = countMessagesInputTokens(base);
  assert.ok(
    countMessagesInputTokens({ ...base, context_management: { edits: [{ type: "clear_tool_uses", note: "x".repeat(400) }] } } as never) >
      plain + 50,
  );
  assert.equal(
    countMessagesInputTokens({ ...base, temperature: 0.5, top_k: 3, stream: true } as never),
    plain,
    "sampling settings cost nothing",
  );
  const stats = newCountStats();
  countMessagesInputTokens({ ...base, system: [{ type: "text", text: "s", cache_control: { type: "ephemeral", ttl: "1h" } }] }, stats);
  assert.equal(stats.cacheWrite, "1h");
  const chat = { messages: [{ role: "user", content: "hi" }] };
  assert.ok(
    countChatRequestInputTokens({
      ...chat,
      response_format: { type: "json_schema", json_schema: { schema: { description: "y".repeat(800) } } },
    } as never) >
      countChatRequestInputTokens(chat) + 100,
  );
  assert.ok(
    countChatRequestInputTokens({ ...chat, functions: [{ name: "f", description: "z ".repeat(200) }] } as never) >
      countChatRequestInputTokens(chat) + 100,
  );
});

test("betas pass by allowlist (plus the channel's own), the 1M beta never from the client", () => {
  const { allowed, dropped } = allowedBetas(
    "claude-code-20250219, context-1m-2025-08-07,files-api-2025-04-14,fast-mode-2026-02-01,extra-2026",
    { betas: ["extra-2026"] },
  );
  assert.deepEqual(allowed, ["claude-code-20250219", "extra-2026"]);
  assert.deepEqual(dropped, ["context-1m-2025-08-07", "files-api-2025-04-14", "fast-mode-2026-02-01"]);
});
