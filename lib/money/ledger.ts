// The ledger writer (docs/billing.md, "The ledger writer"). Settlements and ledger rows are written in batches (one
// transaction per batch), so the request hot path makes one database write (the reservation). A batch is flushed
// every 20 ms, at 200 entries, before any ledger read in this process, and at shutdown.
// No row can stop the others: each row is cleaned when it arrives (lib/money/ledger-row.ts: NUL and unpaired
// surrogates replaced, lengths capped); a batch the database refuses for its data is split in halves until the row
// it refuses is alone, which is retried once in a reduced form and else kept in the LedgerDeadLetter table. A batch
// that fails because the database is unavailable is kept whole and retried with backoff: money is never dropped.
import { moneyStore, type LedgerRow, type MoneyStore, type Settlement } from "./store";
import { errorCodeOf, isDataError } from "./store-rows";
import { cleanSettlement, reducedSettlement, serializedSettlement } from "./ledger-row";
import { singleton } from "@/lib/platform/singleton";
import { log } from "@/lib/platform/log";
import { observeLedgerDeadLetter, observeLedgerReducedRow, observeLedgerWriteFailure, reportLedgerWaiting } from "@/lib/platform/metrics";

export type LedgerStore = Pick<MoneyStore, "settle" | "deadLetter">;

export type LedgerWriterOptions = {
  /** How long a settlement waits for others before its batch is written. */
  delayMs: number;
  /** A batch this large is written at once. */
  flushAt: number;
  /** The most settlements one statement writes (a longer queue is written in several). */
  batchMax: number;
  /** The first wait after a failure of the database, doubled after each further one up to `retryMaxMs`. */
  retryMs: number;
  retryMaxMs: number;
};

const DEFAULTS: LedgerWriterOptions = { delayMs: 20, flushAt: 200, batchMax: 500, retryMs: 500, retryMaxMs: 10_000 };

/** What the writer made of one settlement that the database refused for its data. */
type Outcome = "written" | "reduced" | "dead_letter" | "logged";

export class LedgerWriter {
  private queue: Settlement[] = [];
  /** Settlements taken from the queue by the write under way. */
  private writing = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Failures of the database in a row, for the backoff; 0 once a write succeeds. */
  private failures = 0;
  private readonly options: LedgerWriterOptions;
  readonly listeners = new Set<(rows: LedgerRow[]) => void>();

  constructor(
    private readonly store: () => LedgerStore,
    options: Partial<LedgerWriterOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Settlements not yet written: queued, or in the write under way. */
  waiting(): number {
    return this.queue.length + this.writing;
  }

  enqueue(settlement: Settlement): void {
    this.queue.push(cleanSettlement(settlement));
    // While the database is failing, the backoff's timer decides when the next attempt is.
    if (this.queue.length >= this.options.flushAt && this.failures === 0) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.options.delayMs);
  }

