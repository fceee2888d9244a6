// `npm run bench`: the gateway's own cost, measured against its upstream (targets: bench/RESULTS.md, "Targets").
//
// Three processes: the fake upstream (bench/fake-upstream.ts), the real gateway (server.ts, production mode, Next.js
// off) and this one, the load generator. For SQLite and then PostgreSQL, every scenario is run twice with the same
// load settings: straight at the fake upstream, then through the gateway with a real key (finite quota, so the
// reservation, the settlement and the ledger are all on the path). Added latency = gateway − direct.
// Memory: the gateway's RSS sampled from /proc/<pid>/status every 20 ms (in a worker thread, so a busy load
// generator does not skip samples) plus VmHWM (reset through /proc/<pid>/clear_refs before each scenario), and the
// RSS once the load is over and the process has been left idle. Correctness: non-2xx answers, upstream calls, and
// the key's ledger rows and money (rows = 2xx answers; quota and balance moved by exactly the ledger's cost).
//
// Writes bench/RESULTS.md and bench/results/<date>.json. Environment knobs (for a partial run, written to /tmp instead):
//   BENCH_SECONDS=5            load per measured run (s)
//   BENCH_DATABASES=sqlite,postgres
//   BENCH_ONLY=chat-c1,chat-c50,stream-c1,stream-c50,image-4k,responses-3,edit-2x20mb,large-bodies
//   BENCH_POSTGRES_URL=postgres://127.0.0.1:5432/test   (a database is created per run and dropped afterwards)
//   BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"   extra node flags for the gateway (stopped with
//                              SIGINT, so a CPU profile is written)
//   BENCH_RESPONSES_SIZE=1024x1024  size of each of the three Responses images
// Traces (docs/architecture.md, "Traces"): after the SQLite scenarios, chat-c1 and chat-c50 run again on a gateway that
// exports OpenTelemetry spans to a sink in this process ("traces" in BENCH_ONLY keeps it in a partial run).
import { createPostgresDatabase } from "../tests/helpers/gateway";
import { SERVER_NODE_FLAGS } from "../scripts/server-flags.mjs";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import autocannon, { type Result as CannonResult } from "autocannon";
import Sqlite from "better-sqlite3";
import pg from "pg";
import sharp from "sharp";
import { postgresConfig } from "@/lib/platform/db/client";
import { countMessagesInputTokens } from "@/lib/money/tokens";
import { claudeCodeBody } from "./claude-code-body";
import { measureLargeBodies, stallTable, type StallRun } from "./large-bodies";
import { traceRequest } from "@/lib/platform/tracing";

const ROOT = path.resolve(import.meta.dirname, "..");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** The model of the Claude Code-like Messages scenario, served by an `anthropic` channel to the fake upstream. */
const CLAUDE_CODE_MODEL = "msg-sonnet-4-6";
const DATABASES = (process.env.BENCH_DATABASES ?? "sqlite,postgres")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean) as DatabaseKind[];
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((name) => name.trim())) : null;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://127.0.0.1:5432/test";
const GATEWAY_NODE_ARGS = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
const RESPONSES_SIZE = process.env.BENCH_RESPONSES_SIZE ?? "1024x1024";
const PARTIAL = Boolean(ONLY) || DATABASES.join(",") !== "sqlite,postgres" || GATEWAY_NODE_ARGS.length > 0;
const OUT_DIR = PARTIAL ? os.tmpdir() : path.join(ROOT, "bench");
const MD_FILE = path.join(OUT_DIR, PARTIAL ? "bench-RESULTS.partial.md" : "RESULTS.md");
// The raw numbers of a full run are a dated artifact next to the summary: bench/results/<YYYY-MM-DD>.json.
const RUN_DATE = new Date().toISOString().slice(0, 10);
const JSON_FILE = PARTIAL ? path.join(OUT_DIR, "bench-results.partial.json") : path.join(ROOT, "bench", "results", `${RUN_DATE}.json`);

/** Micro-USD: $10M on the key and on its owner, finite (the reservation path runs) and never the limit here. */
const QUOTA = 10_000_000_000_000;
const SAMPLE_MS = 20;
/** Idle time after a scenario before the "settled" RSS is read: 3 s, then 2 s more of sampling. */
const SETTLE_MS = 3_000;
const SETTLE_SAMPLE_MS = 2_000;
const MB = 1024 * 1024;

type DatabaseKind = "sqlite" | "postgres";

const started = Date.now();
function progress(message: string): void {
  const elapsed = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stdout.write(`[${elapsed}s] ${message}\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------------------ processes

type Proc = {
  child: ChildProcess;
  pid: number;
  output: () => string;
  /** A mark in the output, for `linesSince`. */
  mark: () => number;
  /** The output lines written since a mark (the last 5,000 lines are kept). */
  linesSince: (mark: number) => string[];
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs: number,
): Promise<{ proc: Proc; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const lines: string[] = [];
  let lineCount = 0;
  let partial = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk).slice(-200_000);
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      lineCount++;
      if (lines.length > 5000) lines.shift();
    }
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(found);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code} before it was ready:\n${output}`));
    });
  });
  let stopping: Promise<number | null> | null = null;
  const stop = (signal: NodeJS.Signals = "SIGTERM") =>
    (stopping ??= new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      child.kill(signal);
    }));
  const mark = () => lineCount;
  const linesSince = (from: number) => lines.slice(Math.max(0, lines.length - (lineCount - from)));
  return { proc: { child, pid: child.pid!, output: () => output, mark, linesSince, stop }, match };
}

// ---------------------------------------------------------------------------------------- /proc measurements

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/** `5` resets VmHWM to the current RSS (proc(5), clear_refs). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

const SAMPLER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
let max = 0, min = Infinity, samples = 0, last = 0;
const read = () => {
  try {
    const found = /VmRSS:\\s+(\\d+) kB/.exec(fs.readFileSync("/proc/" + workerData.pid + "/status", "utf8"));
    if (found) { last = Number(found[1]) * 1024; max = Math.max(max, last); min = Math.min(min, last); samples++; }
  } catch {}
};
read();
const timer = setInterval(read, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); read(); parentPort.postMessage({ max, min, last, samples }); });
`;

type Samples = { max: number; min: number; last: number; samples: number };

/** Samples a process's RSS every 20 ms in a worker thread until `stop()`. */
function sampleRss(pid: number): { stop: () => Promise<Samples> } {
  const worker = new Worker(SAMPLER_CODE, { eval: true, workerData: { pid, intervalMs: SAMPLE_MS } });
  return {
    stop: () =>
      new Promise<Samples>((resolve) => {
        worker.once("message", (result: Samples) => {
          void worker.terminate();
          resolve(result);
        });
        worker.postMessage("stop");
      }),
  };
}

const CLOCK_TICKS = 100;
/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Busy CPU time of the whole machine so far, in ms (all cores). */
function machineBusyMs(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields as number[];
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / CLOCK_TICKS;
}

const CALM_MAX_WAIT_MS = Number(process.env.BENCH_CALM_WAIT_MS ?? 10_000);
/**
 * Waits (up to 10 s) until the machine's busy cores over 1 s are below 0.25 (other developers' test suites share
 * this machine; the bench's own processes are idle here). Each scenario still reports what ran beside it.
 */
async function waitForCalm(): Promise<{ waitedMs: number; busyCores: number }> {
  const begun = performance.now();
  for (;;) {
    const before = machineBusyMs();
    const at = performance.now();
    await sleep(1000);
    const busyCores = (machineBusyMs() - before) / (performance.now() - at);
    const waited = performance.now() - begun;
    if (busyCores < 0.25 || waited >= CALM_MAX_WAIT_MS) return { waitedMs: busyCores < 0.25 && waited < 1100 ? 0 : waited, busyCores };
  }
}

/** The database servers the gateway uses, by process name: their CPU is part of the scenario, not other load. */
const DATABASE_PROCESSES = new Set(["postgres", "redis-server"]);

/** CPU time so far of the PostgreSQL and Redis server processes (every backend, the WAL writer...), in ms. */
function databaseCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!DATABASE_PROCESSES.has(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

type CpuSnapshot = { at: number; gateway: number; upstream: number; bench: number; database: number; machine: number };
function cpuSnapshot(gateway: number, upstream: number): CpuSnapshot {
  return {
    at: performance.now(),
    gateway: cpuMs(gateway),
    upstream: cpuMs(upstream),
    bench: cpuMs(process.pid),
    database: databaseCpuMs(),
    machine: machineBusyMs(),
  };
}
/** Cores used by each party between two snapshots; "other" is everything on the machine that is not ours or the
 *  database servers'. */
function cpuBetween(before: CpuSnapshot, after: CpuSnapshot) {
  const wall = after.at - before.at;
  const gateway = (after.gateway - before.gateway) / wall;
  const upstream = (after.upstream - before.upstream) / wall;
  const bench = (after.bench - before.bench) / wall;
  const database = Math.max(0, after.database - before.database) / wall;
  const machine = (after.machine - before.machine) / wall;
  return {
    gatewayCores: gateway,
    upstreamCores: upstream,
    benchCores: bench,
    databaseCores: database,
    otherCores: Math.max(0, machine - gateway - upstream - bench - database),
    gatewayCpuMs: after.gateway - before.gateway,
  };
}

// ------------------------------------------------------------------------------------------ load generators

type Stats = { n: number; mean: number; p50: number; p99: number; max: number };

function stats(values: number[]): Stats {
  if (!values.length) return { n: 0, mean: NaN, p50: NaN, p99: NaN, max: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return {
    n: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted[sorted.length - 1]!,
  };
}

type LoadResult = {
  generator: "autocannon" | "raw-http";
  concurrency: number;
  seconds: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** 2xx answers whose body did not look complete (a stream without its last event, an image too short). */
  invalid: number;
  statuses: Record<string, number>;
  rps: number;
  latency: Stats;
  ttfb?: Stats;
  bytesPerRequest: number;
  firstError?: string;
};

type Target = { base: string; path: string; headers: Record<string, string>; body: Buffer };

/** autocannon for small JSON requests. Latency per request comes from its `response` event (ms, fractional). */
function cannon(target: Target, concurrency: number, limit: { seconds: number } | { amount: number }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const begun = performance.now();
    const instance = autocannon(
      {
        url: `${target.base}${target.path}`,
        method: "POST",
        headers: target.headers,
        body: target.body,
        connections: concurrency,
        pipelining: 1,
        timeout: 30,
        ...("seconds" in limit ? { duration: limit.seconds } : { amount: limit.amount }),
      },
      (error: Error | null, result: CannonResult) => {
        if (error) return reject(error);
        const seconds = (performance.now() - begun) / 1000;
        const statuses: Record<string, number> = {};
        for (const [code, entry] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = entry.count;
        const ok = result["2xx"];
        resolve({
          generator: "autocannon",
          concurrency,
          seconds,
          requests: ok + result.non2xx,
          ok,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          invalid: 0,
          statuses,
          rps: ok / seconds,
          latency: stats(latencies),
          bytesPerRequest: result.throughput.total / Math.max(1, ok),
        });
      },
    );
    instance.on("response", (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      if (status >= 200 && status < 300) latencies.push(responseTime);
    });
  });
}

/**
 * Plain node:http requests from `concurrency` loops until the time is up; requests in flight then finish (so every
 * answer is counted and none is cut). Records time to first body byte and to the end, and checks each 2xx body.
 */
async function rawLoad(
  target: Target,
  concurrency: number,
  seconds: number,
  check?: (tail: string, bytes: number) => boolean,
): Promise<LoadResult> {
  const url = new URL(target.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const ttfbs: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let invalid = 0;
  let bytesTotal = 0;
  let firstError: string | undefined;
  const headers = { ...target.headers, "content-length": String(target.body.length) };
  const one = () =>
    new Promise<void>((resolve) => {
      const begun = performance.now();
      let first = 0;
      let bytes = 0;
      let tail = "";
      let done = false;
      const fail = (message: string) => {
        if (done) return;
        done = true;
        errors++;
        firstError ??= message;
        resolve();
      };
      const request = http.request(
        { agent, hostname: url.hostname, port: url.port, path: target.path, method: "POST", headers },
        (response) => {
          const status = response.statusCode ?? 0;
          response.on("data", (chunk: Buffer) => {
            if (!first) first = performance.now();
            bytes += chunk.length;
            tail = (tail + chunk.toString("latin1", Math.max(0, chunk.length - 4096))).slice(-4096);
          });
          response.on("end", () => {
            if (done) return;
            done = true;
            const end = performance.now();
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status >= 200 && status < 300) {
              ok++;
              latencies.push(end - begun);
              ttfbs.push((first || end) - begun);
              bytesTotal += bytes;
              if (check && !check(tail, bytes)) {
                invalid++;
                firstError ??= `2xx body failed its check (${bytes} bytes, ends with ${JSON.stringify(tail.slice(-120))})`;
              }
            } else {
              non2xx++;
              firstError ??= `HTTP ${status}: ${tail.slice(0, 300)}`;
            }
            resolve();
          });
          response.on("close", () => fail("the answer was cut before its end"));
        },
      );
      request.on("error", (error) => fail(error.message));
      request.end(target.body);
    });
  const begun = performance.now();
  const deadline = begun + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - begun) / 1000;
  agent.destroy();
  return {
    generator: "raw-http",
    concurrency,
    seconds: elapsed,
    requests: ok + non2xx,
    ok,
    non2xx,
    errors,
    invalid,
    statuses,
    rps: ok / elapsed,
    latency: stats(latencies),
    ttfb: stats(ttfbs),
    bytesPerRequest: bytesTotal / Math.max(1, ok),
    firstError,
  };
}

