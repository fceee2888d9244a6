// The ledger writer's batching under failures (lib/money/ledger.ts; docs/billing.md, "The ledger writer"), against a
// store that behaves like a database: a batch is written whole or not at all, a row it refuses fails the batch with
// SQLSTATE 22P05 (a data error), an unavailable database fails with ECONNREFUSED. The same writer on the real
// databases: tests/integration/ledger-writer.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LedgerWriter, type LedgerStore } from "@/lib/money/ledger";
import { cleanSettlement, reducedSettlement } from "@/lib/money/ledger-row";
import type { LedgerRow, Settlement } from "@/lib/money/store";

function settlement(requestId: string, change: Partial<LedgerRow> = {}): Settlement {
  return {
    keyId: "key-1",
    userId: "user-1",
    unlimited: false,
    reserved: 1_000,
    row: {
      kind: "request",
      requestId,
      userId: "user-1",
      keyId: "key-1",
      keyPrefix: "sk-test",
      endpoint: "/v1/chat/completions",
      model: "std-5.5",
      channelId: null,
      channelName: null,
      textInputTokens: 1,
      textOutputTokens: 1,
      imageInputTokens: 0,
      imageOutputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reserved: 1_000,
      cost: 10,
      overReservation: 0,
      priceVersion: 1,
      status: "success",
      httpStatus: 200,
      error: null,
      latencyMs: 5,
      stream: false,
      detail: null,
      createdAt: new Date(),
      ...change,
    },
  };
}

const dataError = () => Object.assign(new Error("unsupported Unicode escape sequence"), { code: "22P05" });
const unavailable = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A store that refuses any batch holding a row `refuses` picks, and records every call. */
class FakeStore implements LedgerStore {
  written: string[] = [];
  rows: LedgerRow[] = [];
  calls: number[] = [];
  deadLetters: { requestId: string; failure: unknown }[] = [];
  down = false;

  constructor(private readonly refuses: (row: LedgerRow) => boolean = () => false) {}

  async settle(settlements: Settlement[]): Promise<LedgerRow[]> {
    this.calls.push(settlements.length);
    if (this.down) throw unavailable();
    if (settlements.some((entry) => this.refuses(entry.row))) throw dataError();
    this.written.push(...settlements.map((entry) => entry.row.requestId));
    this.rows.push(...settlements.map((entry) => entry.row));
    return settlements.map((entry) => entry.row);
  }

  async deadLetter(entry: Settlement, failure: unknown): Promise<{ moneyApplied: boolean }> {
    if (this.down) throw unavailable();
    this.deadLetters.push({ requestId: entry.row.requestId, failure });
    return { moneyApplied: true };
  }
}

const names = (count: number) => Array.from({ length: count }, (_, index) => `req-${index}`);

test("a batch refused for one row: the others are written, the row is isolated by halving and written once reduced", async () => {
  // The database refuses the row as it was (its model is not ASCII, as a database in a one-byte encoding might), and
  // takes the reduced form.
  const store = new FakeStore((row) => /[^\x20-\x7E]/.test(row.model));
  const writer = new LedgerWriter(() => store, { delayMs: 60_000 });
  const all = names(200);
  for (const name of all) writer.enqueue(settlement(name, name === "req-137" ? { model: "modèle", detail: { a: 1 } } : {}));
  await writer.flush();

  assert.deepEqual([...store.written].sort(), [...all].sort(), "every row is written, the refused one too");
  assert.equal(writer.waiting(), 0);
  assert.deepEqual(store.deadLetters, []);
  // Halving 200 down to one row: 1 + 2 per level (8 levels), then the reduced row: bounded, never a retry loop.
  assert.ok(store.calls.length <= 1 + 2 * 8 + 1, `${store.calls.length} calls: ${store.calls.join(", ")}`);
  const reduced = store.rows.find((row) => row.requestId === "req-137")!;
  assert.equal(reduced.model, "mod?le", "written in the reduced form");
  assert.match(JSON.stringify(reduced.detail), /reduced form/);
  assert.equal(reduced.cost, 10, "with its money intact");
});

