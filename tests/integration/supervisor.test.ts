// `npm start` (scripts/start.mjs) runs the server under a supervisor (scripts/supervise.mjs): a server process that
// dies is started again on the same port, with a log line saying why; SIGTERM to `npm start` drains in-flight
// streams and ends both processes, with no restart; a server that cannot start at all is not restarted.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

after(stopAllGateways);

type LogLine = { msg?: string; pid?: number; code?: number | null; signal?: string | null; restartInMs?: number; lastOutput?: string[] };

function logLines(gateway: Gateway): LogLine[] {
  return gateway
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

async function until<T>(what: string, gateway: Gateway, check: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the output:\n${gateway.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function chat(gateway: Gateway, key: string, stream = false): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", stream, max_tokens: 60, messages: [{ role: "user", content: "Tell me about restarts" }] }),
    signal: AbortSignal.timeout(30_000),
  });
}

test("npm start: a server killed with SIGKILL comes back on the same port, the death logged; SIGTERM drains and ends both", async () => {
  const gateway = await startGateway({ supervised: true, env: { GATEWAY_LOG: "info", GATEWAY_SHUTDOWN_GRACE_MS: "10000" } });
  const ready = (output: string) => [...output.matchAll(/^Gateway ready on http:\/\/localhost:(\d+)$/gm)].map((match) => Number(match[1]));
  const started = () => logLines(gateway).filter((line) => line.msg === "gateway process started");
  const first = started()[0]!.pid!;
  assert.ok(alive(first));
  const user = await createUserWithKey(gateway);

  process.kill(first, "SIGKILL");
  const died = await until("the death to be logged", gateway, () =>
    logLines(gateway).find((line) => line.msg === "the gateway process died; restarting it"),
  );
  assert.equal(died.pid, first);
  assert.equal(died.signal, "SIGKILL");
  assert.equal(died.code, null);
  assert.equal(died.restartInMs, 1_000);
  assert.ok(
    died.lastOutput!.some((line) => line.includes("Gateway ready")),
    "the log carries the last lines the process printed",
  );

  await until("a second ready line", gateway, () => ready(gateway.output()).length === 2);
  assert.deepEqual(ready(gateway.output()), [gateway.port, gateway.port], "the restarted server listens on the same port");
  const second = started()[1]!.pid!;
  assert.notEqual(second, first);
  const health = await fetch(`${gateway.url}/healthz`);
  assert.equal(health.status, 200);
  const answer = await chat(gateway, user.key);
  assert.equal(answer.status, 200, "the same database: the key made before the restart works");
  await answer.text();

  // A slow simulator stream in flight when SIGTERM comes: it runs to its end, then both processes exit, no restart.
  const channels = (await gateway.admin("GET", "/api/admin/channels")).data;
  await gateway.admin("PATCH", `/api/admin/channels/${channels[0].id}`, { settings: { delayMs: 40 } });
  const streamed = await chat(gateway, user.key, true);
  const reader = streamed.body!.getReader();
  await reader.read();
  const exited = gateway.stop("SIGTERM");
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /data: \[DONE\]/, "the stream ran to its end after SIGTERM");
  assert.equal(await exited, 0);
  assert.equal(alive(second), false, "the server process is gone too");
  assert.equal(started().length, 2, "no restart after a deliberate stop");
  assert.match(gateway.output(), /"msg":"shutting down","signal":"SIGTERM"/);
});

test("npm start: a server that cannot start (a bad variable) is not restarted; npm start exits with its code", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gateway-supervisor-"));
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    PORT: "not-a-port",
    GATEWAY_DATA_DIR: dataDir,
    DATABASE_URL: `file:${path.join(dataDir, "gateway.db")}`,
    GATEWAY_DISABLE_NEXT: "1",
  };
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    env: environment as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  rmSync(dataDir, { recursive: true, force: true });
  assert.equal(code, 1, output);
  assert.match(output, /PORT/);
  assert.match(output, /stopped before it was ready; not restarting it/);
  assert.equal(output.match(/"msg":"gateway process started"/g)?.length, 1);
});