// ------------------------------------------------------------------------------------------------ the gateway

type Gateway = {
  url: string;
  proc: Proc;
  database: DatabaseKind;
  databaseUrl: string;
  dataDir: string;
  admin: <T = any>(method: string, pathname: string, body?: unknown) => Promise<T>;
  close: () => Promise<void>;
  /** The gateway's inspector WebSocket URL, for forced garbage collections between runs. */
  inspector: string | null;
  /** GET /metrics with the operator's key. */
  metrics: () => Promise<string>;
};

async function startGateway(database: DatabaseKind, upstream: string, extraEnv: Record<string, string> = {}): Promise<Gateway> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "gateway-bench-"));
  let databaseUrl = `file:${path.join(dataDir, "gateway.db")}`;
  let drop: (() => Promise<void>) | null = null;
  if (database === "postgres") {
    const created = await createPostgresDatabase({ prefix: "bench", baseUrl: POSTGRES_URL });
    databaseUrl = created.url;
    drop = created.drop;
  }
  const masterKey = `master-${randomBytes(12).toString("hex")}`;
  const env: NodeJS.ProcessEnv = {
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
    GATEWAY_DISABLE_NEXT: "1",
    GATEWAY_LOG: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    ...extraEnv,
  };
  let proc: Proc;
  let port: number;
  let inspector: string | null = null;
  try {
    // The inspector (no session attached while measuring) lets the bench force a garbage collection between runs.
    const started = await startProcess(
      [...SERVER_NODE_FLAGS, ...GATEWAY_NODE_ARGS, "--inspect=127.0.0.1:0", "--import", "tsx", "server.ts"],
      env,
      /Gateway ready on http:\/\/localhost:(\d+)/,
      120_000,
    );
    proc = started.proc;
    port = Number(started.match[1]);
    inspector = /Debugger listening on (ws:\/\/\S+)/.exec(proc.output())?.[1] ?? null;
  } catch (error) {
    if (drop) await drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
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
  // Only the bench's channel serves: the seeded simulator is switched off, so a failing upstream shows as an error
  // instead of being answered by the simulator.
  for (const channel of (await admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]) {
    if (channel.type === "simulator") await admin("PATCH", `/api/admin/channels/${channel.id}`, { status: "disabled" });
  }
  await admin("POST", "/api/admin/channels", {
    name: "bench fake upstream",
    type: "openai",
    baseUrl: `${upstream}/v1`,
    apiKey: "sk-upstream-bench",
    models: ["std-5.5", "std-image-2"],
    priority: 100,
    settings: { responsesApi: true },
  });
  await admin("POST", "/api/admin/channels", {
    name: "bench fake upstream (Messages)",
    type: "anthropic",
    baseUrl: upstream,
    apiKey: "sk-ant-upstream-bench",
    models: [CLAUDE_CODE_MODEL],
    priority: 100,
  });
  const close = async () => {
    const code = await proc.stop(GATEWAY_NODE_ARGS.length ? "SIGINT" : "SIGTERM");
    if (code !== 0) progress(`gateway exited with ${code}; last output:\n${proc.output().slice(-2000)}`);
    if (drop) await drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const metrics = async () => (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${masterKey}` } })).text();
  return { url, proc, database, databaseUrl, dataDir, admin, close, inspector, metrics };
}

/**
 * A full garbage collection in the gateway through its inspector (HeapProfiler.collectGarbage), then a short pause:
 * baselines and "after GC" readings do not depend on when V8 last collected. Needs the global WebSocket
 * (Node 22, or Node 20 with --experimental-websocket, as `npm run bench` runs it); false when it cannot.
 */
async function forceGc(target: { inspector: string | null }): Promise<boolean> {
  const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!target.inspector || !Socket) return false;
  const done = await new Promise<boolean>((resolve) => {
    const socket = new Socket(target.inspector!);
    const timer = setTimeout(() => {
      socket.close();
      resolve(false);
    }, 10_000);
    let id = 0;
    socket.onopen = () => socket.send(JSON.stringify({ id: ++id, method: "HeapProfiler.collectGarbage" }));
    socket.onmessage = (message) => {
      const reply = JSON.parse(String(message.data)) as { id?: number };
      if (reply.id === undefined) return;
      // Twice: the first may leave what only a second pass frees (weak references, finalizers).
      if (reply.id === 1) return socket.send(JSON.stringify({ id: ++id, method: "HeapProfiler.collectGarbage" }));
      clearTimeout(timer);
      socket.close();
      resolve(true);
    };
    socket.onerror = () => {
      clearTimeout(timer);
      resolve(false);
    };
  });
  await sleep(500);
  return done;
}

/** What node prints when the bench attaches to the gateway's inspector for a forced GC. */
const INSPECTOR_NOISE = /^(Debugger attached\.|Debugger listening on |Debugger ending on |For help, see: https:\/\/nodejs\.org)/;

type BenchKey = { key: string; keyId: string; userId: string };

async function createKey(gateway: Gateway, label: string): Promise<BenchKey> {
  const user = await gateway.admin("POST", "/api/admin/users", {
    email: `bench-${label}-${randomBytes(4).toString("hex")}@example.com`,
    password: "bench-password-4821",
    quota: QUOTA,
  });
  const key = await gateway.admin("POST", "/api/admin/keys", { userId: user.id, name: `bench ${label}`, quota: QUOTA, unlimited: false });
  return { key: key.key, keyId: key.id, userId: user.id };
}

type Ledger = { rows: number; success: number; cost: number; quotaRemaining: number; balance: number };

/** The key's ledger as stored (after the gateway flushed its batch), read straight from the database. */
async function ledgerOf(gateway: Gateway, key: BenchKey): Promise<Ledger> {
  await gateway.admin("GET", `/api/admin/usage?keyId=${key.keyId}&limit=1`); // flushes the batch writer
  const sums = `SELECT COUNT(*) AS rows, SUM(CASE WHEN "status" = 'success' AND "httpStatus" = 200 THEN 1 ELSE 0 END) AS success, COALESCE(SUM("cost"), 0) AS cost FROM "UsageLog" WHERE "keyId" = `;
  if (gateway.database === "sqlite") {
    const database = new Sqlite(gateway.databaseUrl.slice("file:".length), { readonly: true, fileMustExist: true });
    try {
      const row = database.prepare(`${sums}?`).get(key.keyId) as Record<string, number>;
      const quota = database.prepare(`SELECT "quotaRemaining" FROM "ApiKey" WHERE "id" = ?`).pluck().get(key.keyId);
      const balance = database.prepare(`SELECT "balance" FROM "User" WHERE "id" = ?`).pluck().get(key.userId);
      return {
        rows: Number(row.rows),
        success: Number(row.success ?? 0),
        cost: Number(row.cost),
        quotaRemaining: Number(quota),
        balance: Number(balance),
      };
    } finally {
      database.close();
    }
  }
  const client = new pg.Client(postgresConfig(gateway.databaseUrl));
  await client.connect();
  try {
    const row = (await client.query(`${sums}$1`, [key.keyId])).rows[0];
    const quota = (await client.query(`SELECT "quotaRemaining" FROM "ApiKey" WHERE "id" = $1`, [key.keyId])).rows[0].quotaRemaining;
    const balance = (await client.query(`SELECT "balance" FROM "User" WHERE "id" = $1`, [key.userId])).rows[0].balance;
    return {
      rows: Number(row.rows),
      success: Number(row.success ?? 0),
      cost: Number(row.cost),
      quotaRemaining: Number(quota),
      balance: Number(balance),
    };
  } finally {
    await client.end();
  }
}

// -------------------------------------------------------------------------------------------------- scenarios

type Scenario = {
  id: string;
  title: string;
  generator: "autocannon" | "raw-http";
  path: string;
  contentType: string;
  body: Buffer;
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
  /** Checks a 2xx body from its last 4 KB and its length. */
  check?: (tail: string, bytes: number) => boolean;
  /** Size of one generated image as encoded (PNG bytes), for memory per in-flight image. */
  image?: { label: string; pngBytes: number; b64Bytes: number; perRequest: number };
  /** An upload: memory per in-flight request is compared with its size. */
  upload?: { bytes: number };
  /** How the key is sent: `Authorization: Bearer` (the default) or `x-api-key` (/v1/messages, as the spec says). */
  keyHeader?: "x-api-key";
  /** Returns why the scenario cannot run on this gateway, or null. */
  unavailable?: (gateway: Gateway, key: BenchKey) => Promise<string | null>;
};

type Memory = {
  baselineMB: number;
  peakMB: number;
  peakSampledMB: number;
  hwmMB: number | null;
  samples: number;
  /** RSS after 5 s idle. */
  settledMB: number;
  /** RSS after that and a forced full GC. */
  afterGcMB: number | null;
  /** settled − baseline */
  growthMB: number;
  growthAfterGcMB: number | null;
  backDown: boolean;
  baselineAfterGc: boolean;
  /** RSS after the warm-up and a forced GC, just before the measured run. */
  afterWarmupMB: number | null;
  perInFlightMB?: number;
  perInFlightVsPng?: number;
  perRequestMB?: number;
  perRequestVsUpload?: number;
  uploadMB?: number;
};

type Checks = {
  upstreamCalls: number;
  ledgerRows: number;
  ledgerSuccess: number;
  quotaMatches: boolean;
  balanceMatches: boolean;
  ok: boolean;
  problems: string[];
};

type ScenarioResult = {
  id: string;
  title: string;
  database: DatabaseKind;
  available: boolean;
  note?: string;
  concurrency?: number;
  generator?: string;
  direct?: LoadResult;
  gateway?: LoadResult;
  added?: { p50: number; p99: number; ttfbP50?: number; ttfbP99?: number };
  memory?: Memory;
  cpu?: ReturnType<typeof cpuBetween> & { gatewayCpuMsPerRequest: number; directOtherCores: number };
  checks?: Checks;
  image?: Scenario["image"];
  /** The first lines the gateway logged during the scenario (warnings and errors). */
  gatewayLog?: string[];
  /** The measured gateway run, in CLOCK_MONOTONIC µs (for cutting a CPU profile to it). */
  window?: { startUs: number; endUs: number; gatewayPid: number };
};

/** A noise PNG (does not compress, like a photo) of about `bytes` bytes. */
async function noisePng(width: number, height: number, seedStart: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let seed = seedStart;
  for (let index = 0; index < raw.length; index++) raw[index] = (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 16;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

function multipart(
  fields: Record<string, string>,
  files: { field: string; filename: string; type: string; data: Buffer }[],
): { body: Buffer; contentType: string } {
  const boundary = `----bench${randomBytes(12).toString("hex")}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.data,
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function probeBytes(upstream: string, pathname: string, body: unknown): Promise<number> {
  const response = await fetch(`${upstream}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.arrayBuffer()).byteLength;
}

async function buildScenarios(upstream: string): Promise<Scenario[]> {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const chat = json({ model: "std-5.5", messages: [{ role: "user", content: "Say hello to the benchmark." }], max_tokens: 64 });
  // 20 events 1 ms apart: events arrive one by one, so a gateway that buffered would show it in the first byte.
  const stream = json({
    model: "std-5.5",
    messages: [{ role: "user", content: "Say hello to the benchmark." }],
    max_tokens: 64,
    stream: true,
    bench_events: 20,
    bench_event_gap_ms: 1,
  });
  const generation = json({
    model: "std-image-2",
    prompt: "A lighthouse on a cliff at dawn, photographic",
    size: "3840x2160",
    quality: "high",
    response_format: "b64_json",
  });
  const responses = json({
    model: "std-5.5",
    instructions: "You are an illustrator.",
    input: [{ role: "user", content: [{ type: "input_text", text: "Draw three images of a lighthouse: at dawn, at noon and at night." }] }],
    stream: true,
    tools: [{ type: "image_generation", size: RESPONSES_SIZE, quality: "low" }],
  });

  // Counting dominates here: ~100K tokens of system prompt, tool schemas and file contents (bench/claude-code-body.ts).
  const claudeCodeRequest = claudeCodeBody(CLAUDE_CODE_MODEL, { events: 20, gapMs: 1 });
  const claudeCode = json(claudeCodeRequest);
  const claudeCodeTools = (claudeCodeRequest.tools as unknown[]).length;
  const claudeCodeTokens = countMessagesInputTokens(claudeCodeRequest as never);

  // Image sizes as the fake upstream makes them (its PNGs are cached, so this is cheap).
  const answer4k = await probeBytes(upstream, "/v1/images/generations", { size: "3840x2160" });
  const answer1k = await probeBytes(upstream, "/v1/images/generations", { size: "1024x1024" });
  const answerResponses = await probeBytes(upstream, "/v1/images/generations", { size: RESPONSES_SIZE });
  const envelope = 190; // the fake upstream's JSON around b64_json
  const b64Of = (answer: number) => answer - envelope;
  const pngOf = (answer: number) => Math.floor((b64Of(answer) * 3) / 4);

  progress("building the edit upload (two noise PNGs of ~20 MB, once)");
  const [first, second] = await Promise.all([noisePng(2560, 2736, 11), noisePng(2560, 2736, 23)]);
  const edit = multipart({ model: "std-image-2", prompt: "Make the sky stormy", size: "1024x1024", quality: "low" }, [
    { field: "image[]", filename: "first.png", type: "image/png", data: first! },
    { field: "image[]", filename: "second.png", type: "image/png", data: second! },
  ]);
  progress(
    `edit body: ${(edit.body.length / MB).toFixed(1)} MB (${(first!.length / MB).toFixed(1)} + ${(second!.length / MB).toFixed(1)} MB files)`,
  );

  const endsWith = (marker: string, minBytes: number) => (tail: string, bytes: number) => bytes >= minBytes && tail.includes(marker);
  const scenarios: Scenario[] = [
    {
      id: "chat-c1",
      title: "Chat Completions, non-streaming, c=1",
      generator: "autocannon",
      path: "/v1/chat/completions",
      contentType: "application/json",
      body: chat,
      concurrency: 1,
      seconds: SECONDS,
      warmupSeconds: 1,
    },
    {
      id: "chat-c50",
      title: "Chat Completions, non-streaming, c=50",
      generator: "autocannon",
      path: "/v1/chat/completions",
      contentType: "application/json",
      body: chat,
      concurrency: 50,
      seconds: SECONDS,
      warmupSeconds: 1,
    },
    {
      id: "stream-c1",
      title: "Chat Completions, streaming (20 events, 1 ms apart), c=1",
      generator: "raw-http",
      path: "/v1/chat/completions",
      contentType: "application/json",
      body: stream,
      concurrency: 1,
      seconds: SECONDS,
      warmupSeconds: 1,
      check: endsWith("[DONE]", 100),
    },
    {
      id: "stream-c50",
      title: "Chat Completions, streaming (20 events, 1 ms apart), c=50",
      generator: "raw-http",
      path: "/v1/chat/completions",
      contentType: "application/json",
      body: stream,
      concurrency: 50,
      seconds: SECONDS,
      warmupSeconds: 1,
      check: endsWith("[DONE]", 100),
    },
    {
      id: "image-4k",
      title: "Image generation, 3840x2160 PNG as b64_json, c=4",
      generator: "raw-http",
      path: "/v1/images/generations",
      contentType: "application/json",
      body: generation,
      concurrency: 4,
      seconds: SECONDS + 1,
      warmupSeconds: 1,
      check: (tail, bytes) => bytes >= b64Of(answer4k) && tail.trimEnd().endsWith("}"),
      image: { label: "3840x2160", pngBytes: pngOf(answer4k), b64Bytes: b64Of(answer4k), perRequest: 1 },
    },
    {
      id: "edit-2x20mb",
      title: "Image edit, two ~20 MB PNG uploads (1024x1024 answer), c=4",
      generator: "raw-http",
      path: "/v1/images/edits",
      contentType: edit.contentType,
      body: edit.body,
      concurrency: 4,
      seconds: SECONDS + 1,
      warmupSeconds: 1,
      check: (tail, bytes) => bytes >= b64Of(answer1k) && tail.trimEnd().endsWith("}"),
      upload: { bytes: edit.body.length },
    },
    {
      id: "messages-claude-code",
      title: `Messages as Claude Code sends them (${claudeCodeTools} tools, ${Math.round(claudeCodeTokens / 1000)}K-token context, ${(claudeCode.length / 1000).toFixed(0)} KB, streaming 20 events 1 ms apart), c=1`,
      generator: "raw-http",
      path: "/v1/messages",
      contentType: "application/json",
      keyHeader: "x-api-key",
      body: claudeCode,
      concurrency: 1,
      seconds: SECONDS,
      warmupSeconds: 1,
      check: endsWith("message_stop", 100),
    },
    // Last: the RSS a Responses run leaves behind (glibc keeps the freed read buffers, docs/decisions/0022-responses-stream-memory.md) would
    // raise the next scenario's baseline.
    {
      id: "responses-3",
      title: `Responses stream with three ${RESPONSES_SIZE} images (native Responses channel), c=4`,
      generator: "raw-http",
      path: "/v1/responses",
      contentType: "application/json",
      body: responses,
      concurrency: 4,
      seconds: SECONDS + 1,
      warmupSeconds: 1,
      check: endsWith("response.completed", 3 * b64Of(answerResponses)),
      image: { label: RESPONSES_SIZE, pngBytes: pngOf(answerResponses), b64Bytes: b64Of(answerResponses), perRequest: 3 },
      unavailable: async (gateway, key) => {
        const response = await fetch(`${gateway.url}/v1/responses`, {
          method: "POST",
          headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
          body: responses,
        });
        const text = await response.text();
        if (response.status === 404 && /No such endpoint/.test(text))
          return "not available yet: the gateway has no /v1/responses endpoint (lib/gateway/responses/handler.ts has not landed)";
        if (response.status !== 200) return `not available: a probe request answered ${response.status}: ${text.slice(0, 300)}`;
        if (!text.includes("response.completed"))
          return `not available: a probe stream ended without response.completed: …${text.slice(-300)}`;
        return null;
      },
    },
  ];
  return scenarios.filter((scenario) => !ONLY || ONLY.has(scenario.id));
}

async function load(scenario: Scenario, base: string, key: string, limit: { seconds: number } | { amount: number }): Promise<LoadResult> {
  const target: Target = {
    base,
    path: scenario.path,
    headers: {
      ...(scenario.keyHeader === "x-api-key"
        ? { "x-api-key": key, "anthropic-version": "2023-06-01" }
        : { authorization: `Bearer ${key}` }),
      "content-type": scenario.contentType,
    },
    body: scenario.body,
  };
  if (scenario.generator === "autocannon") return cannon(target, scenario.concurrency, limit);
  return rawLoad(target, scenario.concurrency, "seconds" in limit ? limit.seconds : scenario.seconds, scenario.check);
}

/**
 * autocannon with a duration cuts the requests in flight when the time is up, which would leave ledger rows for
 * answers nobody counted. So: a warm-up by duration (its rate), then the measured run by request count.
 */
async function measured(scenario: Scenario, base: string, warmKey: string, key: string): Promise<LoadResult> {
  const warm = await load(scenario, base, warmKey, { seconds: scenario.warmupSeconds });
  await sleep(300);
  if (scenario.generator !== "autocannon") return load(scenario, base, key, { seconds: scenario.seconds });
  return load(scenario, base, key, { amount: Math.max(50, Math.round(warm.rps * scenario.seconds)) });
}

const fmt = (value: number | undefined, digits = 2) => (value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits));
const mb = (bytes: number) => bytes / MB;

async function upstreamCount(upstream: string, pathname: string): Promise<number> {
  const counts = (await (await fetch(`${upstream}/__stats`)).json()) as Record<string, number>;
  return counts[pathname] ?? 0;
}

async function runScenario(scenario: Scenario, gateway: Gateway, upstream: Proc, upstreamUrl: string): Promise<ScenarioResult> {
  const base: ScenarioResult = {
    id: scenario.id,
    title: scenario.title,
    database: gateway.database,
    available: true,
    concurrency: scenario.concurrency,
    generator: scenario.generator,
    image: scenario.image,
  };
  const warmKey = await createKey(gateway, `${scenario.id}-warm`);
  const key = await createKey(gateway, scenario.id);
  if (scenario.unavailable) {
    const reason = await scenario.unavailable(gateway, warmKey);
    if (reason) {
      progress(`  ${scenario.id}: ${reason}`);
      return { ...base, available: false, note: reason };
    }
  }

  const calm = await waitForCalm();
  if (calm.waitedMs > 0)
    progress(
      `  ${scenario.id}: waited ${fmt(calm.waitedMs / 1000, 1)} s for other work on the machine to calm down (now ${fmt(calm.busyCores, 2)} busy cores)`,
    );
  progress(`  ${scenario.id}: direct to the fake upstream (c=${scenario.concurrency}, ${scenario.generator})`);
  const directCpuBefore = cpuSnapshot(gateway.proc.pid, upstream.pid);
  const direct = await measured(scenario, upstreamUrl, "sk-direct", "sk-direct");
  const directOtherCores = cpuBetween(directCpuBefore, cpuSnapshot(gateway.proc.pid, upstream.pid)).otherCores;
  progress(
    `    direct  ${fmt(direct.rps, 0)} req/s, p50 ${fmt(direct.latency.p50, 3)} ms, p99 ${fmt(direct.latency.p99, 3)} ms${direct.ttfb ? `, TTFB p50 ${fmt(direct.ttfb.p50, 3)} ms` : ""}, non-2xx ${direct.non2xx}, errors ${direct.errors}`,
  );

  progress(`  ${scenario.id}: through the gateway (${gateway.database})`);
  const pid = gateway.proc.pid;
  // The baseline is the idle gateway after a full GC, read before the warm-up: what the previous scenario left is
  // not counted, and memory the warm-up leaves behind (freed by V8 but kept by the allocator) is.
  const gcWorks = await forceGc(gateway);
  const baseline = memoryOf(pid).rss;
  const warm = await load(scenario, gateway.url, warmKey.key, { seconds: scenario.warmupSeconds });
  await sleep(500);
  // After the warm-up: autocannon cuts its last requests, which the gateway rightly logs as clients gone.
  const logMark = gateway.proc.mark();
  await fetch(`${upstreamUrl}/__stats/reset`, { method: "POST" });
  const afterWarmup = gcWorks && (await forceGc(gateway)) ? memoryOf(pid).rss : null;
  const peakReset = resetPeak(pid);
  const sampler = sampleRss(pid);
  const cpuBefore = cpuSnapshot(pid, upstream.pid);
  // CLOCK_MONOTONIC in µs, the clock of V8's CPU profiles: bench/profile-summary.ts keeps only this window.
  const windowStart = Number(process.hrtime.bigint() / 1000n);
  const result =
    scenario.generator === "autocannon"
      ? await load(scenario, gateway.url, key.key, { amount: Math.max(50, Math.round(warm.rps * scenario.seconds)) })
      : await load(scenario, gateway.url, key.key, { seconds: scenario.seconds });
  const windowEnd = Number(process.hrtime.bigint() / 1000n);
  const cpuAfter = cpuSnapshot(pid, upstream.pid);
  const sampled = await sampler.stop();
  const hwm = peakReset ? memoryOf(pid).hwm : null;
  const peak = Math.max(sampled.max, hwm ?? 0);
  progress(
    `    gateway ${fmt(result.rps, 0)} req/s, p50 ${fmt(result.latency.p50, 3)} ms, p99 ${fmt(result.latency.p99, 3)} ms${result.ttfb ? `, TTFB p50 ${fmt(result.ttfb.p50, 3)} ms` : ""}, non-2xx ${result.non2xx}, errors ${result.errors}, invalid ${result.invalid}${result.firstError ? ` (first: ${result.firstError.slice(0, 200)})` : ""}`,
  );

  // Idle, then the RSS it settles at.
  await sleep(SETTLE_MS);
  const settleSampler = sampleRss(pid);
  await sleep(SETTLE_SAMPLE_MS);
  const settled = (await settleSampler.stop()).last;
  const afterGc = gcWorks && (await forceGc(gateway)) ? memoryOf(pid).rss : null;

  const cpu = cpuBetween(cpuBefore, cpuAfter);
  const growth = settled - baseline;
  const memory: Memory = {
    baselineMB: mb(baseline),
    peakMB: mb(peak),
    peakSampledMB: mb(sampled.max),
    hwmMB: hwm === null ? null : mb(hwm),
    samples: sampled.samples,
    settledMB: mb(settled),
    afterGcMB: afterGc === null ? null : mb(afterGc),
    growthMB: mb(growth),
    growthAfterGcMB: afterGc === null ? null : mb(afterGc - baseline),
    // Back down: what is left above the baseline (after a GC when possible, like the baseline) is at most a fifth
    // of the peak's rise, or under 16 MB.
    backDown: (afterGc ?? settled) - baseline <= Math.max(16 * MB, 0.2 * (peak - baseline)),
    baselineAfterGc: gcWorks,
    afterWarmupMB: afterWarmup === null ? null : mb(afterWarmup),
  };
  if (scenario.image) {
    const inFlightImages = scenario.concurrency * scenario.image.perRequest;
    memory.perInFlightMB = mb((peak - baseline) / inFlightImages);
    memory.perInFlightVsPng = (peak - baseline) / inFlightImages / scenario.image.pngBytes;
  }
  if (scenario.upload) {
    memory.perRequestMB = mb((peak - baseline) / scenario.concurrency);
    memory.perRequestVsUpload = (peak - baseline) / scenario.concurrency / scenario.upload.bytes;
    memory.uploadMB = mb(scenario.upload.bytes);
  }

  const upstreamCalls = await upstreamCount(upstreamUrl, scenario.path);
  const ledger = await ledgerOf(gateway, key);
  const problems: string[] = [];
  if (result.non2xx) problems.push(`${result.non2xx} non-2xx answers (${JSON.stringify(result.statuses)})`);
  if (result.errors) problems.push(`${result.errors} connection errors`);
  if (result.invalid) problems.push(`${result.invalid} incomplete 2xx bodies`);
  if (upstreamCalls !== result.ok) problems.push(`upstream saw ${upstreamCalls} calls for ${result.ok} 2xx answers`);
  if (ledger.rows !== result.ok) problems.push(`ledger has ${ledger.rows} rows for ${result.ok} 2xx answers`);
  if (ledger.success !== result.ok) problems.push(`ledger has ${ledger.success} success rows for ${result.ok} 2xx answers`);
  const quotaMatches = QUOTA - ledger.cost === ledger.quotaRemaining;
  const balanceMatches = QUOTA - ledger.cost === ledger.balance;
  if (!quotaMatches)
    problems.push(`key quota ${ledger.quotaRemaining} ≠ ${QUOTA} − ledger cost ${ledger.cost} (reservations not settled?)`);
  if (!balanceMatches) problems.push(`balance ${ledger.balance} ≠ ${QUOTA} − ledger cost ${ledger.cost}`);
  // What the gateway logged (warnings and errors, GATEWAY_LOG=warn) during the scenario: the cause of any 5xx.
  const gatewayLog = gateway.proc.linesSince(logMark).filter((line) => line.trim() !== "" && !INSPECTOR_NOISE.test(line));
  if (gatewayLog.length) {
    problems.push(`the gateway logged ${gatewayLog.length} line(s), first: ${gatewayLog[0]!.slice(0, 600)}`);
    progress(
      `    gateway log (${gatewayLog.length} lines):\n${gatewayLog
        .slice(0, 5)
        .map((line) => `      ${line.slice(0, 1500)}`)
        .join("\n")}`,
    );
  }
  const checks: Checks = {
    upstreamCalls,
    ledgerRows: ledger.rows,
    ledgerSuccess: ledger.success,
    quotaMatches,
    balanceMatches,
    ok: problems.length === 0,
    problems,
  };

  const added = {
    p50: result.latency.p50 - direct.latency.p50,
    p99: result.latency.p99 - direct.latency.p99,
    ...(result.ttfb && direct.ttfb ? { ttfbP50: result.ttfb.p50 - direct.ttfb.p50, ttfbP99: result.ttfb.p99 - direct.ttfb.p99 } : {}),
  };
  progress(
    `    added p50 ${fmt(added.p50, 3)} ms, p99 ${fmt(added.p99, 3)} ms${added.ttfbP50 !== undefined ? `, TTFB +${fmt(added.ttfbP50, 3)} / +${fmt(added.ttfbP99, 3)} ms` : ""}; ` +
      `RSS ${fmt(memory.baselineMB, 0)} → peak ${fmt(memory.peakMB, 0)} → settled ${fmt(memory.settledMB, 0)} → after GC ${fmt(memory.afterGcMB ?? NaN, 0)} MB${memory.perInFlightMB !== undefined ? ` (${fmt(memory.perInFlightMB, 1)} MB per in-flight image = ${fmt(memory.perInFlightVsPng, 2)}× PNG)` : ""}${memory.perRequestMB !== undefined ? ` (${fmt(memory.perRequestMB, 1)} MB per in-flight request = ${fmt(memory.perRequestVsUpload, 2)}× upload)` : ""}; ` +
      `gateway ${fmt(cpu.gatewayCores, 2)} cores, database servers ${fmt(cpu.databaseCores, 2)} cores, other processes ${fmt(cpu.otherCores, 2)} cores; checks ${checks.ok ? "ok" : `FAILED: ${problems.join("; ")}`}`,
  );
  return {
    ...base,
    direct,
    gateway: result,
    added,
    memory,
    cpu: { ...cpu, gatewayCpuMsPerRequest: cpu.gatewayCpuMs / Math.max(1, result.ok), directOtherCores },
    checks,
    gatewayLog: gatewayLog.slice(0, 20),
    window: { startUs: windowStart, endUs: windowEnd, gatewayPid: pid },
  };
}

// --------------------------------------------------------------------------------------------------- report

type Machine = {
  cpu: string;
  cores: number;
  memoryGB: number;
  node: string;
  kernel: string;
  loadBefore: number[];
  busyBefore: number;
  busyProcesses: string;
  code: string;
};

/** Which code was measured: the commit, and the files of the gateway changed since (work in progress is common). */
function codeState(): string {
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trimEnd();
    } catch {
      return "";
    }
  };
  const commit = git("rev-parse", "--short", "HEAD").trim() || "unknown";
  const changed = git("status", "--porcelain", "--", "lib", "server.ts")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
  return `commit ${commit}${changed.length ? ` + uncommitted changes in ${changed.length} gateway file(s): ${changed.slice(0, 15).join(", ")}${changed.length > 15 ? ", …" : ""}` : " (no uncommitted changes in lib/ or server.ts)"}`;
}

function machine(): Omit<Machine, "busyBefore" | "busyProcesses" | "code"> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  return {
    cpu: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1]?.trim() ?? "unknown",
    cores: os.cpus().length,
    memoryGB: os.totalmem() / 1024 ** 3,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    loadBefore: os.loadavg(),
  };
}

/** How busy the machine is with other work: busy cores over 2 s, and the processes using CPU. */
async function machineLoad(): Promise<{ busyCores: number; processes: string }> {
  const before = machineBusyMs();
  const at = performance.now();
  await sleep(2000);
  const busyCores = (machineBusyMs() - before) / (performance.now() - at);
  const processes = await new Promise<string>((resolve) => {
    const child = spawn("ps", ["-eo", "pcpu,etime,comm,args", "--sort=-pcpu"], { stdio: ["ignore", "pipe", "ignore"] });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.on("close", () =>
      resolve(
        text
          .split("\n")
          .slice(1, 6)
          .map((line) => line.slice(0, 140))
          .join("\n"),
      ),
    );
    child.on("error", () => resolve(""));
  });
  return { busyCores, processes };
}

// ------------------------------------------------------------------------------------------------------ Portkey

/**
 * Portkey's open-source gateway (npm @portkey-ai/gateway), measured on the same machine in the same run for the chat
 * scenarios: installed on first use into a folder under the system's temporary directory (not a project dependency),
 * started headless, and pointed at the same fake upstream as an OpenAI-compatible custom host.
 */
const PORTKEY_VERSION = "1.15.2";
type PortkeyResult = {
  id: string;
  rps: number;
  p50: number;
  addedP50?: number;
  /** Streams and images (the bare pass-through only): added time to first byte, and its CPU per request. */
  addedTtfbP50?: number;
  cpuMsPerRequest?: number;
  /** Chat runs: the cores the pass-through used (1.0: its one event loop was full). */
  cores?: number;
  requests: number;
  non2xx: number;
  errors: number;
};
let PORTKEY: PortkeyResult[] = [];
/** The large-body scenario's runs per database (bench/large-bodies.ts). */
const STALLS: Partial<Record<DatabaseKind, StallRun[]>> = {};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A gateway or pass-through the chat scenarios (and, for the bare one, the floor scenarios) run through. */
type ProxyProcess = { proc: Proc; url: string; inspector: string | null };

async function startPortkey(): Promise<ProxyProcess> {
  const folder = path.join(os.tmpdir(), `bench-portkey-${PORTKEY_VERSION}`);
  const entry = path.join(folder, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
  if (!existsSync(entry)) {
    progress(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${folder} (first use)`);
    mkdirSync(folder, { recursive: true });
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", folder, `@portkey-ai/gateway@${PORTKEY_VERSION}`], {
      stdio: "ignore",
    });
  }
  const port = await freePort();
  const { proc } = await startProcess([entry, `--port=${port}`, "--headless"], { ...process.env }, /Ready for connections/, 60_000);
  return { proc, url: `http://127.0.0.1:${port}`, inspector: null };
}

