import { test } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import {
  CHAT_IMAGE_TOKENS,
  EXACT_COUNT_CHARS,
  MESSAGES_IMAGE_TOKENS,
  REQUEST_EXACT_CHARS,
  TOKENS_PER_MESSAGE,
  countChatInputTokens,
  countChatRequestInputTokens,
  countMessagesInputTokens,
  countTextTokens,
  newCountStats,
  truncateToTokens,
} from "@/lib/money/tokens";

// Deterministic pseudo-random text, so each measurement sees text the tokenizer's merge cache has not seen.
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}
const syllables = [
  "ka",
  "lo",
  "mi",
  "ter",
  "son",
  "ver",
  "al",
  "pre",
  "dic",
  "tion",
  "ment",
  "ous",
  "gra",
  "phy",
  "bel",
  "stra",
  "quin",
  "zor",
];
function prose(length: number, seed: number): string {
  const next = random(seed);
  let text = "";
  while (text.length < length) {
    const word = Array.from({ length: 1 + Math.floor(next() * 4) }, () => syllables[Math.floor(next() * syllables.length)]).join("");
    text += word + (next() < 0.1 ? ".\n" : " ");
  }
  return text.slice(0, length);
}
function base64(length: number, seed: number): string {
  const next = random(seed);
  return Buffer.from(Array.from({ length: Math.ceil(length * 0.75) }, () => Math.floor(next() * 256)))
    .toString("base64")
    .slice(0, length);
}
function rareHan(length: number, seed: number): string {
  const next = random(seed);
  return Array.from({ length }, () => String.fromCharCode(0x4e00 + Math.floor(next() * 20_000))).join("");
}

const chineseWords =
  "我们 中国 经济 发展 技术 模型 网关 用户 服务 系统 数据 问题 方法 可以 因为 所以 但是 如果 需要 使用 一个 这个 没有 已经 工作 时间 世界 公司 市场 政府 社会 文化 历史 教育 学生 研究 科学 信息 网络 安全 管理 产品 价格 质量 环境 能源 城市 国家".split(
    " ",
  );
function chineseProse(length: number, seed: number): string {
  const next = random(seed);
  let text = "";
  while (text.length < length) {
    text += chineseWords[Math.floor(next() * chineseWords.length)];
    if (next() < 0.08) text += "，";
    if (next() < 0.04) text += "。\n";
  }
  return text.slice(0, length);
}

function time(run: () => number): { tokens: number; ms: number } {
  const start = performance.now();
  const tokens = run();
  return { tokens, ms: performance.now() - start };
}

test("counts short text exactly, and treats special-token strings as plain text", () => {
  assert.equal(countTextTokens(""), 0);
  assert.equal(countTextTokens("Hello, world!"), countTokens("Hello, world!"));
  assert.equal(countTextTokens("ignore <|endoftext|> this"), countTokens("ignore <|endoftext|> this", { disallowedSpecial: new Set() }));
});

test("exact counting within the budget matches the tokenizer on the whole text", () => {
  const text = prose(EXACT_COUNT_CHARS, 1);
  const whole = countTokens(text);
  const ours = countTextTokens(text);
  assert.ok(Math.abs(ours - whole) / whole < 0.005, `${ours} vs ${whole}`);
  // Long runs without spaces are cut into pieces; the count stays within 2%.
  const han = rareHan(EXACT_COUNT_CHARS / 8, 2);
  const hanWhole = countTokens(han);
  assert.ok(Math.abs(countTextTokens(han) - hanWhole) / hanWhole < 0.02, `${countTextTokens(han)} vs ${hanWhole}`);
});

test("beyond the budget the estimate is never below chars/3 and follows dense tails", () => {
  const english = prose(200_000, 3);
  const estimate = countTextTokens(english);
  assert.ok(estimate >= Math.ceil((english.length - EXACT_COUNT_CHARS) / 3));
  assert.ok(estimate >= countTokens(english), "English is estimated high (reservation upper bound)");

  // An English head followed by base64 (about 1.4 characters per token): sampling the tail sees it.
  const mixed = prose(EXACT_COUNT_CHARS, 4) + base64(300_000, 5);
  const mixedExact = countTokens(mixed);
  const mixedEstimate = countTextTokens(mixed);
  assert.ok(mixedEstimate > mixedExact * 0.9, `${mixedEstimate} vs exact ${mixedExact}`);
  assert.ok(mixedEstimate > Math.ceil(mixed.length / 3) * 1.5);

  // Chinese prose: a non-ASCII character spends 8 of the budget, and the sampled estimate stays close.
  const chinese = chineseProse(30_000, 6);
  const chineseExact = countTokens(chinese);
  const chineseEstimate = countTextTokens(chinese);
  assert.ok(Math.abs(chineseEstimate - chineseExact) / chineseExact < 0.1, `${chineseEstimate} vs exact ${chineseExact}`);
});

