// One request of many content parts (docs/decisions/0018-large-bodies-off-the-event-loop.md): the worst time the
// gateway took to answer /healthz, asked every 2 ms from a worker thread over one keep-alive connection, while it
// handled the request. A gateway started here on SQLite with the simulator, or the one at GATEWAY_URL (with MASTER,
// its master key: a gateway started with --cpu-prof, say).
//   node --import tsx bench/many-parts.ts                 200,000 parts to /v1/chat/completions
//   PARTS=100000 ENDPOINT=gemini node --import tsx bench/many-parts.ts
import { Worker } from "node:worker_threads";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../tests/helpers/gateway";

const PARTS = Number(process.env.PARTS ?? 200_000);
const ENDPOINT = process.env.ENDPOINT === "gemini" ? "gemini" : "chat";
const external = process.env.GATEWAY_URL;

async function externalGateway(url: string, masterKey: string): Promise<Pick<Gateway, "url" | "admin">> {
  return {
    url,
    admin: async (method: string, pathname: string, body?: unknown) => {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: { authorization: `Bearer ${masterKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.json();
    },
  };
}

const gateway = external ? await externalGateway(external, process.env.MASTER ?? "") : await startGateway();
const payer = await createUserWithKey(gateway as Gateway, { balance: 1_000_000_000, quota: 1_000_000_000 });
const texts = Array.from({ length: PARTS }, (_, index) => `w${index % 10}`);
const body =
  ENDPOINT === "chat"
    ? JSON.stringify({
        model: "std-5.5",
        max_tokens: 16,
        messages: [{ role: "user", content: texts.map((text) => ({ type: "text", text })) }],
      })
    : JSON.stringify({ contents: [{ role: "user", parts: texts.map((text) => ({ text })) }] });
const url = ENDPOINT === "chat" ? `${gateway.url}/v1/chat/completions` : `${gateway.url}/v1beta/models/std-5.5:generateContent`;

const prober = new Worker(
  `const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let worst = 0, probes = 0, stop = false;
parentPort.on("message", () => { stop = true; });
function probe() {
  const started = performance.now();
  http.get(workerData + "/healthz", { agent }, (response) => {
    response.resume();
    response.on("end", () => {
      worst = Math.max(worst, performance.now() - started);
      probes++;
      if (stop) { parentPort.postMessage({ worst, probes }); process.exit(0); }
      setTimeout(probe, 2);
    });
  });
}
probe();`,
  { eval: true, workerData: gateway.url },
);
await new Promise((resolve) => setTimeout(resolve, 500));
const started = performance.now();
const response = await fetch(url, {
  method: "POST",
  headers: { authorization: `Bearer ${payer.key}`, "x-goog-api-key": payer.key, "content-type": "application/json" },
  body,
});
const answer = await response.text();
const took = performance.now() - started;
prober.postMessage("stop");
const { worst, probes } = await new Promise<{ worst: number; probes: number }>((resolve) => prober.once("message", resolve));
process.stdout.write(
  `${ENDPOINT}, ${PARTS} parts, ${(body.length / 1e6).toFixed(1)} MB: ${response.status} in ${took.toFixed(0)} ms; worst /healthz ${worst.toFixed(1)} ms over ${probes} probes; ${answer.slice(0, 100)}\n`,
);
if (!external) await stopAllGateways();
process.exit(0);
