// What the money store (lib/money/store.ts) writes, for either database: the ledger's columns and their values, what a
// batch of settlements moves, the dead-letter row (docs/billing.md, "The ledger writer"), and which database errors
// are about the data rather than the database being unavailable.
import { randomUUID } from "node:crypto";
import { cappedText } from "@/lib/platform/text";
import { serializedSettlement } from "./ledger-row";
import type { LedgerRow, Settlement } from "./store";

export const LEDGER_COLUMNS = [
  "id",
  "kind",
  "requestId",
  "userId",
  "keyId",
  "keyPrefix",
  "endpoint",
  "model",
  "channelId",
  "channelName",
  "textInputTokens",
  "textOutputTokens",
  "imageInputTokens",
  "imageOutputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reserved",
  "cost",
  "overReservation",
  "priceVersion",
  "status",
  "httpStatus",
  "error",
  "latencyMs",
  "queueMs",
  "firstByteMs",
  "stream",
  "detail",
  "createdAt",
] as const;

export function ledgerValues(row: LedgerRow, date: (value: Date) => unknown, bool: (value: boolean) => unknown): unknown[] {
  return [
    randomUUID(),
    row.kind,
    row.requestId,
    row.userId,
    row.keyId,
    row.keyPrefix,
    row.endpoint,
    row.model,
    row.channelId,
    row.channelName,
    row.textInputTokens,
    row.textOutputTokens,
    row.imageInputTokens,
    row.imageOutputTokens,
    row.cacheReadTokens,
    row.cacheWriteTokens,
    Math.round(row.reserved),
    Math.round(row.cost),
    Math.round(row.overReservation),
    row.priceVersion,
    row.status,
    row.httpStatus,
    row.error,
    row.latencyMs,
    row.queueMs ?? 0,
    row.firstByteMs ?? 0,
    bool(row.stream),
    row.detail === undefined || row.detail === null ? null : JSON.stringify(row.detail),
    date(row.createdAt),
  ];
}

/**
 * True when the database refused the data itself, so the same statement would fail again however often it is retried:
 * PostgreSQL's SQLSTATE classes 22 (data exception: 22P05 untranslatable character, 22021 a NUL in text, 22003 out of
 * range) and 23 (integrity: a NOT NULL column given null); SQLite's constraint, type and size errors; and the errors
 * the drivers throw before sending a value they cannot bind. Anything else (a lost connection, a busy or read-only
 * database, a deadlock, a server shutting down) is taken as transient.
 */
export function isDataError(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (/^2[23][0-9A-Z]{3}$/.test(code)) return true;
  return /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(code);
}

/** The database's error code, when it gave one (SQLSTATE, SQLITE_*). */
export function errorCodeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/**
 * What a batch of settlements moves, for either database: per key and per user, what goes back (the reservation
 * beyond the cost) or is taken in full beyond it (the row then carries `overReservation`: never written off), when
 * each key was last used, and the rows to write (not those refused for their own input, `record: false`).
 */
export function settlementDeltas(settlements: Settlement[]): {
  keyDelta: Map<string, number>;
  userDelta: Map<string, number>;
  touched: Map<string, Date>;
  written: LedgerRow[];
} {
  const keyDelta = new Map<string, number>();
  const userDelta = new Map<string, number>();
  const touched = new Map<string, Date>();
  const add = (deltas: Map<string, number>, id: string, amount: number) => deltas.set(id, (deltas.get(id) ?? 0) + amount);
  const written: LedgerRow[] = [];
  for (const settlement of settlements) {
    // A sum with NaN is NaN: one such settlement would silently cancel the refunds of every other one of its key.
    if (!Number.isFinite(settlement.reserved) || !Number.isFinite(settlement.row.cost))
      throw new RangeError(`The settlement of ${settlement.row.requestId} has a reservation or cost that is not a number`);
    if (settlement.row.keyId) touched.set(settlement.row.keyId, settlement.row.createdAt);
    const row = { ...settlement.row };
    const difference = settlement.reserved - row.cost;
    if (difference !== 0) {
      if (!settlement.unlimited) add(keyDelta, settlement.keyId, difference);
      add(userDelta, settlement.userId, difference);
    }
    if (difference < 0) row.overReservation = -difference;
    if (settlement.record !== false) written.push(row);
  }
  return { keyDelta, userDelta, touched, written };
}

