// First start on an empty database: the default group, prices, the built-in simulator channel and an admin.
// Guarded by the "seed.version" setting, so a second start (or a second instance) seeds nothing twice.
import { ALL_MODELS, IMAGE_MODEL, TEXT_MODEL } from "@/lib/catalog/models";
import { BASE_CONTEXT_WINDOW } from "@/lib/catalog";
import { randomToken } from "@/lib/platform/crypto";
import { hashPassword } from "@/lib/accounts/password";
import type { Database } from "@/lib/platform/db/client";

type SeedPrice = {
  textInput: number;
  textOutput: number;
  imageInput: number;
  imageOutput: number;
  characterInput?: number;
  audioInputSecond?: number;
  cacheReadMultiplier: number;
  cacheWriteMultiplier: number;
  cacheWrite1hMultiplier: number;
  tierThreshold: number | null;
  tierTextInput: number | null;
  tierTextOutput: number | null;
  toolPrices: Record<string, number>;
  modifiers: Record<string, number>;
};

const NO_EXTRAS = {
  cacheReadMultiplier: 1,
  cacheWriteMultiplier: 1,
  cacheWrite1hMultiplier: 1,
  tierThreshold: null,
  tierTextInput: null,
  tierTextOutput: null,
  toolPrices: {},
  modifiers: {},
};
/** The messages models' prompt caching (reads 0.1x, writes 1.25x for 5 minutes, 2x for 1 hour) and web tools:
 * web search $10 per 1,000 uses (10,000 micro-USD each), web fetch free beyond its tokens. */
const MESSAGE_EXTRAS = {
  cacheReadMultiplier: 0.1,
  cacheWriteMultiplier: 1.25,
  cacheWrite1hMultiplier: 2,
  toolPrices: { web_search: 10_000, web_fetch: 0 },
  modifiers: {},
};

function messagePrices(input: number, output: number): [SeedPrice, SeedPrice] {
  const base = { textInput: input, textOutput: output, imageInput: input, imageOutput: 0, ...MESSAGE_EXTRAS };
  // The 1M-token context as the vendor prices it: base rates up to 200,000 input tokens; above that, the whole
  // request at twice the input and 1.5x the output rate.
  return [
    { ...base, tierThreshold: null, tierTextInput: null, tierTextOutput: null },
    { ...base, tierThreshold: BASE_CONTEXT_WINDOW, tierTextInput: input * 2, tierTextOutput: output * 1.5 },
  ];
}

const [haiku, haiku1m] = messagePrices(1, 5);
const [sonnet, sonnet1m] = messagePrices(3, 15);
const [opus, opus1m] = messagePrices(5, 25);

/**
 * USD per 1M tokens. The image model at the vendor's list prices for gpt-image-2 (text input $5, image input $8, image
 * output $30): at $30 the vendor's token counts (lib/money/image-tokens.ts) give every cell of the spec's reference
 * cost table, a low-quality 1024x1024 image (196 tokens) at $0.006 (docs/api.md §8, docs/billing.md).
 */
export const DEFAULT_PRICES: Record<string, SeedPrice> = {
  [IMAGE_MODEL]: { textInput: 5, textOutput: 10, imageInput: 8, imageOutput: 30, ...NO_EXTRAS },
  // OpenAI's flex processing bills at Batch rates, half the standard ones (docs/billing.md, "Price modifiers"); no
  // dearer modifier is seeded: service_tier priority is refused until an operator prices it.
  [TEXT_MODEL]: {
    textInput: 1.25,
    textOutput: 10,
    imageInput: 1.25,
    imageOutput: 0,
    ...NO_EXTRAS,
    cacheReadMultiplier: 0.1,
    modifiers: { "service_tier:flex": 0.5 },
  },
  // Embeddings per input token; speech $15 per 1M characters; transcription $0.006 a minute ($100 per 1M seconds).
  "std-embedding-3-small": { textInput: 0.02, textOutput: 0, imageInput: 0, imageOutput: 0, ...NO_EXTRAS },
  "std-embedding-3-large": { textInput: 0.13, textOutput: 0, imageInput: 0, imageOutput: 0, ...NO_EXTRAS },
  "std-tts-1": { textInput: 0, textOutput: 0, imageInput: 0, imageOutput: 0, characterInput: 15, ...NO_EXTRAS },
  "std-transcribe-1": { textInput: 0, textOutput: 0, imageInput: 0, imageOutput: 0, audioInputSecond: 100, ...NO_EXTRAS },
  "msg-haiku-4-5-20251001": haiku,
  "msg-sonnet-4-6": sonnet,
  "msg-opus-4-6": opus,
  "msg-haiku-4-5-20251001[1m]": haiku1m,
  "msg-sonnet-4-6[1m]": sonnet1m,
  "msg-opus-4-6[1m]": opus1m,
};

