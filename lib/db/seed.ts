// First start on an empty database: the default group, prices, the built-in simulator channel and an admin.
// Guarded by the "seed.version" setting, so a second start (or a second instance) seeds nothing twice.
import { ALL_MODELS, IMAGE_MODEL, TEXT_MODEL } from "../models";
import { randomToken } from "../crypto/secrets";
import { hashPassword } from "../accounts/password";
import type { Database } from "./client";

/** USD per 1M tokens. Image output at $32/1M puts a low-quality 1024x1024 image (~196 tokens) at ~$0.006 (spec §8). */
export const DEFAULT_PRICES: Record<string, { textInput: number; textOutput: number; imageInput: number; imageOutput: number }> = {
  [IMAGE_MODEL]: { textInput: 5, textOutput: 10, imageInput: 8, imageOutput: 32 },
  [TEXT_MODEL]: { textInput: 1.25, textOutput: 10, imageInput: 1.25, imageOutput: 0 },
  "msg-haiku-4-5-20251001": { textInput: 1, textOutput: 5, imageInput: 1, imageOutput: 0 },
  "msg-sonnet-4-6": { textInput: 3, textOutput: 15, imageInput: 3, imageOutput: 0 },
  "msg-opus-4-6": { textInput: 5, textOutput: 25, imageInput: 5, imageOutput: 0 },
  // The 1M-token context is priced separately: twice the input, 1.5x the output.
  "msg-haiku-4-5-20251001[1m]": { textInput: 2, textOutput: 7.5, imageInput: 2, imageOutput: 0 },
  "msg-sonnet-4-6[1m]": { textInput: 6, textOutput: 22.5, imageInput: 6, imageOutput: 0 },
  "msg-opus-4-6[1m]": { textInput: 10, textOutput: 37.5, imageInput: 10, imageOutput: 0 },
};

export const SEED_VERSION = 1;
export const ADMIN_STARTING_BALANCE = 100_000_000n; // $100 of micro-USD, to try the playground

export type SeedResult = { seeded: boolean; admin?: { email: string; password: string; generated: boolean } };

export async function seed(database: Database, options: { adminEmail?: string; adminPassword?: string }): Promise<SeedResult> {
  const marker = await database.setting.findUnique({ where: { key: "seed.version" } });
  if (marker) return { seeded: false };

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
      create: { email, passwordHash, role: "admin", balance: ADMIN_STARTING_BALANCE },
      update: {},
    }),
    database.setting.create({ data: { key: "seed.version", value: SEED_VERSION } }),
  ]);
  return { seeded: true, admin: { email, password, generated } };
}
