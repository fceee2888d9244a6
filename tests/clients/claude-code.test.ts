// The Claude Code CLI (the pinned @anthropic-ai/claude-code) pointed at the gateway as README.md's "Clients" section
// says: a plain prompt answered by the simulator, and a prompt that makes it run its Read tool through a fake vendor.
// The CLI, the gateway and the vendor run in a network namespace with only loopback (tests/clients/claude-code-runner.ts),
// with telemetry, error reporting and updates off: nothing can leave the machine. Needs root for the namespace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const namespaces = spawnSync("unshare", ["-n", "--", "true"]).status === 0;

test("Claude Code works through the gateway: a plain prompt, a tool round trip, its betas passed as it sent them", {
  skip: namespaces ? false : "needs root for a loopback-only network namespace (unshare -n)",
  timeout: 300_000,
}, () => {
  const run = spawnSync(
    "unshare",
    ["-n", "--", "sh", "-c", "ip link set lo up && exec node --import tsx tests/clients/claude-code-runner.ts"],
    { encoding: "utf8", timeout: 280_000, maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(run.status, 0, run.stderr.slice(-2000));
  const outcome = JSON.parse(run.stdout.trim().split("\n").at(-1)!);

  assert.equal(outcome.plain.code, 0, outcome.plain.stderr);
  assert.match(JSON.parse(outcome.plain.stdout).result, /^\(simulated\) /, "the simulator answered the plain prompt");

  assert.equal(outcome.withTool.code, 0, outcome.withTool.stderr);
  assert.equal(JSON.parse(outcome.withTool.stdout).result, `I read it: ${outcome.marker}`, "the CLI ran Read and sent its result back");
  const received = outcome.received as {
    beta: string | null;
    tools: number;
    maxTokens: number;
    systemTurns: number;
    toolResult: string | null;
  }[];
  assert.ok(
    received.some((request) => request.toolResult?.includes(outcome.marker)),
    "the vendor got the tool result through the gateway",
  );
  for (const request of received) {
    assert.equal(request.beta, outcome.direct[0], "the betas the CLI sends are all on the allowlist");
    assert.ok(request.tools > 5, "its tools passed");
  }
  const ledger = outcome.ledger as { status: string; overReservation: number; cost: number; reserved: number }[];
  assert.ok(ledger.length >= 3);
  for (const row of ledger) {
    assert.equal(row.status, "success");
    assert.equal(row.overReservation, 0);
    assert.ok(row.cost <= row.reserved);
  }
});