/**
 * Version of the seeded data. A database seeded at an older version gets the steps since: version 2 brought prompt
 * caching, the long-context tier and server tool prices, version 3 the flex discount of the text model, version 4 the
 * image model's output at $30 per 1M tokens (was $32, fitted to the reference table with the gateway's former token
 * curve); seeded price rows the operator never edited take the new defaults, edited ones are left alone and named in
 * the log.
 */
export const SEED_VERSION = 5;
export const ADMIN_STARTING_BALANCE = 100_000_000n; // $100 of micro-USD, to try the playground

export type SeedResult = {
  seeded: boolean;
  admin?: { email: string; password: string; generated: boolean };
  upgraded?: { updated: string[]; keptEdited: string[] };
};

export async function seed(database: Database, options: { adminEmail?: string; adminPassword?: string }): Promise<SeedResult> {
  const marker = await database.setting.findUnique({ where: { key: "seed.version" } });
  if (marker) {
    const version = Number(marker.value);
    if (version >= SEED_VERSION) return { seeded: false };
    return { seeded: false, upgraded: await upgradePrices(database) };
  }

  const email = (options.adminEmail ?? "admin@localhost").toLowerCase();
  const generated = !options.adminPassword;
  const password = options.adminPassword ?? randomToken(20);
  const passwordHash = await hashPassword(password);

  await database.$transaction([
    database.group.upsert({ where: { name: "default" }, create: { name: "default", models: ALL_MODELS }, update: {} }),
    ...Object.entries(DEFAULT_PRICES).map(([model, price]) =>
      database.modelPrice.upsert({ where: { model }, create: { model, ...price }, update: {} }),
    ),
    database.channel.create({
      data: { name: "Built-in simulator (offline)", type: "simulator", models: ALL_MODELS, priority: 0, weight: 1 },
    }),
    database.user.upsert({
      where: { email },
      create: { email, passwordHash, role: "admin", balance: ADMIN_STARTING_BALANCE, emailVerifiedAt: new Date() },
      update: {},
    }),
    database.setting.create({ data: { key: "seed.version", value: SEED_VERSION } }),
  ]);
  return { seeded: true, admin: { email, password, generated } };
}

/** The price steps since version 1: seeded rows take the new defaults, rows an operator edited stay as they are. */
async function upgradePrices(database: Database): Promise<{ updated: string[]; keptEdited: string[] }> {
  const rows = await database.modelPrice.findMany();
  const byModel = new Map(rows.map((row) => [row.model, row]));
  const updated: string[] = [];
  const keptEdited: string[] = [];
  const writes = [];
  for (const [model, price] of Object.entries(DEFAULT_PRICES)) {
    const row = byModel.get(model);
    if (row?.editedByOperator) {
      keptEdited.push(model);
      continue;
    }
    writes.push(
      database.modelPrice.upsert({ where: { model }, create: { model, ...price }, update: { ...price, version: { increment: 1 } } }),
    );
    updated.push(model);
  }
  // Models added to the product since (embeddings, speech, transcription in version 5) join the default group and
  // the built-in simulator channel, as on a fresh start; what an operator removed from either before stays removed
  // only for the models that existed then.
  const added = ALL_MODELS.filter((model) => !byModel.has(model));
  if (added.length) {
    const group = await database.group.findUnique({ where: { name: "default" } });
    if (group) {
      const models = group.models as string[];
      writes.push(
        database.group.update({
          where: { name: "default" },
          data: { models: [...models, ...added.filter((model) => !models.includes(model))] },
        }),
      );
    }
    for (const channel of await database.channel.findMany({ where: { type: "simulator" } })) {
      const models = channel.models as string[];
      writes.push(
        database.channel.update({
          where: { id: channel.id },
          data: { models: [...models, ...added.filter((model) => !models.includes(model))] },
        }),
      );
    }
  }
  await database.$transaction([...writes, database.setting.update({ where: { key: "seed.version" }, data: { value: SEED_VERSION } })]);
  return { updated, keptEdited };
}