/** The floor: bench/bare-proxy.ts, a bare node:http + undici pass-through with no work at all. */
let BARE: PortkeyResult[] = [];

/** The scenarios beyond chat that also run through the bare pass-through: what a pass-through alone costs a stream's
 *  first byte, a 4K image, a Responses stream of three images and an edit's upload on this machine, in the same run as
 *  the gateway. */
const FLOOR_SCENARIOS = ["stream-c1", "image-4k", "responses-3", "edit-2x20mb"];

async function startBare(upstreamUrl: string): Promise<ProxyProcess> {
  const port = await freePort();
  // With the gateway's node flags and an inspector, so that it gets the same forced collection before each run.
  const { proc } = await startProcess(
    [
      ...SERVER_NODE_FLAGS,
      "--inspect=127.0.0.1:0",
      "--import",
      "tsx",
      path.join(ROOT, "bench", "bare-proxy.ts"),
      upstreamUrl,
      String(port),
    ],
    { ...process.env },
    /bare proxy listening/,
    30_000,
  );
  const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(proc.output())?.[1] ?? null;
  return { proc, url: `http://127.0.0.1:${port}`, inspector };
}

/** A run through Portkey or the bare pass-through as a row: its added latency against the same scenario's direct run. */
function passThroughRow(id: string, measured: LoadResult, results: ScenarioResult[]): PortkeyResult {
  const direct = results.find((result) => result.id === id && result.available && result.direct)?.direct;
  return {
    id,
    rps: measured.rps,
    p50: measured.latency.p50,
    addedP50: direct ? measured.latency.p50 - direct.latency.p50 : undefined,
    addedTtfbP50: direct?.ttfb && measured.ttfb ? measured.ttfb.p50 - direct.ttfb.p50 : undefined,
    requests: measured.requests,
    non2xx: measured.non2xx,
    errors: measured.errors + measured.invalid,
  };
}

