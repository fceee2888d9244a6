// Types for scripts/supervise.mjs (plain JS so that `npm start` runs it without a compiler).
export declare function logLine(level: "debug" | "info" | "warn" | "error", message: string, fields?: Record<string, unknown>): void;
export declare function supervise(
  command: string,
  args: string[],
  options?: {
    env?: Record<string, string | undefined>;
    firstDelayMs?: number;
    maxDelayMs?: number;
    resetAfterMs?: number;
    stopTimeoutMs?: number;
    log?: (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
    output?: { stdout: { write(chunk: Uint8Array | string): unknown }; stderr: { write(chunk: Uint8Array | string): unknown } };
  },
): { stop: (signal?: NodeJS.Signals) => Promise<number>; done: Promise<number>; pid: () => number | null };
