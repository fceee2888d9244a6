// `npm run bench`'s large-body scenario (docs/decisions/0018-large-bodies-off-the-event-loop.md): four 30 MB chat bodies at once, from a key
// that pays and from one with nothing left, while a prober asks the gateway's /healthz every 2 ms. The figure is the
// longest stall of the gateway's event loop: the prober's worst answer time, and the gateway's own
// monitorEventLoopDelay maximum over the run (prom-client's gauge in /metrics, reset by reading it before the run).
// Two bodies: one long text, and many short messages (the denser object graph: more to parse, count and collect).
import { Worker } from "node:worker_threads";
import http from "node:http";

const MB = 1024 * 1024;
const CONCURRENCY = 4;
const PROBE_EVERY_MS = 2;

export type StallRun = {
  body: string;
  megabytes: number;
  payer: "paying" | "zero balance";
  /** Answers by status. */
  statuses: Record<string, number>;
  seconds: number;
  probes: number;
  probeWorstMs: number;
  probeP99Ms: number;
  /** The gateway's own event-loop delay maximum over the run (ms), or null when /metrics could not be read. */
  loopMaxMs: number | null;
};

export type StallTarget = {
  url: string;
  /** /metrics, read with the operator's key. */
  metrics: () => Promise<string>;
  /** A key whose owner has `balance` micro-USD (and as much quota). */
  key: (label: string, balance: number) => Promise<string>;
};

function bodies(): { name: string; body: Buffer }[] {
  const words = "The quick brown fox jumps over the lazy dog, and then some more words follow here. ";
  const text = words.repeat(Math.ceil((30 * MB) / words.length)).slice(0, 30 * MB);
  const short = words.repeat(4);
  const count = Math.floor((30 * MB) / (short.length + 40));
  return [
    {
      name: "one 30 MB text",
      body: Buffer.from(JSON.stringify({ model: "std-5.5", max_tokens: 16, messages: [{ role: "user", content: text }] })),
    },
    {
      name: `${count.toLocaleString("en")} messages of ${short.length} characters`,
      body: Buffer.from(
        JSON.stringify({
          model: "std-5.5",
          max_tokens: 16,
          messages: Array.from({ length: count }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: short })),
        }),
      ),
    },
  ];
}

/** The prober, on its own thread so that the load generator's own work never delays a probe. */
const PROBER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
let running = true;
parentPort.on("message", () => { running = false; });
function probe() {
  if (!running) return parentPort.postMessage(times);
  const started = performance.now();
  http.get(workerData.url + "/healthz", { agent }, (response) => {
    response.resume();
    response.on("end", () => {
      times.push(performance.now() - started);
      setTimeout(probe, workerData.every);
    });
  }).on("error", () => setTimeout(probe, workerData.every));
}
probe();
`;

function post(url: string, key: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const request = http.request(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length) },
    });
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", () => (answered ? undefined : resolve(0)));
    request.end(body);
  });
}

function loopMax(metrics: string): number | null {
  const found = /^gateway_process_nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(metrics);
  return found ? Number(found[1]) * 1000 : null;
}

export async function measureLargeBodies(target: StallTarget, progress: (line: string) => void): Promise<StallRun[]> {
  const paying = await target.key("large-bodies-paying", 10_000_000_000_000);
  const broke = await target.key("large-bodies-broke", 0);
  // One large body first: it starts the gateway's body worker (once per process, ~1 s here; measured apart in
  // docs/decisions/0018-large-bodies-off-the-event-loop.md), so the runs show the steady state.
  const warm = Buffer.from(
    JSON.stringify({ model: "std-5.5", max_tokens: 16, messages: [{ role: "user", content: "warm ".repeat(300_000) }] }),
  );
  await post(target.url, paying, warm);
  const runs: StallRun[] = [];
  for (const { name, body } of bodies()) {
    for (const [payer, key] of [
      ["zero balance", broke],
      ["paying", paying],
    ] as const) {
      progress(`  large-bodies: ${CONCURRENCY} × ${name} (${(body.length / MB).toFixed(1)} MB), ${payer}`);
      await target.metrics().catch(() => ""); // resets the gateway's event-loop delay histogram
      const prober = new Worker(PROBER, { eval: true, workerData: { url: target.url, every: PROBE_EVERY_MS } });
      const times = new Promise<number[]>((resolve) => prober.once("message", resolve));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      const statuses = await Promise.all(Array.from({ length: CONCURRENCY }, () => post(target.url, key, body)));
      const seconds = (performance.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 200));
      prober.postMessage("stop");
      const probed = (await times).sort((a, b) => a - b);
      await prober.terminate();
      const metrics = await target.metrics().catch(() => "");
      const byStatus: Record<string, number> = {};
      for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
      runs.push({
        body: name,
        megabytes: body.length / MB,
        payer,
        statuses: byStatus,
        seconds,
        probes: probed.length,
        probeWorstMs: probed.at(-1) ?? Number.NaN,
        probeP99Ms: probed[Math.floor(probed.length * 0.99)] ?? Number.NaN,
        loopMaxMs: loopMax(metrics),
      });
      const run = runs.at(-1)!;
      progress(
        `    ${JSON.stringify(run.statuses)} in ${run.seconds.toFixed(1)} s; worst /healthz ${run.probeWorstMs.toFixed(1)} ms (p99 ${run.probeP99Ms.toFixed(1)}); event-loop delay max ${run.loopMaxMs?.toFixed(1) ?? "?"} ms`,
      );
    }
  }
  return runs;
}

/** The section of bench/RESULTS.md for one database's runs. */
export function stallTable(runs: StallRun[]): string[] {
  return [
    "| Body (4 at once, through /v1/chat/completions) | Payer | Answers | Took | Worst /healthz (p99), ms | Gateway event-loop delay max, ms |",
    "|---|---|---|---|---|---|",
    ...runs.map(
      (run) =>
        `| ${run.body}, ${run.megabytes.toFixed(1)} MB | ${run.payer} | ${Object.entries(run.statuses)
          .map(([status, count]) => `${count} × ${status}`)
          .join(
            ", ",
          )} | ${run.seconds.toFixed(1)} s | **${run.probeWorstMs.toFixed(1)}** (${run.probeP99Ms.toFixed(1)}) | ${run.loopMaxMs?.toFixed(1) ?? "–"} |`,
    ),
  ];
}