/** A stream or image scenario through the bare pass-through, the way the gateway's run goes: a forced collection, a
 *  warm-up, then the measured run, with the pass-through's CPU over it. */
async function runBareScenario(scenario: Scenario, bare: ProxyProcess, results: ScenarioResult[]) {
  await forceGc(bare);
  await load(scenario, bare.url, "sk-bench", { seconds: scenario.warmupSeconds });
  await sleep(500);
  const before = cpuMs(bare.proc.pid);
  const measured = await load(scenario, bare.url, "sk-bench", { seconds: scenario.seconds });
  const cpu = cpuMs(bare.proc.pid) - before;
  const row: PortkeyResult = {
    ...passThroughRow(scenario.id, measured, results),
    cpuMsPerRequest: measured.ok ? cpu / measured.ok : undefined,
  };
  progress(
    `    bare ${fmt(row.rps, 0)} req/s, added p50 ${fmt(row.addedP50, 3)} ms, added TTFB p50 ${fmt(row.addedTtfbP50, 3)} ms, CPU ${fmt(row.cpuMsPerRequest, 2)} ms per request, non-2xx ${row.non2xx}, errors ${row.errors}`,
  );
  return row;
}

/** The chat scenarios through Portkey (or the bare proxy), as through the gateway: a warm-up, then the measured run;
 *  through the bare proxy, the floor scenarios too (runBareScenario). */
