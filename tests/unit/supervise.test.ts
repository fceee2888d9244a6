// The supervisor behind `npm start` (scripts/supervise.mjs), driven with small stand-in processes: every kind of
// death is restarted with the reason logged, the delay doubles up to its cap and starts over after a process that
// stayed up, a restarted process gets the port the first one announced, and a stop ends it without a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { supervise } from "../../scripts/supervise.mjs";

type Logged = { level: string; message: string; fields: Record<string, unknown> };

const quiet = { write: () => true };

/**
 * A stand-in for the server: says which PORT it was given, announces itself like server.ts (on that port, or on 4567
 * for 0 or none, as if the system had picked it), then runs `then` after `afterMs`.
 */
function standIn(then: string, afterMs = 30): string[] {
  const announce =
    'console.log("PORT=" + process.env.PORT); console.log("Gateway ready on http://localhost:" + (Number(process.env.PORT) || 4567));';
  return ["-e", `${announce} setTimeout(() => { ${then} }, ${afterMs});`];
}

function run(
  args: string[],
  options: { firstDelayMs?: number; maxDelayMs?: number; resetAfterMs?: number; env?: Record<string, string | undefined> } = {},
) {
  const logged: Logged[] = [];
  let printed = "";
  const supervisor = supervise(process.execPath, args, {
    firstDelayMs: 20,
    maxDelayMs: 80,
    resetAfterMs: 60_000,
    ...options,
    env: { PATH: process.env.PATH, ...options.env },
    log: (level, message, fields = {}) => logged.push({ level, message, fields }),
    output: { stdout: { write: (chunk: Uint8Array | string) => (printed += chunk.toString()) }, stderr: quiet },
  });
  const deaths = () => logged.filter((entry) => entry.message === "the gateway process died; restarting it");
  const until = async (count: number) => {
    const deadline = Date.now() + 30_000;
    while (deaths().length < count) {
      if (Date.now() > deadline) throw new Error(`only ${deaths().length} deaths: ${JSON.stringify(logged)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { supervisor, logged, deaths, until, printed: () => printed };
}

test("an uncaught exception, an abort and a kill are each restarted, with the code or signal and the last output", async () => {
  const cases = [
    { death: 'throw new Error("boom from the stand-in")', code: 1, signal: null, says: /Error: boom from the stand-in/ },
    { death: "process.abort()", code: null, signal: "SIGABRT", says: /Gateway ready/ },
    { death: 'process.kill(process.pid, "SIGKILL")', code: null, signal: "SIGKILL", says: /Gateway ready/ },
  ];
  for (const { death, code, signal, says } of cases) {
    const { supervisor, deaths, until } = run(standIn(death));
    await until(2);
    const died = deaths()[0]!;
    assert.equal(died.level, "error");
    assert.equal(died.fields.code, code, death);
    assert.equal(died.fields.signal, signal, death);
    assert.ok(
      (died.fields.lastOutput as string[]).some((line) => says.test(line)),
      `${death}: ${JSON.stringify(died.fields.lastOutput)}`,
    );
    assert.equal(deaths()[1]!.fields.signal, signal, `${death}: started again, and died the same way`);
    assert.equal(await supervisor.stop(), 0);
  }
});

test("the delay doubles from the first to the cap while the process keeps dying, and starts over after one that stayed up", async () => {
  const crashing = run(standIn("process.exit(3)"));
  await crashing.until(5);
  assert.deepEqual(
    crashing.deaths().map((death) => death.fields.restartInMs),
    [20, 40, 80, 80, 80],
  );
  await crashing.supervisor.stop();

  // Each process stays up 150 ms, past resetAfterMs: every restart waits the first delay again.
  const lasting = run(standIn("process.exit(3)", 150), { resetAfterMs: 100 });
  await lasting.until(3);
  assert.deepEqual(
    lasting.deaths().map((death) => death.fields.restartInMs),
    [20, 20, 20],
  );
  await lasting.supervisor.stop();
});

test("a restarted process is given the port the first one announced (PORT=0 keeps its address)", async () => {
  const { supervisor, until, logged } = run(standIn("process.exit(3)"), { env: { PORT: "0" } });
  await until(2);
  await supervisor.stop();
  const outputs = logged
    .filter((entry) => entry.message === "the gateway process died; restarting it")
    .map((entry) => entry.fields.lastOutput);
  assert.deepEqual(outputs[0], ["PORT=0", "Gateway ready on http://localhost:4567"]);
  assert.deepEqual(outputs[1], ["PORT=4567", "Gateway ready on http://localhost:4567"]);
});

test("stop passes the signal on and ends without a restart; a stop during the delay ends at once", async () => {
  // Like server.ts: on SIGTERM it drains for a while, then exits 0.
  const graceful =
    'process.on("SIGTERM", () => { console.log("draining"); setTimeout(() => process.exit(0), 100); }); setInterval(() => {}, 1000);';
  const { supervisor, logged, printed } = run(["-e", `${graceful} console.log("Gateway ready on http://localhost:4567");`]);
  while (!printed().includes("Gateway ready")) await new Promise((resolve) => setTimeout(resolve, 10));
  const pid = supervisor.pid()!;
  assert.equal(await supervisor.stop("SIGTERM"), 0);
  assert.match(printed(), /draining/, "the signal reached the process, which drained");
  assert.throws(() => process.kill(pid, 0), "the process is gone");
  assert.equal(logged.filter((entry) => entry.message === "gateway process started").length, 1, "no restart");

  // Between a death and its restart (a 10 s delay here), a stop ends supervision without starting anything.
  const waiting = run(standIn("process.exit(3)"), { firstDelayMs: 10_000 });
  await waiting.until(1);
  assert.equal(await waiting.supervisor.stop(), 0);
  assert.equal(waiting.logged.filter((entry) => entry.message === "gateway process started").length, 1);
});

test("a process that dies before it was ever ready is not restarted, and its code is the supervisor's", async () => {
  const { supervisor, logged } = run(["-e", "process.exit(4)"]);
  assert.equal(await supervisor.done, 4);
  assert.ok(logged.some((entry) => entry.message === "the gateway process stopped before it was ready; not restarting it"));
  assert.equal(logged.filter((entry) => entry.message === "gateway process started").length, 1);
});
