// Keeps the gateway process running (`npm start`, scripts/start.mjs): when it dies (an uncaught exception, out of
// memory, a native crash, a kill), it is started again, after a delay that doubles from 1 s to 30 s while it keeps
// dying and starts over once a process has stayed up for a minute. Each death is logged with its exit code or
// signal and the last lines the process printed. SIGTERM or SIGINT to the supervisor is passed on to the process,
// whose own shutdown lets in-flight streams finish (GATEWAY_SHUTDOWN_GRACE_MS); no restart follows, and the
// supervisor exits with the process. A process that fails before it was ever ready (a bad variable, a database
// that cannot be reached at the first start) is not restarted: the supervisor exits with its code, as the process
// alone would.
//
// The process announces itself with "Gateway ready on http://localhost:PORT"; a restarted one is given that port,
// so that with PORT=0 the gateway keeps the address it first got.
import { spawn } from "node:child_process";

const READY = /Gateway ready on http:\/\/localhost:(\d+)/;
/** Lines of the process's output kept for the log of its death, and the most characters of each. */
const TAIL_LINES = 20;
const TAIL_LINE_CHARACTERS = 500;

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One structured log line, in the shape of the gateway's own and under the same GATEWAY_LOG level (lib/platform/log.ts). */
export function logLine(level, message, fields = {}) {
  if (LEVELS[level] < (LEVELS[process.env.GATEWAY_LOG ?? "info"] ?? LEVELS.info)) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

/** The last lines a process printed (both streams, in the order they came), bounded in count and length. */
class Tail {
  lines = [];
  partial = "";

  add(chunk) {
    const text = this.partial + chunk.toString("utf8");
    const pieces = text.split("\n");
    this.partial = pieces.pop().slice(-TAIL_LINE_CHARACTERS);
    for (const piece of pieces.slice(-TAIL_LINES)) {
      if (piece.trim() === "") continue;
      this.lines.push(piece.length > TAIL_LINE_CHARACTERS ? `${piece.slice(0, TAIL_LINE_CHARACTERS)}…` : piece);
    }
    if (this.lines.length > TAIL_LINES) this.lines.splice(0, this.lines.length - TAIL_LINES);
  }

  take() {
    const lines = this.partial.trim() === "" ? this.lines : [...this.lines, this.partial];
    this.lines = [];
    this.partial = "";
    return lines.slice(-TAIL_LINES);
  }
}

/**
 * Runs `command` with `args` and restarts it when it dies. Returns `stop(signal)`, which passes the signal on and
 * ends supervision, and `done`, which resolves to the exit code the supervisor should end with.
 *
 * options: env (the process's environment), firstDelayMs (1,000), maxDelayMs (30,000), resetAfterMs (60,000: a
 * process up this long restarts after firstDelayMs again), stopTimeoutMs (how long a stopped process may take
 * before it is killed; default GATEWAY_SHUTDOWN_GRACE_MS + 15 s), log (logLine), output ({stdout, stderr} to copy
 * the process's output to).
 */
export function supervise(command, args, options = {}) {
  const firstDelayMs = options.firstDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const resetAfterMs = options.resetAfterMs ?? 60_000;
  const grace = Number(options.env?.GATEWAY_SHUTDOWN_GRACE_MS ?? process.env.GATEWAY_SHUTDOWN_GRACE_MS);
  const stopTimeoutMs = options.stopTimeoutMs ?? (Number.isFinite(grace) && grace >= 0 ? grace : 30_000) + 15_000;
  const log = options.log ?? logLine;
  const output = options.output ?? { stdout: process.stdout, stderr: process.stderr };
  const env = { ...(options.env ?? process.env) };

  let child = null;
  let startedAt = 0;
  let ready = false;
  let everReady = false;
  let port = null;
  let delayMs = firstDelayMs;
  let restarts = 0;
  let restartTimer = null;
  let killTimer = null;
  let stopping = false;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));

  function start() {
    restartTimer = null;
    ready = false;
    startedAt = Date.now();
    const tail = new Tail();
    let pending = "";
    const environment = port === null ? env : { ...env, PORT: String(port) };
    const current = spawn(command, args, { env: environment, stdio: ["inherit", "pipe", "pipe"] });
    child = current;
    log("info", "gateway process started", { pid: current.pid, ...(restarts ? { restart: restarts } : {}) });
    current.stdout.on("data", (chunk) => {
      output.stdout.write(chunk);
      tail.add(chunk);
      if (ready) return;
      // The ready line is looked for in what came since the last newline, bounded like the tail.
      pending = (pending + chunk.toString("utf8")).slice(-1_000);
      const found = READY.exec(pending);
      if (found) {
        ready = everReady = true;
        port ??= Number(found[1]);
        pending = "";
      }
    });
    current.stderr.on("data", (chunk) => {
      output.stderr.write(chunk);
      tail.add(chunk);
    });
    current.once("error", (error) => {
      // The command could not be run at all: nothing to restart.
      log("error", "the gateway process could not be started", { command, error: error.message });
      child = null;
      finish(1);
    });
    // 'close': the process has exited and its output has been read to the end, so the tail is complete.
    current.once("close", (code, signal) => {
      if (child !== current) return;
      child = null;
      if (killTimer) clearTimeout(killTimer);
      const exit = code ?? (signal ? 1 : 0);
      if (stopping) return finish(exit);
      const uptimeMs = Date.now() - startedAt;
      if (!everReady) {
        log("error", "the gateway process stopped before it was ready; not restarting it", { code, signal });
        return finish(exit);
      }
      if (code === 0 && !signal) {
        // The server exits 0 only from its own shutdown (a SIGTERM or SIGINT sent to it directly): a deliberate stop.
        log("info", "the gateway process stopped", { code });
        return finish(0);
      }
      if (uptimeMs >= resetAfterMs) delayMs = firstDelayMs;
      log("error", "the gateway process died; restarting it", {
        pid: current.pid,
        code,
        signal,
        uptimeSeconds: Math.round(uptimeMs / 100) / 10,
        restartInMs: delayMs,
        lastOutput: tail.take(),
      });
      restarts++;
      restartTimer = setTimeout(start, delayMs);
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    });
  }

  function stop(signal = "SIGTERM") {
    if (stopping) {
      // A second signal is passed on too (the server ignores it while it drains; a kill still works).
      child?.kill(signal);
      return done;
    }
    stopping = true;
    if (restartTimer) {
      clearTimeout(restartTimer);
      restartTimer = null;
    }
    if (!child) {
      finish(0);
      return done;
    }
    child.kill(signal);
    const stopped = child;
    killTimer = setTimeout(() => {
      log("error", "the gateway process did not stop in time; killing it", { pid: stopped.pid, afterMs: stopTimeoutMs });
      stopped.kill("SIGKILL");
    }, stopTimeoutMs);
    killTimer.unref();
    return done;
  }

  start();
  return { stop, done, pid: () => child?.pid ?? null };
}