async function runThroughProxy(
  scenarios: Scenario[],
  upstreamUrl: string,
  results: ScenarioResult[],
  which: "portkey" | "bare" = "portkey",
): Promise<PortkeyResult[]> {
  const chat = scenarios.filter((scenario) => scenario.id === "chat-c1" || scenario.id === "chat-c50");
  const floor = which === "bare" ? scenarios.filter((scenario) => FLOOR_SCENARIOS.includes(scenario.id)) : [];
  if (!chat.length && !floor.length) return [];
  const proxy = which === "portkey" ? await startPortkey() : await startBare(upstreamUrl);
  const label = which === "portkey" ? `Portkey ${PORTKEY_VERSION}` : "the bare Node.js pass-through (bench/bare-proxy.ts)";
  const out: PortkeyResult[] = [];
  try {
    for (const scenario of chat) {
      progress(`  ${scenario.id}: through ${label} (same fake upstream)`);
      const target: Target = {
        base: proxy.url,
        path: scenario.path,
        headers: {
          authorization: "Bearer sk-bench",
          "content-type": scenario.contentType,
          // Portkey's routing headers; the bare proxy knows its upstream from its command line.
          ...(which === "portkey" ? { "x-portkey-provider": "openai", "x-portkey-custom-host": `${upstreamUrl}/v1` } : {}),
        },
        body: scenario.body,
      };
      await cannon(target, scenario.concurrency, { seconds: 1 });
      const cpuBefore = cpuMs(proxy.proc.pid);
      const startedAt = performance.now();
      const measured = await cannon(target, scenario.concurrency, { seconds: scenario.seconds });
      const cpu = cpuMs(proxy.proc.pid) - cpuBefore;
      const row: PortkeyResult = {
        ...passThroughRow(scenario.id, measured, results),
        cpuMsPerRequest: measured.ok ? cpu / measured.ok : undefined,
        cores: cpu / (performance.now() - startedAt),
      };
      progress(
        `    ${which} ${fmt(row.rps, 0)} req/s, p50 ${fmt(row.p50, 3)} ms (added ${fmt(row.addedP50, 3)} ms), CPU ${fmt(row.cpuMsPerRequest, 3)} ms per request (${fmt(row.cores, 2)} cores), non-2xx ${row.non2xx}, errors ${row.errors}`,
      );
      out.push(row);
    }
    for (const scenario of floor) {
      progress(`  ${scenario.id}: through ${label} (same fake upstream)`);
      out.push(await runBareScenario(scenario, proxy, results));
    }
  } finally {
    await proxy.proc.stop();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------- traces

type TraceRun = { id: string; title: string; off: ScenarioResult | undefined; on: ScenarioResult };
type TracesResult = { runs: TraceRun[]; spans: number; exports: number; bytes: number; expectedSpans: number; offNsPerRequest: number };
let TRACES: TracesResult | null = null;

/** What OpenTelemetry tracing costs: the off path timed in this process (the call each request makes when no exporter
 *  is set up), then chat-c1 and chat-c50 on a second SQLite gateway that exports every span over OTLP/HTTP (protobuf)
 *  to a sink here, which counts them, beside the same scenarios' tracing-off rows from the SQLite run. */
async function measureTraces(
  scenarios: Scenario[],
  upstream: Proc,
  upstreamUrl: string,
  results: ScenarioResult[],
  track: (gateway: Gateway) => void,
): Promise<TracesResult | null> {
  const chat = scenarios.filter((scenario) => scenario.id === "chat-c1" || scenario.id === "chat-c50");
  if (!chat.length) return null;
  const calls = 10_000_000;
  let kept = 0;
  const offStarted = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) if (traceRequest("POST", "/v1/chat/completions", "req_1") !== undefined) kept++;
  const offNsPerRequest = Number(process.hrtime.bigint() - offStarted) / calls;
  if (kept) throw new Error("tracing is on in the bench process");
  progress(`traces: off, the request's check costs ${fmt(offNsPerRequest, 1)} ns`);

  // The sink answers as a collector does and counts spans by their span ids' field tag (0x12 0x08: field 2, 8 bytes).
  let spans = 0;
  let exports = 0;
  let bytes = 0;
  const sink = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      exports++;
      bytes += body.length;
      for (let at = body.indexOf(TRACE_ID_TAG); at !== -1; at = body.indexOf(TRACE_ID_TAG, at + 1))
        if (body[at + 18] === 0x12 && body[at + 19] === 0x08) spans++;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as net.AddressInfo).port}`;
  const runs: TraceRun[] = [];
  let answered = 0;
  try {
    progress("starting a gateway on sqlite that exports traces (OTLP/HTTP protobuf to a sink in this process)");
    // A queue large enough for c=50's rate, as an operator at that rate would set it (README.md, "Traces"); the
    // batches keep their default size (512 spans: copied to the exporter's worker in about a millisecond).
    const traced = await startGateway("sqlite", upstreamUrl, { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_MAX_QUEUE_SIZE: "65536" });
    track(traced);
    try {
      for (const scenario of chat) {
        const on = await runScenario(scenario, traced, upstream, upstreamUrl);
        answered += on.gateway?.ok ?? 0;
        runs.push({
          id: scenario.id,
          title: scenario.title,
          off: results.find((row) => row.id === scenario.id && row.database === "sqlite"),
          on,
        });
      }
    } finally {
      await traced.close();
    }
  } finally {
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
  // Every request through the gateway is a request span and an attempt span; warm-ups too, so at least two per answer.
  progress(`traces: ${spans} spans in ${exports} exports (${fmt(bytes / 1e6, 1)} MB) for ${answered} measured answers`);
  return { runs, spans, exports, bytes, expectedSpans: 2 * answered, offNsPerRequest };
}

/** A span's first field, its 16-byte trace id (field 1, length-delimited: 0x0a 0x10), in OTLP's protobuf. */
const TRACE_ID_TAG = Buffer.from([0x0a, 0x10]);

function tracesSection(traces: TracesResult): string[] {
  const cell = (row: ScenarioResult | undefined) =>
    row?.gateway && row.added && row.cpu
      ? `${fmt(row.added.p50, 3)} ms / ${fmt(row.gateway.rps, 0)} / ${fmt(row.cpu.gatewayCpuMsPerRequest, 3)} ms`
      : "–";
  const lines = [
    "",
    "## Traces: what they cost",
    "",
    `OpenTelemetry tracing (docs/architecture.md, "Traces"). **Off** (no OTLP endpoint), a request pays one call that finds no exporter: ${fmt(traces.offNsPerRequest, 1)} ns, timed over 10 million calls in the load generator's process. **On**: chat-c1 and chat-c50 again on a second SQLite gateway that exports every span over OTLP/HTTP (protobuf) to a sink in the load generator (\`OTEL_BSP_MAX_QUEUE_SIZE=65536\`, batches of 512 encoded and sent by the gateway's exporter worker), beside the tracing-off rows of the SQLite run above. The sink counted ${traces.spans} spans in ${traces.exports} exports (${fmt(traces.bytes / 1e6, 1)} MB) for ${traces.expectedSpans / 2} measured answers (warm-ups add more; two spans per answer: the request and its upstream attempt).`,
    "",
    "| Scenario (SQLite) | tracing off: added p50 / req/s / gateway CPU per request | tracing on: the same | CPU per request, on − off |",
    "|---|---|---|---|",
  ];
  for (const run of traces.runs) {
    const delta = run.off?.cpu && run.on.cpu ? `${fmt(run.on.cpu.gatewayCpuMsPerRequest - run.off.cpu.gatewayCpuMsPerRequest, 3)} ms` : "–";
    lines.push(`| ${run.title} | ${cell(run.off)} | ${cell(run.on)} | ${delta} |`);
  }
  return lines;
}

type Verdict = { met: boolean | null; text: string };

/** The ceiling behind the 6× Portkey target, in CPU per request: what one event loop (one core) and the machine's
 *  two cores less the load generator and the fake upstream can spend per request at six times Portkey's rate, beside
 *  what Portkey, the bare pass-through and the gateway spent in the same run. */
function ceilingText(chat50: ScenarioResult | undefined, portkey: PortkeyResult | undefined, bare: PortkeyResult | undefined): Verdict {
  if (!portkey?.cpuMsPerRequest || !bare?.cpuMsPerRequest || !chat50?.cpu || !chat50.gateway) return { met: null, text: "not measured" };
  const rate = 6 * portkey.rps;
  const loop = 1000 / rate;
  const others = ((chat50.cpu.upstreamCores + chat50.cpu.benchCores) * 1000) / chat50.gateway.rps;
  const machine = 2000 / rate - others;
  return {
    met: null,
    text:
      `Portkey ${fmt(portkey.cpuMsPerRequest, 3)} ms (${fmt(portkey.cores, 2)} cores), the bare pass-through ${fmt(bare.cpuMsPerRequest, 3)} ms (${fmt(bare.cores, 2)} cores), ` +
      `the gateway ${fmt(chat50.cpu.gatewayCpuMsPerRequest, 3)} ms (${fmt(chat50.cpu.gatewayCores, 2)} cores); at 6× Portkey (${fmt(rate, 0)} req/s) one event loop has ` +
      `${fmt(loop, 3)} ms per request, ${fmt(loop - bare.cpuMsPerRequest, 3)} ms beyond the bare pass-through's, and the two cores less the load generator and the upstream ` +
      `(${fmt(others, 3)} ms per request in the gateway's run) ${fmt(machine, 3)} ms, ${fmt(machine - bare.cpuMsPerRequest, 3)} ms beyond it`,
  };
}