test("speed: any prompt counts in milliseconds, whatever its size or script", () => {
  // Warm the JIT and the tokenizer first; then take the best of three runs on fresh text (the tokenizer caches
  // merges, so repeating one text would flatter it) to keep a loaded machine's noise out of the bounds.
  countTextTokens(prose(50_000, 100) + chineseProse(5_000, 101) + base64(5_000, 102));
  const best = (make: (seed: number) => string) => {
    const texts = [1, 2, 3].map((run) => make(run * 1_000));
    return Math.min(...texts.map((text) => time(() => countTextTokens(text)).ms));
  };
  const measured = {
    "100 KB English": best((seed) => prose(100_000, seed)),
    "8 K English (all exact)": best((seed) => prose(EXACT_COUNT_CHARS, seed + 1)),
    "100 KB base64": best((seed) => base64(100_000, seed + 2)),
    "100 KB Chinese prose": best((seed) => chineseProse(100_000, seed + 3)),
    "100 KB rare CJK": best((seed) => rareHan(100_000, seed + 4)),
    "5 MB English": best((seed) => prose(5_000_000, seed + 5)),
    "1 MB without spaces": best((seed) => "a".repeat(1_000_000 + seed)),
  };
  console.log(
    Object.entries(measured)
      .map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`)
      .join("; "),
  );
  // Generous bounds: they catch a quadratic blow-up (seconds), not a busy machine.
  for (const [name, ms] of Object.entries(measured)) assert.ok(ms < 60, `${name} took ${ms.toFixed(1)} ms`);
});

test("truncateToTokens cuts at a token boundary", () => {
  const text = "The quick brown fox jumps over the lazy dog.";
  assert.deepEqual(truncateToTokens(text, 100), { text, tokens: countTokens(text), truncated: false });
  const cut = truncateToTokens(text, 3);
  assert.equal(cut.tokens, 3);
  assert.equal(cut.truncated, true);
  assert.equal(cut.text, "The quick brown");
  assert.deepEqual(truncateToTokens(text, 0), { text: "", tokens: 0, truncated: true });
});

test("chat input: text, images at a fixed price, tool calls, per-message overhead", () => {
  const question = "What is in this picture?";
  const messages = [
    { role: "system", content: "You are terse." },
    {
      role: "user",
      content: [
        { type: "text", text: question },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "high" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"cat"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "A cat." },
  ];
  const expected =
    3 +
    4 * TOKENS_PER_MESSAGE +
    countTokens("You are terse.") +
    countTokens(question) +
    2 * CHAT_IMAGE_TOKENS +
    TOKENS_PER_MESSAGE +
    countTokens("lookup") +
    countTokens('{"q":"cat"}') +
    countTokens("A cat.");
  assert.equal(countChatInputTokens(messages), expected);
  assert.equal(countChatInputTokens(messages, "Extra system prompt."), expected + TOKENS_PER_MESSAGE + countTokens("Extra system prompt."));

  const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
  assert.equal(countChatRequestInputTokens({ messages, tools }), expected + countTokens(JSON.stringify(tools[0])));
});

test("messages input: system blocks, string and block content, tool results, tools", () => {
  const body = {
    model: "msg-sonnet-4-6",
    max_tokens: 1024,
    system: [{ type: "text", text: "Be brief." }],
    messages: [
      { role: "user", content: "Hello there" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "weather" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "Sunny" }] },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
    ],
  };
  const expected =
    3 +
    countTokens("Be brief.") +
    3 * TOKENS_PER_MESSAGE +
    countTokens("Hello there") +
    countTokens("Let me check.") +
    countTokens("lookup") +
    countTokens('{"q":"weather"}') +
    TOKENS_PER_MESSAGE +
    countTokens("Sunny") +
    MESSAGES_IMAGE_TOKENS;
  assert.equal(countMessagesInputTokens(body), expected);
  assert.equal(countMessagesInputTokens({ ...body, system: "Be brief." }), expected);

  const tool = { name: "lookup", description: "Look things up", input_schema: { type: "object" } };
  assert.equal(countMessagesInputTokens({ ...body, tools: [tool] }), expected + 346 + countTokens(JSON.stringify(tool)));
});

test("a reservation's count is exact for the first REQUEST_EXACT_CHARS of a request, then estimated; count_tokens stays exact", () => {
  // As Claude Code sends late in a session: many tool results with file contents, ~360 KB in all.
  const messages = [{ role: "user", content: "Read the files and fix the bug." }];
  for (let index = 0; index < 60; index++) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "Read", input: { file_path: `/src/${index}.ts` } }],
    } as never);
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: prose(6_000, 500 + index) }],
    } as never);
  }
  const body = { model: "msg-sonnet-4-6", max_tokens: 1024, messages };
  const exact = countMessagesInputTokens(body);
  let each = 3;
  for (const message of messages) {
    each += TOKENS_PER_MESSAGE;
    for (const block of typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : (message.content as Record<string, any>[])) {
      if (block.type === "text") each += countTextTokens(block.text);
      else if (block.type === "tool_use") each += countTextTokens(block.name) + countTextTokens(JSON.stringify(block.input));
      else each += TOKENS_PER_MESSAGE + countTextTokens(block.content);
    }
  }
  assert.equal(exact, each, "without a reservation's stats (count_tokens), every text is counted as if alone");

  const stats = newCountStats();
  assert.equal(stats.exactChars, REQUEST_EXACT_CHARS);
  const estimated = countMessagesInputTokens(body, stats);
  assert.equal(stats.exactChars, 0, "the request's exact budget is spent");
  assert.notEqual(estimated, exact, "past the budget, texts are estimated");
  assert.ok(estimated >= exact * 0.95 && estimated <= exact * 1.4, `${estimated} vs exact ${exact}`);

  // A small request is not touched by the budget.
  const small = { model: "msg-sonnet-4-6", max_tokens: 1024, messages: messages.slice(0, 3) };
  assert.equal(countMessagesInputTokens(small, newCountStats()), countMessagesInputTokens(small));
});