  /** Writes everything queued; resolves when it is written or, the database failing, queued again for a retry. */
  async flush(): Promise<void> {
    // One flush at a time; a flush requested meanwhile waits and then writes what arrived since.
    while (this.running) await this.running;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.queue.length) return;
    this.running = this.writeQueue().finally(() => {
      this.running = null;
    });
    await this.running;
  }

  private async writeQueue(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.options.batchMax);
      this.writing = batch.length;
      let left: Settlement[];
      try {
        left = await this.write(batch, true);
      } catch (error) {
        // write() answers every failure of the database itself; anything else is a bug here: keep the batch.
        log.error("ledger write failed unexpectedly; will retry", { error, entries: batch.length });
        left = batch;
      } finally {
        this.writing = 0;
      }
      if (left.length) {
        // The database is unavailable: what was not written goes back in front, in order, and waits.
        this.queue.unshift(...left);
        this.failures++;
        const wait = Math.min(this.options.retryMs * 2 ** (this.failures - 1), this.options.retryMaxMs);
        // The backoff replaces any shorter timer an arrival set meanwhile.
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.flush(), wait);
        return;
      }
      this.failures = 0;
    }
  }

  /**
   * Writes `batch`; returns what it could not write because the database is unavailable (a suffix of `batch`, to
   * retry later). A refusal of the data splits the batch in halves, each written on its own, down to the one row
   * refused (at most ~2 log2(n) extra statements per refused row).
   */
  private async write(batch: Settlement[], whole = false): Promise<Settlement[]> {
    try {
      this.committed(await this.store().settle(batch));
      return [];
    } catch (error) {
      if (!isDataError(error)) {
        observeLedgerWriteFailure("unavailable");
        log.error("ledger write failed: the database is unavailable; will retry", {
          error,
          code: errorCodeOf(error),
          entries: batch.length,
        });
        return batch;
      }
      observeLedgerWriteFailure("data");
      if (whole)
        log.warn("ledger batch refused for its data; isolating the row it refuses", {
          error,
          code: errorCodeOf(error),
          entries: batch.length,
        });
      if (batch.length === 1) {
        const outcome = await this.writeRefused(batch[0]!, error);
        return outcome === "unavailable" ? batch : [];
      }
      const middle = Math.ceil(batch.length / 2);
      const first = await this.write(batch.slice(0, middle));
      if (first.length) return [...first, ...batch.slice(middle)];
      return this.write(batch.slice(middle));
    }
  }

  /** One settlement the database refused: once more in the reduced form, else into the dead-letter table. */
  private async writeRefused(settlement: Settlement, refusal: unknown): Promise<Outcome | "unavailable"> {
    const identity = { requestId: settlement.row.requestId, userId: settlement.userId, keyId: settlement.keyId };
    try {
      this.committed(await this.store().settle([reducedSettlement(settlement, describe(refusal))]));
      observeLedgerReducedRow();
      log.warn("ledger row refused by the database; written in a reduced form (text reduced to ASCII, detail dropped)", {
        ...identity,
        error: refusal,
        code: errorCodeOf(refusal),
      });
      return "reduced";
    } catch (error) {
      if (!isDataError(error)) return "unavailable";
      return this.deadLetter(settlement, error, identity);
    }
  }

  private async deadLetter(settlement: Settlement, failure: unknown, identity: Record<string, string>): Promise<Outcome | "unavailable"> {
    const money = { reserved: settlement.reserved, cost: settlement.row.cost };
    try {
      const { moneyApplied } = await this.store().deadLetter(settlement, failure);
      observeLedgerDeadLetter();
      log.error(
        moneyApplied
          ? "ledger row dead-lettered: the balance and quota moved as settled, the row is in LedgerDeadLetter (docs/billing.md)"
          : "ledger row dead-lettered with its reservation still held: see LedgerDeadLetter (docs/billing.md)",
        { ...identity, ...money, moneyApplied, error: failure, code: errorCodeOf(failure) },
      );
      return "dead_letter";
    } catch (error) {
      if (!isDataError(error)) return "unavailable";
      // Not even the dead-letter table takes it: this log line is its only record, and it is not retried.
      observeLedgerDeadLetter();
      log.error("ledger row refused everywhere; this log line is its only record and its reservation is still held", {
        ...identity,
        ...money,
        settlement: serializedSettlement(settlement),
        error,
        code: errorCodeOf(error),
      });
      return "logged";
    }
  }

  private committed(rows: LedgerRow[]): void {
    for (const listener of this.listeners) {
      try {
        listener(rows);
      } catch (error) {
        log.error("ledger listener failed", { error });
      }
    }
  }

  /**
   * At shutdown: a few more attempts while the database is unavailable, then every settlement still unwritten is
   * logged in full at error level (with its reservation still held), so none is lost without a trace.
   */
  async close(attempts = 3): Promise<void> {
    for (let attempt = 0; attempt < attempts && this.waiting(); attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, this.options.retryMs));
      await this.flush();
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const settlement of this.queue.splice(0)) {
      log.error("ledger row not written before shutdown; its reservation is still held", {
        requestId: settlement.row.requestId,
        settlement: serializedSettlement(settlement),
      });
    }
  }
}

function describe(error: unknown): string {
  const code = errorCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}` : message;
}

function writer(): LedgerWriter {
  return singleton("billing.ledger", () => {
    const created = new LedgerWriter(moneyStore);
    reportLedgerWaiting(() => created.waiting());
    return created;
  });
}

export function enqueueSettlement(settlement: Settlement): void {
  writer().enqueue(settlement);
}

/** Called with every batch of rows once they are committed (metrics count them here). */
export function onLedgerWritten(listener: (rows: LedgerRow[]) => void): () => void {
  writer().listeners.add(listener);
  return () => writer().listeners.delete(listener);
}

export function flushLedger(): Promise<void> {
  return writer().flush();
}

/** The last flush, at shutdown (server.ts): what still cannot be written is logged, never dropped silently. */
export function closeLedger(): Promise<void> {
  return writer().close();
}

export function pendingSettlements(): number {
  return writer().waiting();
}