/** A large-body scenario's floor: the bare pass-through's added p50 and CPU in the same run, beside the gateway's. */
function floorRow(what: string, id: string, gateway: ScenarioResult | undefined, per: "image" | "request") {
  const floor = BARE.find((row) => row.id === id);
  return {
    target: `(for information) the floor for ${what}: the bare pass-through (bench/bare-proxy.ts: the answer passed back as it arrives) in the same run, c=4: added p50, and its CPU per ${per}`,
    verdict:
      floor?.addedP50 === undefined
        ? { met: null, text: "not measured" }
        : {
            met: null,
            text: `${fmt(floor.addedP50, 1)} ms added, ${fmt(floor.cpuMsPerRequest, 1)} ms CPU per ${per} (the gateway: ${fmt(gateway?.added?.p50, 1)} ms, ${fmt(gateway?.cpu?.gatewayCpuMsPerRequest, 1)} ms)`,
          },
  };
}

function verdict(value: number | undefined, target: number, better: "lower" | "higher", unit: string, digits = 2): Verdict {
  if (value === undefined || !Number.isFinite(value)) return { met: null, text: "not measured" };
  const met = better === "lower" ? value <= target : value >= target;
  if (met) return { met, text: `met (${fmt(value, digits)} ${unit})` };
  const by = better === "lower" ? value - target : target - value;
  const how = better === "lower" ? `${fmt(value / target, 1)}× the target` : `${fmt((value / target) * 100, 0)} % of the target`;
  return { met, text: `**missed** by ${fmt(by, digits)} ${unit} (${fmt(value, digits)} ${unit}, ${how})` };
}

