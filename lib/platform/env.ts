// The environment, parsed once with zod. A bad value stops the app with a message naming the variable.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { singleton } from "./singleton";
import { parseRanges } from "./http/cidr";

const optionalUrl = (protocols: string[], hint: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === "" ? undefined : value))
    .refine((value) => value === undefined || protocols.some((protocol) => value.startsWith(protocol)), {
      message: hint,
    });

/** A whole number of milliseconds (or bytes, or connections) from `min` to `max`, with a message naming the range. */
const bounded = (unit: string, min: number, max: number, fallback: number) =>
  z.coerce
    .number({ message: "must be a number" })
    .int(`must be a whole number of ${unit}`)
    .min(min, `must be from ${min} to ${max} ${unit}`)
    .max(max, `must be from ${min} to ${max} ${unit}`)
    .default(fallback);

const schema = z.object({
  PORT: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(0, "must be between 0 and 65535")
    .max(65535, "must be between 0 and 65535")
    .default(3000),
  HOST: z.string().default("0.0.0.0"),
  DATABASE_URL: optionalUrl(["file:", "postgres://", "postgresql://"], "must start with file:, postgres:// or postgresql://"),
  GATEWAY_DATA_DIR: z.string().default("./data"),
  GATEWAY_SECRET: z.string().min(32, "must be at least 32 characters (or unset it to generate one)").optional(),
  GATEWAY_MASTER_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  GATEWAY_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  GATEWAY_ADMIN_EMAIL: z.email("must be an email address").optional(),
  GATEWAY_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  REDIS_URL: optionalUrl(["redis://", "rediss://"], "must start with redis:// or rediss://"),
  APP_URL: z.url("must be a URL such as http://localhost:3000").optional(),
  SMTP_URL: optionalUrl(["smtp://", "smtps://"], "must start with smtp:// or smtps://"),
  MAIL_FROM: z.string().default("Model Gateway <no-reply@localhost>"),
  GATEWAY_SIGNUP: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
  GATEWAY_LOG: z
    .enum(["debug", "info", "warn", "error", "silent"], { message: "must be debug, info, warn, error or silent" })
    .default("info"),
  GATEWAY_DISABLE_NEXT: z.enum(["0", "1"]).default("0"),
  GATEWAY_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  GATEWAY_RESPONSES_KEEPALIVE_MS: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number of milliseconds")
    .min(10, "must be from 10 to 600000 milliseconds")
    .max(600_000, "must be from 10 to 600000 milliseconds")
    .optional(),
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  // Slow clients (lib/platform/http/connection-guard.ts; defaults in the README's environment table).
  // /v1/messages/count_tokens is free: a per-key budget of its own (lib/gateway/rate-limit.ts).
  GATEWAY_COUNT_TOKENS_PER_MINUTE: bounded("requests", 1, 1_000_000, 100),
  GATEWAY_HEADERS_TIMEOUT_MS: bounded("milliseconds", 100, 600_000, 30_000),
  GATEWAY_KEEPALIVE_TIMEOUT_MS: bounded("milliseconds", 100, 3_600_000, 65_000),
  GATEWAY_BODY_GRACE_MS: bounded("milliseconds", 100, 600_000, 10_000),
  GATEWAY_BODY_MIN_BYTES_PER_SECOND: bounded("bytes per second", 1, 1_000_000_000, 1024),
  GATEWAY_SEND_STALL_MS: bounded("milliseconds", 100, 3_600_000, 120_000),
  GATEWAY_MAX_CONNECTIONS: bounded("connections", 1, 1_000_000, 8192),
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: bounded("connections", 1, 1_000_000, 256),
  GATEWAY_TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((value, context) => {
      for (const message of parseRanges(value).errors) context.addIssue({ code: "custom", message });
    }),
});

export type Env = z.infer<typeof schema> & {
  databaseKind: "sqlite" | "postgres";
  databaseUrl: string;
  sqlitePath: string | null;
  secret: string;
  appUrl: string;
};

export class ConfigError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const value = result.data;
  const dataDir = path.resolve(value.GATEWAY_DATA_DIR);
  const databaseUrl = value.DATABASE_URL ?? `file:${path.join(dataDir, "gateway.db")}`;
  const databaseKind = databaseUrl.startsWith("file:") ? "sqlite" : "postgres";
  const sqlitePath = databaseKind === "sqlite" ? path.resolve(databaseUrl.slice("file:".length)) : null;
  return {
    ...value,
    databaseKind,
    databaseUrl,
    sqlitePath,
    secret: value.GATEWAY_SECRET ?? "",
    appUrl: (value.APP_URL ?? `http://localhost:${value.PORT || 3000}`).replace(/\/+$/, ""),
  };
}

/** Reads the secret from the data folder, creating it on first run when GATEWAY_SECRET is unset. */
function ensureSecret(env: Env): Env {
  if (env.secret) return env;
  const dataDir = path.resolve(env.GATEWAY_DATA_DIR);
  const file = path.join(dataDir, "secret");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  }
  return { ...env, secret: readFileSync(file, "utf8").trim() };
}

export function env(): Env {
  return singleton("env", () => ensureSecret(parseEnv(process.env)));
}
