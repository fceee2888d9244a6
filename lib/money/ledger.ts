// Settlements and ledger rows are written in batches (one transaction per batch), so the request hot path makes
// one database write (the reservation). A batch is flushed every 20 ms, at 200 entries, before any ledger read
// in this process, and at shutdown. A failed flush keeps its entries and retries: money is never dropped.
import { moneyStore, type LedgerRow, type Settlement } from "./store";
import { singleton } from "@/lib/platform/singleton";
import { log } from "@/lib/platform/log";

const FLUSH_DELAY_MS = 20;
const FLUSH_AT = 200;

type Writer = {
  queue: Settlement[];
  touched: Map<string, Date>;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  listeners: Set<(rows: LedgerRow[]) => void>;
};

function writer(): Writer {
  return singleton("billing.ledger", () => ({ queue: [], touched: new Map(), timer: null, running: null, listeners: new Set() }) as Writer);
}

export function enqueueSettlement(settlement: Settlement): void {
  const state = writer();
  state.queue.push(settlement);
  if (settlement.row.keyId) state.touched.set(settlement.row.keyId, settlement.row.createdAt);
  if (state.queue.length >= FLUSH_AT) void flushLedger();
  else if (!state.timer) state.timer = setTimeout(() => void flushLedger(), FLUSH_DELAY_MS);
}

/** Called with every batch of rows once they are committed (metrics count them here). */
export function onLedgerWritten(listener: (rows: LedgerRow[]) => void): () => void {
  writer().listeners.add(listener);
  return () => writer().listeners.delete(listener);
}

export async function flushLedger(): Promise<void> {
  const state = writer();
  // One flush at a time; a flush requested meanwhile waits and then writes what arrived since.
  while (state.running) await state.running;
  if (state.timer) {
    clearTimeout(state.timer);
    state.timer = null;
  }
  if (!state.queue.length) return;
  const batch = state.queue.splice(0);
  const touched = new Map(state.touched);
  state.touched.clear();
  state.running = (async () => {
    try {
      const rows = await moneyStore().settle(batch, touched);
      for (const listener of state.listeners) listener(rows);
    } catch (error) {
      log.error("ledger flush failed; will retry", { error, entries: batch.length });
      state.queue.unshift(...batch);
      for (const [key, at] of touched) if (!state.touched.has(key)) state.touched.set(key, at);
      if (!state.timer) state.timer = setTimeout(() => void flushLedger(), 500);
    } finally {
      state.running = null;
    }
  })();
  await state.running;
}

export function pendingSettlements(): number {
  return writer().queue.length;
}