function targets(results: ScenarioResult[], database: DatabaseKind) {
  const find = (id: string) => results.find((result) => result.id === id && result.database === database && result.available);
  const chat1 = find("chat-c1");
  const chat50 = find("chat-c50");
  const stream1 = find("stream-c1");
  const stream50 = find("stream-c50");
  const image = find("image-4k");
  const responses = find("responses-3");
  const edit = find("edit-2x20mb");
  const claudeCode = find("messages-claude-code");
  const sqliteChat50 = results.find((result) => result.id === "chat-c50" && result.database === "sqlite" && result.available);
  const all = results.filter((result) => result.database === database && result.available && result.memory);
  const notDown = all.filter((result) => !result.memory!.backDown);
  const streamDuration = stream1?.direct?.latency.p50;
  return [
    {
      target: "Chat Completions non-streaming, c=1: added latency p50 ≤ 0.5 ms on SQLite, ≤ 1.0 ms on PostgreSQL",
      verdict: verdict(chat1?.added?.p50, database === "sqlite" ? 0.5 : 1.0, "lower", "ms", 3),
    },
    {
      target:
        "Chat Completions non-streaming, c=50: ≥ 4,000 req/s through the gateway on SQLite; on PostgreSQL ≥ 80 % of SQLite's in the same run",
      verdict:
        database === "sqlite"
          ? verdict(chat50?.gateway?.rps, 4000, "higher", "req/s", 0)
          : (() => {
              if (!chat50?.gateway || !sqliteChat50?.gateway) return verdict(undefined, 80, "higher", "%", 0);
              const result = verdict((100 * chat50.gateway.rps) / sqliteChat50.gateway.rps, 80, "higher", "%", 0);
              return { ...result, text: `${result.text}; ${fmt(chat50.gateway.rps, 0)} req/s` };
            })(),
    },
    {
      target: `Chat Completions non-streaming, c=50: ≥ 6× the throughput of Portkey ${PORTKEY_VERSION} measured in the same run`,
      verdict: (() => {
        const portkey = PORTKEY.find((row) => row.id === "chat-c50");
        if (!portkey || !chat50?.gateway || portkey.rps <= 0) return verdict(undefined, 6, "higher", "×", 2);
        const result = verdict(chat50.gateway.rps / portkey.rps, 6, "higher", "×", 2);
        return { ...result, text: `${result.text}; Portkey ${fmt(portkey.rps, 0)} req/s` };
      })(),
    },
    {
      target: `(for information) Portkey ${PORTKEY_VERSION} in the same run, chat c=1: added latency p50`,
      verdict: (() => {
        const portkey = PORTKEY.find((row) => row.id === "chat-c1");
        return portkey?.addedP50 === undefined
          ? { met: null, text: "not measured" }
          : { met: null, text: `${fmt(portkey.addedP50, 3)} ms (the gateway: ${fmt(chat1?.added?.p50, 3)} ms)` };
      })(),
    },
    {
      target:
        "(for information) the floor: a bare Node.js pass-through (bench/bare-proxy.ts: node:http + undici, no auth, no billing) in the same run, chat c=50 and c=1",
      verdict: (() => {
        const c50 = BARE.find((row) => row.id === "chat-c50");
        const c1 = BARE.find((row) => row.id === "chat-c1");
        if (!c50 && !c1) return { met: null, text: "not measured" };
        const gateway50 = chat50?.gateway?.rps;
        return {
          met: null,
          text: `${fmt(c50?.rps, 0)} req/s at c=50 (the gateway: ${fmt(gateway50, 0)} req/s, ${gateway50 && c50 ? fmt((100 * gateway50) / c50.rps, 0) : "–"} % of it); added p50 at c=1 ${fmt(c1?.addedP50, 3)} ms (the gateway: ${fmt(chat1?.added?.p50, 3)} ms)`,
        };
      })(),
    },
    {
      target:
        "(for information, robust to other load) gateway CPU per Chat Completions request at c=50, and the req/s one core would give at that cost (4,000 req/s on the ~1 core left by the load generator and the upstream needs ≤ 0.25 ms)",
      verdict: chat50?.cpu
        ? {
            met: chat50.cpu.gatewayCpuMsPerRequest <= 0.25,
            text: `${fmt(chat50.cpu.gatewayCpuMsPerRequest, 3)} ms CPU per request → ~${fmt(1000 / chat50.cpu.gatewayCpuMsPerRequest, 0)} req/s per core${chat50.cpu.gatewayCpuMsPerRequest <= 0.25 ? "" : ` (${fmt(chat50.cpu.gatewayCpuMsPerRequest / 0.25, 1)}× too much)`}`,
          }
        : { met: null, text: "not measured" },
    },
    {
      target:
        "(for information) what 6× Portkey leaves a gateway at c=50: CPU per request of Portkey, the bare pass-through and the gateway in the same run (from /proc), and the CPU per request one event loop, and the machine's two cores beside the load generator and the fake upstream, have at 6× Portkey's rate",
      verdict: ceilingText(
        chat50,
        PORTKEY.find((row) => row.id === "chat-c50"),
        BARE.find((row) => row.id === "chat-c50"),
      ),
    },
    { target: "Streaming: added time to first byte p50 ≤ 1 ms (c=1)", verdict: verdict(stream1?.added?.ttfbP50, 1, "lower", "ms", 3) },
    {
      target:
        "(for information) the floor for a stream: the bare pass-through (bench/bare-proxy.ts, events passed on as they arrive) in the same run, streaming c=1: added time to first byte p50",
      verdict: (() => {
        const floor = BARE.find((row) => row.id === "stream-c1");
        return floor?.addedTtfbP50 === undefined
          ? { met: null, text: "not measured" }
          : { met: null, text: `${fmt(floor.addedTtfbP50, 3)} ms (the gateway: ${fmt(stream1?.added?.ttfbP50, 3)} ms)` };
      })(),
    },
    {
      target: "Streaming under load (c=50): added time to first byte p50 ≤ 1 ms (for information)",
      verdict: verdict(stream50?.added?.ttfbP50, 1, "lower", "ms", 3),
    },
    {
      target:
        "(for information) Messages as Claude Code sends them late in a session (~100K-token context, 24 tools, streaming, c=1), where counting the input dominates: added time to first byte p50, and gateway CPU per request",
      verdict:
        claudeCode?.added?.ttfbP50 !== undefined && claudeCode.cpu
          ? {
              met: null,
              text: `${fmt(claudeCode.added.ttfbP50, 1)} ms added to the first byte; ${fmt(claudeCode.cpu.gatewayCpuMsPerRequest, 1)} ms CPU per request`,
            }
          : { met: null, text: "not measured" },
    },
    {
      target: "Streaming: events forwarded as they arrive (first byte through the gateway well before the upstream's stream ends)",
      verdict:
        stream1?.gateway?.ttfb && streamDuration !== undefined
          ? stream1.gateway.ttfb.p50 < streamDuration / 2
            ? { met: true, text: `met (first byte at ${fmt(stream1.gateway.ttfb.p50, 2)} ms of a ${fmt(streamDuration, 1)} ms stream)` }
            : {
                met: false,
                text: `**missed**: first byte at ${fmt(stream1.gateway.ttfb.p50, 2)} ms of a ${fmt(streamDuration, 1)} ms stream (buffered)`,
              }
          : { met: null, text: "not measured" },
    },
    {
      target: "Large images: gateway memory per in-flight 3840x2160 image ≤ 2× its encoded size",
      verdict:
        image?.memory?.perInFlightVsPng !== undefined
          ? image.memory.perInFlightVsPng <= 2
            ? {
                met: true,
                text: `met (${fmt(image.memory.perInFlightMB, 1)} MB per image = ${fmt(image.memory.perInFlightVsPng, 2)}× the ${fmt(mb(image.image!.pngBytes), 1)} MB PNG)`,
              }
            : {
                met: false,
                text: `**missed** by ${fmt(image.memory.perInFlightMB! - (2 * image.image!.pngBytes) / MB, 1)} MB per image (${fmt(image.memory.perInFlightMB, 1)} MB = ${fmt(image.memory.perInFlightVsPng, 2)}× the ${fmt(mb(image.image!.pngBytes), 1)} MB PNG; limit ${fmt((2 * image.image!.pngBytes) / MB, 1)} MB)`,
              }
          : { met: null, text: "not measured" },
    },
    // The upper bounds for the large-body scenarios: [target, measured value, limit, unit, digits].
    ...(
      [
        ["4K image (3840x2160 as b64_json, c=4): added p50 ≤ 60 ms", image?.added?.p50, 60, "ms", 1],
        ["4K image: gateway CPU ≤ 40 ms per image", image?.cpu?.gatewayCpuMsPerRequest, 40, "ms", 1],
      ] as [string, number | undefined, number, string, number][]
    ).map(([target, value, limit, unit, digits]) => ({ target, verdict: verdict(value, limit, "lower", unit, digits) })),
    floorRow("a 4K image", "image-4k", image, "image"),
    ...(
      [
        ["Responses with three 1024x1024 images (c=4): added p50 ≤ 150 ms", responses?.added?.p50, 150, "ms", 1],
        [
          "Responses with three images: gateway memory per in-flight image ≤ 2× its PNG",
          responses?.memory?.perInFlightVsPng,
          2,
          "× the PNG",
          2,
        ],
        ["Edit with two ~20 MB uploads (c=4): added p50 ≤ 250 ms", edit?.added?.p50, 250, "ms", 1],
        ["Edit: gateway CPU ≤ 80 ms per request", edit?.cpu?.gatewayCpuMsPerRequest, 80, "ms", 1],
      ] as [string, number | undefined, number, string, number][]
    ).map(([target, value, limit, unit, digits]) => ({ target, verdict: verdict(value, limit, "lower", unit, digits) })),
    floorRow("a Responses stream of three 1024x1024 images", "responses-3", responses, "request"),
    floorRow("an edit with two ~20 MB uploads", "edit-2x20mb", edit, "request"),
    {
      target: "Edit: gateway memory per in-flight request ≤ 0.5× its upload",
      verdict:
        edit?.memory?.perRequestVsUpload !== undefined && edit.memory.perRequestVsUpload < 0
          ? {
              met: null,
              text: `not measurable in this run: the peak (${fmt(edit.memory.peakMB, 0)} MB) stayed below the baseline (${fmt(edit.memory.baselineMB, 0)} MB) that the scenario before left behind`,
            }
          : verdict(edit?.memory?.perRequestVsUpload, 0.5, "lower", "× the upload", 2),
    },
    {
      target: "Memory comes back down after each scenario's load (RSS after idle + forced GC − baseline ≤ max(16 MB, 20 % of the rise))",
      verdict: all.length
        ? notDown.length === 0
          ? { met: true, text: `met in all ${all.length} scenarios` }
          : {
              met: false,
              text: `**missed** in ${notDown.map((result) => `${result.id} (+${fmt(result.memory!.growthAfterGcMB ?? result.memory!.growthMB, 0)} MB left of a +${fmt(result.memory!.peakMB - result.memory!.baselineMB, 0)} MB rise)`).join(", ")}`,
            }
        : { met: null, text: "not measured" },
    },
    {
      target: "(for information) Memory back down without a forced GC, after 5 s idle (same rule)",
      verdict: all.length
        ? (() => {
            const high = all.filter(
              (result) => result.memory!.growthMB * MB > Math.max(16 * MB, 0.2 * (result.memory!.peakMB - result.memory!.baselineMB) * MB),
            );
            return high.length === 0
              ? { met: true, text: `yes in all ${all.length} scenarios` }
              : {
                  met: false,
                  text: `no in ${high.map((result) => `${result.id} (+${fmt(result.memory!.growthMB, 0)} MB)`).join(", ")}: V8 had not collected yet`,
                };
          })()
        : { met: null, text: "not measured" },
    },
    {
      target: "Correctness under load: no non-2xx, ledger rows = 2xx answers, quota and balance = ledger",
      verdict: all.length
        ? all.every((result) => result.checks?.ok)
          ? { met: true, text: `met in all ${all.length} scenarios` }
          : {
              met: false,
              text: `**missed**: ${all
                .filter((result) => !result.checks?.ok)
                .map((result) => `${result.id}: ${result.checks!.problems.join("; ")}`)
                .join(" / ")}`,
            }
        : { met: null, text: "not measured" },
    },
  ];
}