/**
 * What goes back to the keys' budget counters: per key and reservation time, the reservation less the cost (negative
 * when an upstream billed past it), for the settlements whose reservation was counted against a budget. The store
 * applies each only while the key's counter still counts from before that time (a new period starts from nothing).
 */
export function budgetDeltas(settlements: Settlement[]): { keyId: string; at: number; delta: number }[] {
  const merged = new Map<string, { keyId: string; at: number; delta: number }>();
  for (const settlement of settlements) {
    const at = settlement.budgetAt;
    if (at === undefined || at === null || !Number.isFinite(at)) continue;
    const delta = settlement.reserved - settlement.row.cost;
    if (delta === 0) continue;
    const id = `${settlement.keyId} ${at}`;
    const entry = merged.get(id);
    if (entry) entry.delta += delta;
    else merged.set(id, { keyId: settlement.keyId, at, delta });
  }
  return [...merged.values()];
}

export const DEAD_LETTER_COLUMNS = [
  "id",
  "createdAt",
  "requestId",
  "userId",
  "keyId",
  "reserved",
  "cost",
  "moneyApplied",
  "settlement",
  "error",
  "errorCode",
] as const;

export function deadLetterValues(
  settlement: Settlement,
  failure: unknown,
  moneyApplied: boolean,
  date: (value: Date) => unknown,
): unknown[] {
  const whole = (value: number) => (Number.isFinite(value) ? Math.round(value) : null);
  const message = failure instanceof Error ? failure.message : String(failure);
  return [
    randomUUID(),
    date(new Date()),
    cappedText(String(settlement.row.requestId ?? ""), 200),
    cappedText(String(settlement.userId ?? ""), 100),
    settlement.keyId ? cappedText(String(settlement.keyId), 100) : null,
    whole(settlement.reserved),
    whole(settlement.row.cost),
    moneyApplied,
    serializedSettlement(settlement),
    cappedText(message, 2_000),
    cappedText(errorCodeOf(failure) ?? "", 40) || null,
  ];
}

export function insertSql(table: string, columns: readonly string[], placeholder: (index: number) => string): string {
  return `INSERT INTO "${table}" (${columns.map((name) => `"${name}"`).join(", ")}) VALUES (${columns.map((_, index) => placeholder(index)).join(", ")})`;
}

/** A ledger row that moves money without a request to an upstream: a redeemed code (`topup`, its cost the credit
 *  as a negative amount) or an operator's adjustment (`adjust`). */
export function creditRow(entry: {
  kind: "topup" | "adjust";
  userId: string;
  requestId: string;
  endpoint: string;
  cost: number;
  detail?: Record<string, unknown> | null;
  at: Date;
}): LedgerRow {
  return {
    kind: entry.kind,
    requestId: entry.requestId,
    userId: entry.userId,
    keyId: null,
    keyPrefix: null,
    endpoint: entry.endpoint,
    model: "",
    channelId: null,
    channelName: null,
    textInputTokens: 0,
    textOutputTokens: 0,
    imageInputTokens: 0,
    imageOutputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reserved: 0,
    cost: entry.cost,
    overReservation: 0,
    priceVersion: 0,
    status: "success",
    httpStatus: 200,
    error: null,
    latencyMs: 0,
    stream: false,
    detail: entry.detail ?? null,
    createdAt: entry.at,
  };
}

export function topupRow(userId: string, requestId: string, quota: number, at: Date): LedgerRow {
  return creditRow({ kind: "topup", userId, requestId, endpoint: "/api/user/topup", cost: -quota, at });
}