test("a row that always fails goes to the dead letters and blocks nothing, then or later", async () => {
  const store = new FakeStore((row) => row.requestId === "req-3");
  const writer = new LedgerWriter(() => store, { delayMs: 60_000 });
  for (const name of names(10)) writer.enqueue(settlement(name));
  await writer.flush();
  assert.deepEqual(
    [...store.written].sort(),
    names(10)
      .filter((name) => name !== "req-3")
      .sort(),
  );
  assert.deepEqual(
    store.deadLetters.map((letter) => letter.requestId),
    ["req-3"],
  );
  assert.equal((store.deadLetters[0]!.failure as { code: string }).code, "22P05");
  assert.equal(writer.waiting(), 0, "not retried forever");

  // The next settlements are written in one batch, as if nothing had happened.
  const before = store.calls.length;
  for (const name of ["later-1", "later-2"]) writer.enqueue(settlement(name));
  await writer.flush();
  assert.deepEqual(store.calls.slice(before), [2]);
});

test("an unavailable database: the batch is kept whole and in order, not split, and written once the database is back", async () => {
  const store = new FakeStore();
  store.down = true;
  const writer = new LedgerWriter(() => store, { delayMs: 60_000, retryMs: 60_000 });
  for (const name of names(50)) writer.enqueue(settlement(name));
  await writer.flush();
  assert.deepEqual(store.calls, [50], "one attempt for the whole batch: a connection error is not the data's fault");
  assert.equal(writer.waiting(), 50, "nothing is lost");
  await writer.flush();
  assert.deepEqual(store.calls, [50, 50]);
  assert.deepEqual(store.deadLetters, []);

  writer.enqueue(settlement("after"));
  store.down = false;
  await writer.flush();
  assert.deepEqual(store.written, [...names(50), "after"], "all of it, in the order it came");
  assert.equal(writer.waiting(), 0);
});

test("the database failing in the middle of a split: what was written stays written, the rest waits in order", async () => {
  const store = new FakeStore((row) => row.requestId === "req-6");
  const writer = new LedgerWriter(() => store, { delayMs: 60_000, retryMs: 60_000 });
  for (const name of names(8)) writer.enqueue(settlement(name));
  // The first half (req-0..3) is written, then the database goes away.
  const settle = store.settle.bind(store);
  store.settle = async (entries) => {
    const rows = await settle(entries);
    store.down = true;
    return rows;
  };
  await writer.flush();
  assert.deepEqual(store.written, names(4));
  assert.equal(writer.waiting(), 4);
  store.settle = settle;
  store.down = false;
  await writer.flush();
  assert.deepEqual(
    store.written,
    names(8).filter((name) => name !== "req-6"),
  );
  assert.deepEqual(
    store.deadLetters.map((letter) => letter.requestId),
    ["req-6"],
  );
  assert.equal(writer.waiting(), 0);
});

test("cleaning: NUL and unpaired surrogates replaced in every text column and in detail, keys too; lengths capped; money untouched", () => {
  const dirty = settlement("req-\u0000", {
    model: "m\u0000",
    channelName: "c\uD800",
    error: `e${"x".repeat(5_000)}`,
    detail: { "k\u0000": ["v\uDC00", { nested: "\u0000" }], big: 10n },
    cost: 12.5,
    textInputTokens: 1e12,
    createdAt: new Date(Number.NaN),
  });
  const clean = cleanSettlement(dirty);
  assert.equal(clean.row.requestId, "req-\uFFFD");
  assert.equal(clean.row.model, "m\uFFFD");
  assert.equal(clean.row.channelName, "c\uFFFD");
  assert.equal(clean.row.error!.length, 2_000);
  assert.deepEqual(clean.row.detail, { "k\uFFFD": ["v\uFFFD", { nested: "\uFFFD" }], big: 10 });
  assert.equal(clean.row.textInputTokens, 2_147_483_647, "an Int column holds at most 2^31 - 1");
  assert.ok(!Number.isNaN(clean.row.createdAt.getTime()), "an invalid date becomes now");
  assert.equal(clean.row.cost, 12.5, "money is never changed by cleaning");
  assert.equal(clean.reserved, 1_000);
  assert.equal(dirty.row.model, "m\u0000", "the caller's settlement is left as it was");

  const reduced = reducedSettlement(settlement("req-1", { model: "modèle", error: "bad \uFFFD" }), "22P05: refused");
  assert.equal(reduced.row.model, "mod?le");
  assert.equal(reduced.row.error, "bad ?");
  assert.deepEqual(reduced.row.detail, { note: "Written in a reduced form: the database refused the row as it was (22P05: refused)" });
  assert.deepEqual([reduced.row.cost, reduced.reserved, reduced.keyId, reduced.userId], [10, 1_000, "key-1", "user-1"]);
});
