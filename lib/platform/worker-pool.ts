// A few worker threads that run CPU-heavy jobs off the event loop (docs/decisions/0018-large-bodies-off-the-event-loop.md): the parse,
// validation and token count of a large request body. A job goes to the worker with the fewest jobs waiting; its
// answer comes back as a small plain value. Workers start on first use and are kept; an idle worker does not keep the
// process alive, one with a job does (the job's caller is waiting for it, and may hold nothing else that would).
// A worker that dies fails its waiting jobs and is replaced on the next job.
//
// A worker's file is TypeScript, loaded the way the server's own files are: through tsx, whose loader a worker does not
// inherit from the process's `--import tsx` (Node 20), so a small bootstrap registers it first. The worker posts
// `{ id: -1 }` once loaded. One that dies before that could not start (a bundler that does not ship the file: `next dev`
// serving /v1 through app/): `run` then rejects with WorkerUnavailable, for good, and the caller does the job in
// process.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** A worker for a TypeScript file: tsx's loader registered in the worker, then the file imported. */
function typescriptWorker(file: URL): Worker {
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(file.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`));
}

/** What a worker posts back for job `id`: its result, or the message of what it threw. */
export type WorkerReply = { id: number; result?: unknown; failure?: string };

export class WorkerUnavailable extends Error {}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** A worker with jobs that answers none of them for this long is stuck: it is stopped and its jobs fail (a 32 MB
 *  body's job takes a few seconds at most here). */
const SILENCE_MS = 60_000;

/** Until a worker has said it is ready, its silence is its start: loading tsx and the tokenizer's table takes a second
 *  or two on a busy machine, which is not a stuck job. One that has not started in this long is stopped. */
const START_MS = 30_000;

class Thread {
  readonly pending = new Map<number, Pending>();
  readonly worker: Worker;
  dead = false;
  ready = false;
  #watchdog: NodeJS.Timeout | null = null;

  constructor(
    file: URL,
    readonly silenceMs: number,
    onDeath: (thread: Thread, error: Error) => void,
  ) {
    this.worker = file.pathname.endsWith(".ts") ? typescriptWorker(file) : new Worker(file);
    this.worker.unref();
    this.worker.on("message", (reply: WorkerReply) => {
      if (reply.id === -1) {
        this.ready = true;
        this.watch();
        return;
      }
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if (!this.pending.size) this.worker.unref();
      this.watch();
      if (reply.failure !== undefined) job.reject(new Error(reply.failure));
      else job.resolve(reply.result);
    });
    const die = (cause: Error) => {
      if (this.dead) return;
      this.dead = true;
      const error = this.ready ? cause : new WorkerUnavailable(`the worker could not start: ${cause.message}`);
      if (this.#watchdog) clearTimeout(this.#watchdog);
      for (const job of this.pending.values()) job.reject(error);
      this.pending.clear();
      onDeath(this, error);
    };
    this.worker.on("error", die);
    this.worker.on("exit", (code) => die(new Error(`the worker exited with code ${code}`)));
  }

  /** (Re)starts the watch on the worker's silence while it has jobs; a reply or a new first job restarts it. */
  watch(): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = null;
    if (!this.pending.size) return;
    this.#watchdog = setTimeout(() => void this.worker.terminate(), this.ready ? this.silenceMs : Math.max(this.silenceMs, START_MS));
    this.#watchdog.unref();
  }
}

export class WorkerPool {
  readonly #file: URL;
  readonly #size: number;
  readonly #silenceMs: number;
  #threads: Thread[] = [];
  #next = 0;
  #jobs = 0;
  #unavailable: Error | null = null;

  /**
   * `size` workers at most; by default one fewer than the machine's cores (the event loop has one), at least one.
   * Without a file (the caller's code was bundled without it), every job is refused with WorkerUnavailable.
   */
  constructor(file: URL | null, options: { size?: number; silenceMs?: number } = {}) {
    this.#file = file ?? new URL("about:blank");
    this.#size = options.size ?? Math.max(1, availableParallelism() - 1);
    this.#silenceMs = options.silenceMs ?? SILENCE_MS;
    if (!file) this.#unavailable = new Error("no worker file beside the code (it was bundled)");
  }

  #thread(): Thread {
    if (this.#threads.length < this.#size) {
      let thread: Thread;
      try {
        thread = new Thread(this.#file, this.#silenceMs, (dead, error) => {
          this.#threads = this.#threads.filter((candidate) => candidate !== dead);
          if (error instanceof WorkerUnavailable) this.#unavailable = error;
        });
      } catch (error) {
        this.#unavailable = error instanceof Error ? error : new Error(String(error));
        throw new WorkerUnavailable(this.#unavailable.message);
      }
      this.#threads.push(thread);
      return thread;
    }
    let best = this.#threads[this.#next++ % this.#threads.length]!;
    for (const thread of this.#threads) if (thread.pending.size < best.pending.size) best = thread;
    return best;
  }

  /** Runs `job` on a worker; `transfer` lists buffers handed over rather than copied. */
  run<T>(job: Record<string, unknown>, transfer: Transferable[] = []): Promise<T> {
    if (this.#unavailable) return Promise.reject(new WorkerUnavailable(this.#unavailable.message));
    const thread = this.#thread();
    const id = this.#jobs++;
    return new Promise<T>((resolve, reject) => {
      thread.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (thread.pending.size === 1) {
        thread.worker.ref();
        thread.watch();
      }
      thread.worker.postMessage({ ...job, id }, transfer as never);
    });
  }

  /** Stops every worker (tests). */
  async close(): Promise<void> {
    const threads = this.#threads;
    this.#threads = [];
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
