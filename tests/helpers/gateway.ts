// Starts the real gateway (server.ts) in a child process on a free port with its own database, for integration
// tests over real HTTP. SQLite: a temporary folder. PostgreSQL: a fresh database on the machine's server,
// dropped afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { postgresConfig } from "@/lib/platform/db/client";

export const POSTGRES_ADMIN_URL = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://127.0.0.1:5432/test";
export const REDIS_TEST_URL = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export type DatabaseKind = "sqlite" | "postgres";

export type Gateway = {
  url: string;
  port: number;
  masterKey: string;
  dataDir: string;
  databaseUrl: string;
  output: () => string;
  /** Calls the operator API with the master key; throws on a non-2xx answer unless `expect` says otherwise. */
  admin: <T = any>(method: string, pathname: string, body?: unknown) => Promise<T>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  process: ChildProcess;
};

export type GatewayOptions = {
  database?: DatabaseKind;
  /** Reuse an existing database (a second instance, or a restart). */
  databaseUrl?: string;
  dataDir?: string;
  env?: Record<string, string | undefined>;
  portal?: boolean;
  timeoutMs?: number;
  /** Start it as `npm start` does (scripts/start.mjs: the server under its supervisor); `process` is the supervisor. */
  supervised?: boolean;
};

/** A fresh database on the PostgreSQL server at `baseUrl`, dropped by `drop()` (tests and the benchmark). */
export async function createPostgresDatabase(
  options: { prefix?: string; baseUrl?: string } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const baseUrl = options.baseUrl ?? POSTGRES_ADMIN_URL;
  const name = `${options.prefix ?? "gw_test"}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client(postgresConfig(baseUrl));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client(postgresConfig(baseUrl));
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await client.end();
    },
  };
}

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ ...postgresConfig(POSTGRES_ADMIN_URL), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const cleanups: (() => Promise<void>)[] = [];

// A test process that ends without stopping its gateways (a failed hook, --test-force-exit) takes them with it: a
// gateway left running could keep calling whatever listens on its old upstream's port in a later file.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const database = options.database ?? "sqlite";
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "gateway-test-"));
  let databaseUrl = options.databaseUrl;
  let dropDatabase: (() => Promise<void>) | null = null;
  if (!databaseUrl) {
    if (database === "postgres") {
      const created = await createPostgresDatabase();
      databaseUrl = created.url;
      dropDatabase = created.drop;
    } else {
      databaseUrl = `file:${path.join(dataDir, "gateway.db")}`;
    }
  }
  const masterKey = options.env?.GATEWAY_MASTER_KEY ?? `master-${randomBytes(12).toString("hex")}`;
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_MASTER_KEY: masterKey,
    GATEWAY_ADMIN_EMAIL: "admin@example.com",
    GATEWAY_ADMIN_PASSWORD: "admin-password-123",
    GATEWAY_DISABLE_NEXT: options.portal ? "0" : "1",
    GATEWAY_LOG: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    // Every JSON answer is parsed with the schema its route definition declares; one off its schema becomes a 500
    // naming the route (lib/platform/http/answer-check.ts), so each integration test checks the schemas too.
    GATEWAY_CHECK_ANSWERS: "1",
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  const child = spawn(process.execPath, options.supervised ? ["scripts/start.mjs"] : ["--import", "tsx", "server.ts"], {
    cwd: process.cwd(),
    env: environment as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start within ${options.timeoutMs ?? 60_000} ms:\n${output}`)),
      options.timeoutMs ?? 60_000,
    );
    const check = () => {
      const found = /Gateway ready on http:\/\/localhost:(\d+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before it was ready:\n${output}`));
    });
  });

  const url = `http://127.0.0.1:${port}`;
  let stopped: Promise<number | null> | null = null;
  const stop = (signal: NodeJS.Signals = "SIGTERM") => {
    stopped ??= new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      child.kill(signal);
    }).then(async (code) => {
      if (dropDatabase) await dropDatabase();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    });
    return stopped;
  };
  cleanups.push(async () => void (await stop()));

  const admin = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${masterKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${pathname} -> ${response.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  };

  return { url, port, masterKey, dataDir, databaseUrl, output: () => output, admin, stop, process: child };
}

/** Stops every gateway this test file started (call from an `after` hook). */
export async function stopAllGateways(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup().catch(() => undefined)));
}

/** A user with a key, through the operator API. */
export async function createUserWithKey(
  gateway: Gateway,
  options: {
    balance?: number;
    quota?: number;
    unlimited?: boolean;
    group?: string;
    email?: string;
    expiresAt?: string;
    rateLimitPerMinute?: number;
  } = {},
): Promise<{ userId: string; email: string; password: string; key: string; keyId: string }> {
  const email = options.email ?? `user-${randomBytes(5).toString("hex")}@example.com`;
  const password = "user-password-123";
  const user = await gateway.admin("POST", "/api/admin/users", { email, password, quota: options.balance ?? 10_000_000 });
  const key = await gateway.admin("POST", "/api/admin/keys", {
    userId: user.id,
    name: "test key",
    group: options.group ?? "default",
    quota: options.quota ?? 10_000_000,
    unlimited: options.unlimited ?? false,
    ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
  });
  return { userId: user.id, email, password, key: key.key, keyId: key.id };
}