function report(
  info: Machine,
  results: ScenarioResult[],
  databases: DatabaseKind[],
  loads: Record<string, { before: number[]; after: number[] }>,
  totalSeconds: number,
): string {
  const lines: string[] = [];
  const push = (...text: string[]) => lines.push(...text);
  push(
    "# Gateway benchmark results",
    "",
    `Written by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString()}; the whole run took ${fmt(totalSeconds / 60, 1)} min. Raw numbers: bench/results/${RUN_DATE}.json.`,
    "",
    "## Machine",
    "",
    `- CPU: ${info.cpu}, ${info.cores} cores; memory ${fmt(info.memoryGB, 1)} GB; ${info.kernel}; Node.js ${info.node}`,
    `- Code measured: ${info.code}`,
    `- Load average before the run: ${info.loadBefore.map((value) => value.toFixed(2)).join(", ")}; busy cores measured over 2 s before the run: ${fmt(info.busyBefore, 2)} of ${info.cores}`,
    ...databases.map(
      (database) =>
        `- Load average around the ${database} run: ${loads[database]?.before.map((value) => value.toFixed(2)).join(", ")} → ${loads[database]?.after.map((value) => value.toFixed(2)).join(", ")}`,
    ),
    '- "other" in the CPU table = CPU used on the machine by processes that are not the gateway, the fake upstream, the load generator or the database servers (PostgreSQL and Redis processes, their own column), during the measured run. Other developers\' test suites may run on this machine; a scenario with other > 0.2 cores was disturbed.',
    "",
    `Three processes on the same 2 cores: the fake upstream (bench/fake-upstream.ts, raw node:http), the gateway (\`node ${SERVER_NODE_FLAGS.join(" ")} --import tsx server.ts\` as \`npm start\` runs it, scripts/server-flags.mjs; NODE_ENV=production, Next.js off, GATEWAY_LOG=warn) and the load generator (this process: autocannon for the non-streaming requests, plain node:http for streams, images and uploads, which measures time to first byte). Each scenario runs once straight at the fake upstream and once through the gateway with the same settings; *added* = gateway − direct. Each gateway run uses a fresh key with a finite quota ($10M, not unlimited) so the reservation, settlement and batched ledger are on the path; a warm-up on another key precedes it. Memory: the gateway's RSS sampled every 20 ms from /proc/<pid>/status plus VmHWM (reset via clear_refs before each run). The baseline is the idle gateway's RSS after a forced full GC (through the gateway's inspector, started with \`--inspect=127.0.0.1:0\`; no session is attached while measuring), read before the scenario's warm-up; *settled* is the RSS after 5 s idle, then another reading after a forced GC. *Back down* compares the after-GC reading with the baseline.`,
    "",
    "## Targets",
    "",
    `| Target | ${databases.map((database) => (database === "sqlite" ? "SQLite" : "PostgreSQL")).join(" | ")} |`,
    `|---|${databases.map(() => "---").join("|")}|`,
  );
  const perDatabase = databases.map((database) => targets(results, database));
  for (let index = 0; index < perDatabase[0]!.length; index++) {
    push(`| ${perDatabase[0]![index]!.target} | ${perDatabase.map((rows) => rows[index]!.verdict.text).join(" | ")} |`);
  }
  for (const database of databases) {
    const rows = results.filter((result) => result.database === database);
    push(
      "",
      `## ${database === "sqlite" ? "SQLite" : "PostgreSQL"}`,
      "",
      "Throughput and latency (ms). Latency = request sent → last byte; TTFB = request sent → first body byte.",
      "",
      "| Scenario | direct req/s | gateway req/s | gateway / direct | direct p50 / p99 | gateway p50 / p99 | **added p50 / p99** | direct TTFB p50 / p99 | gateway TTFB p50 / p99 | **added TTFB p50 / p99** | requests (gateway) | non-2xx | errors | other processes' cores (direct / gateway run) |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    );
    for (const row of rows) {
      if (!row.available) {
        push(`| ${row.title} | ${row.note} |${" |".repeat(12)}`);
        continue;
      }
      const d = row.direct!;
      const disturbed = (cores: number) => (cores > 0.2 ? `**${fmt(cores, 2)}**` : fmt(cores, 2));
      const g = row.gateway!;
      push(
        `| ${row.title} | ${fmt(d.rps, 0)} | ${fmt(g.rps, 0)} | ${fmt((g.rps / d.rps) * 100, 0)} % | ${fmt(d.latency.p50, 3)} / ${fmt(d.latency.p99, 3)} | ${fmt(g.latency.p50, 3)} / ${fmt(g.latency.p99, 3)} | **${fmt(row.added!.p50, 3)} / ${fmt(row.added!.p99, 3)}** | ` +
          `${d.ttfb ? `${fmt(d.ttfb.p50, 3)} / ${fmt(d.ttfb.p99, 3)}` : "–"} | ${g.ttfb ? `${fmt(g.ttfb.p50, 3)} / ${fmt(g.ttfb.p99, 3)}` : "–"} | ${row.added!.ttfbP50 !== undefined ? `**${fmt(row.added!.ttfbP50, 3)} / ${fmt(row.added!.ttfbP99, 3)}**` : "–"} | ${g.requests} | ${g.non2xx} | ${g.errors} | ${disturbed(row.cpu!.directOtherCores)} / ${disturbed(row.cpu!.otherCores)} |`,
      );
    }
    push(
      "",
      "Gateway memory (MB, RSS) and CPU. Per in-flight image = (peak − baseline) / (concurrency × images per request), compared with one image's PNG size.",
      "",
      "| Scenario | baseline (idle, after GC) | after warm-up + GC | peak (sampled / VmHWM) | settled after 5 s idle | after a forced GC | back down | per in-flight image or request | image PNG / b64 size | gateway CPU per request | cores: gateway / upstream / load gen / database servers / **other** |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
    );
    for (const row of rows) {
      if (!row.available) {
        push(`| ${row.title} | ${row.note} |${" |".repeat(9)}`);
        continue;
      }
      const m = row.memory!;
      const c = row.cpu!;
      const signed = (value: number) => `${value >= 0 ? "+" : ""}${fmt(value, 0)}`;
      const perInFlight =
        m.perInFlightMB !== undefined
          ? `${fmt(m.perInFlightMB, 1)} MB per image = ${fmt(m.perInFlightVsPng, 2)}× PNG`
          : m.perRequestMB !== undefined
            ? `${fmt(m.perRequestMB, 1)} MB per request = ${fmt(m.perRequestVsUpload, 2)}× its ${fmt(m.uploadMB, 1)} MB upload`
            : "–";
      push(
        `| ${row.title} | ${fmt(m.baselineMB, 0)}${m.baselineAfterGc ? "" : " (no GC)"} | ${m.afterWarmupMB === null ? "–" : fmt(m.afterWarmupMB, 0)} | ${fmt(m.peakMB, 0)} (${fmt(m.peakSampledMB, 0)} / ${m.hwmMB === null ? "–" : fmt(m.hwmMB, 0)}) | ${fmt(m.settledMB, 0)} (${signed(m.growthMB)}) | ${m.afterGcMB === null ? "–" : `${fmt(m.afterGcMB, 0)} (${signed(m.growthAfterGcMB!)})`} | ${m.backDown ? "yes" : "**no**"} | ` +
          `${perInFlight} | ${row.image ? `${fmt(mb(row.image.pngBytes), 1)} / ${fmt(mb(row.image.b64Bytes), 1)} MB (${row.image.label}${row.image.perRequest > 1 ? ` ×${row.image.perRequest}` : ""})` : "–"} | ` +
          `${fmt(c.gatewayCpuMsPerRequest, 3)} ms | ${fmt(c.gatewayCores, 2)} / ${fmt(c.upstreamCores, 2)} / ${fmt(c.benchCores, 2)} / ${fmt(c.databaseCores, 2)} / **${fmt(c.otherCores, 2)}** |`,
      );
    }
    push(
      "",
      "Correctness while loading (the measured gateway run's key):",
      "",
      "| Scenario | 2xx answers | upstream calls | ledger rows (success) | quota = ledger | balance = ledger | result |",
      "|---|---|---|---|---|---|---|",
    );
    for (const row of rows) {
      if (!row.available) {
        push(`| ${row.title} | ${row.note} |${" |".repeat(5)}`);
        continue;
      }
      const k = row.checks!;
      push(
        `| ${row.title} | ${row.gateway!.ok} | ${k.upstreamCalls} | ${k.ledgerRows} (${k.ledgerSuccess}) | ${k.quotaMatches ? "yes" : "**no**"} | ${k.balanceMatches ? "yes" : "**no**"} | ${k.ok ? "ok" : `**${k.problems.join("; ")}**`} |`,
      );
    }
  }
  if (Object.keys(STALLS).length) {
    push(
      "",
      "## Large bodies: the longest event-loop stall",
      "",
      "Four 30 MB chat bodies at once (bench/large-bodies.ts), from a key that pays and from one with nothing left, while a prober on its own thread asks `/healthz` every 2 ms over one keep-alive connection. The worst answer time is the longest the event loop was held (plus the prober's own round trip, ~0.2 ms idle); the gateway's own `monitorEventLoopDelay` maximum over the run (prom-client's gauge, 10 ms resolution) beside it. docs/decisions/0018-large-bodies-off-the-event-loop.md has what the stalls are made of.",
    );
    for (const database of databases) {
      const runs = STALLS[database];
      if (!runs) continue;
      push("", `${database === "sqlite" ? "SQLite" : "PostgreSQL"}:`, "", ...stallTable(runs));
    }
  }
  if (TRACES) push(...tracesSection(TRACES));
  push(
    "",
    "## Notes",
    "",
    "- The fake upstream's images are noise PNGs (they do not compress, like photos): a 3840x2160 one is ~25 MB as PNG and ~33 MB as base64. The edit uploads are two such noise PNGs of ~20 MB each, built once in memory and sent as one ~40 MB multipart body per request.",
    "- Streams: 20 content events 1 ms apart from the upstream, so events arrive one by one; a gateway that buffered a stream would show it as a first byte after the stream's end.",
    "- Chat Completions runs use autocannon with a request count (from a 1 s warm-up's rate), so no request is cut at the end and the ledger count is exact; the raw node:http runs stop issuing at the deadline and let requests in flight finish.",
    '- Not comparable across runs if the "other" CPU column is high: the machine is shared.',
  );
  return `${lines.join("\n")}\n`;
}

// ----------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const info = machine();
  const code = codeState();
  progress(
    `bench: ${DATABASES.join(" + ")}, ${SECONDS} s per run${ONLY ? `, only ${[...ONLY].join(",")}` : ""}${GATEWAY_NODE_ARGS.length ? `, gateway node args ${GATEWAY_NODE_ARGS.join(" ")}` : ""}`,
  );
  const before = await machineLoad();
  progress(
    `machine: ${info.cpu}, ${info.cores} cores, load average ${info.loadBefore.map((value) => value.toFixed(2)).join(" ")}, busy ${before.busyCores.toFixed(2)} cores before starting`,
  );
  if (before.busyCores > 0.3) progress(`  the machine is busy; top processes:\n${before.processes}`);

  progress("starting the fake upstream");
  const { proc: upstream, match } = await startProcess(
    ["--import", "tsx", "bench/fake-upstream.ts", "--port", "0", "--prewarm", `3840x2160,1024x1024,${RESPONSES_SIZE}`],
    { ...process.env },
    /listening (\d+)/,
    120_000,
  );
  const upstreamUrl = `http://127.0.0.1:${match[1]}`;
  const results: ScenarioResult[] = [];
  const loads: Record<string, { before: number[]; after: number[] }> = {};
  let gateway: Gateway | null = null;
  const cleanup = async () => {
    if (gateway) await gateway.close().catch(() => undefined);
    await upstream.stop();
  };
  process.once("SIGINT", () => {
    progress("interrupted; stopping the processes");
    void cleanup().finally(() => process.exit(130));
  });
  try {
    const scenarios = await buildScenarios(upstreamUrl);
    for (const database of DATABASES) {
      loads[database] = { before: os.loadavg(), after: [] };
      progress(
        `starting the gateway on ${database} (load average ${os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(" ")})`,
      );
      gateway = await startGateway(database, upstreamUrl);
      progress(`gateway pid ${gateway.proc.pid} at ${gateway.url}, RSS ${fmt(mb(memoryOf(gateway.proc.pid).rss), 0)} MB`);
      for (const scenario of scenarios) {
        try {
          results.push(await runScenario(scenario, gateway, upstream, upstreamUrl));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          progress(`  ${scenario.id} failed: ${message}`);
          results.push({ id: scenario.id, title: scenario.title, database, available: false, note: `failed: ${message.slice(0, 300)}` });
        }
      }
      if (!ONLY || ONLY.has("large-bodies")) {
        const target = gateway;
        try {
          await forceGc(target);
          STALLS[database] = await measureLargeBodies(
            {
              url: target.url,
              metrics: target.metrics,
              key: async (label, balance) => {
                const user = await target.admin("POST", "/api/admin/users", {
                  email: `bench-${label}-${randomBytes(4).toString("hex")}@example.com`,
                  password: "bench-password-4821",
                  quota: balance,
                });
                return (await target.admin("POST", "/api/admin/keys", { userId: user.id, name: label, quota: QUOTA, unlimited: false }))
                  .key;
              },
            },
            progress,
          );
        } catch (error) {
          progress(`  large-bodies failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const first = memoryOf(gateway.proc.pid);
      progress(`stopping the gateway on ${database} (RSS at the end ${fmt(mb(first.rss), 0)} MB)`);
      await gateway.close();
      gateway = null;
      loads[database]!.after = os.loadavg();
    }
    if (DATABASES.includes("sqlite") && (!ONLY || ONLY.has("traces"))) {
      try {
        TRACES = await measureTraces(scenarios, upstream, upstreamUrl, results, (traced) => (gateway = traced));
      } catch (error) {
        progress(`  traces could not be measured: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        gateway = null;
      }
    }
    // Portkey side by side, after the gateway runs (with nothing else running), on the same upstream.
    try {
      PORTKEY = await runThroughProxy(scenarios, upstreamUrl, results);
    } catch (error) {
      progress(`  Portkey could not be measured: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      BARE = await runThroughProxy(scenarios, upstreamUrl, results, "bare");
    } catch (error) {
      progress(`  the bare pass-through could not be measured: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    await cleanup();
  }
  const totalSeconds = (Date.now() - started) / 1000;
  const machineInfo: Machine = { ...info, busyBefore: before.busyCores, busyProcesses: before.processes, code };
  writeFileSync(MD_FILE, report(machineInfo, results, DATABASES, loads, totalSeconds));
  writeFileSync(
    JSON_FILE,
    `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, machine: machineInfo, loads, targets: Object.fromEntries(DATABASES.map((database) => [database, targets(results, database)])), portkey: PORTKEY, bare: BARE, largeBodies: STALLS, traces: TRACES, results }, null, 2)}\n`,
  );
  progress(
    `done in ${fmt(totalSeconds / 60, 1)} min; wrote ${path.relative(process.cwd(), MD_FILE) || MD_FILE} and ${path.relative(process.cwd(), JSON_FILE) || JSON_FILE}`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
