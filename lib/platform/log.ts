// Structured JSON logs, one line each, with the request id where there is one. Never log a full key or secret.
import { env } from "./env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

/** A key sent in a query string (`?key=sk-...`, as Gemini's API takes it, lib/gateway/pipeline.ts) never reaches a
 *  log line, whatever field carries a URL: the request line logs the path alone, and this catches any other. */
const QUERY_KEY = /([?&]key=)[^&#\s"]*/gi;

export function redactQueryKey(text: string): string {
  return /key=/i.test(text) ? text.replace(QUERY_KEY, "$1[redacted]") : text;
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  let threshold: number;
  try {
    threshold = LEVELS[env().GATEWAY_LOG];
  } catch {
    threshold = LEVELS.info;
  }
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields }, (_key, value) =>
    typeof value === "bigint"
      ? Number(value)
      : value instanceof Error
        ? { name: value.name, message: redactQueryKey(value.message) }
        : typeof value === "string"
          ? redactQueryKey(value)
          : value,
  );
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};
