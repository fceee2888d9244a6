// What the ledger writer (lib/money/ledger.ts) does to a settlement's row before a database sees it, and the reduced
// form it retries a refused row in (docs/billing.md, "The ledger writer"). Any string of a row may come from a client
// or an upstream (a model name, an error message echoing a request, a channel's name, the detail JSON): a NUL or an
// unpaired surrogate in one of them made PostgreSQL refuse the whole batch, and every later settlement with it.
import { cappedText, isStorableText, storableJson, type JsonBounds } from "@/lib/platform/text";
import type { LedgerRow, Settlement } from "./store";

/** The most UTF-16 code units each text column keeps. */
const TEXT_CAPS = {
  kind: 16,
  requestId: 200,
  userId: 100,
  keyId: 100,
  keyPrefix: 40,
  endpoint: 200,
  model: 200,
  channelId: 100,
  channelName: 200,
  status: 32,
  error: 2_000,
} as const satisfies Partial<Record<keyof LedgerRow, number>>;

/** `detail`: each string and key at most 1,000 code units, 8 levels, 200 items per level, 16 KB of JSON in all. */
const DETAIL_BOUNDS: JsonBounds = { maxString: 1_000, maxDepth: 8, maxEntries: 200 };
const DETAIL_MAX_CHARS = 16 * 1024;

const INT_MAX = 2_147_483_647;

function cleanText(value: string | null | undefined, cap: number): string | null {
  if (value === null || value === undefined) return null;
  // Nearly every value is short, clean text: returned as it is after two native scans.
  if (typeof value === "string" && value.length <= cap && isStorableText(value)) return value;
  return cappedText(String(value), cap);
}

/** A count for an Int column (4 bytes on PostgreSQL): whole, within its range (0 for a value that is not a number). */
function cleanInt(value: number): number {
  if (Number.isInteger(value) && value <= INT_MAX && value >= -INT_MAX) return value;
  if (!Number.isFinite(value)) return 0;
  return Math.min(Math.max(Math.round(value), -INT_MAX), INT_MAX);
}

function cleanDetail(detail: unknown): unknown {
  if (detail === undefined || detail === null) return null;
  const cleaned = storableJson(detail, DETAIL_BOUNDS);
  if (cleaned === undefined) return null;
  const size = JSON.stringify(cleaned).length;
  return size <= DETAIL_MAX_CHARS ? cleaned : { note: `The detail (${size} characters of JSON) was longer than the ledger keeps` };
}

/**
 * The row as the databases take it: every text column cleaned (NUL and unpaired surrogates replaced with U+FFFD) and
 * capped, every string and key of `detail` too (lib/platform/text.ts), the Int columns (token counts, price version,
 * HTTP status, latency) whole and within range, `stream` a boolean and `createdAt` a valid date (now when it is
 * not). Money columns (`reserved`, `cost`, `overReservation`) are left
 * exactly as they are. Written out column by column: it runs for every request (0.2-0.7 µs for a row without detail,
 * 4-12 µs with a two-part detail on this machine; a loop over the columns took 2 µs without detail).
 */
export function cleanLedgerRow<T extends Omit<LedgerRow, "cost"> & { cost?: number }>(row: T): T {
  return {
    ...row,
    kind: cleanText(row.kind, TEXT_CAPS.kind),
    requestId: cleanText(row.requestId, TEXT_CAPS.requestId),
    userId: cleanText(row.userId, TEXT_CAPS.userId),
    keyId: cleanText(row.keyId, TEXT_CAPS.keyId),
    keyPrefix: cleanText(row.keyPrefix, TEXT_CAPS.keyPrefix),
    endpoint: cleanText(row.endpoint, TEXT_CAPS.endpoint),
    model: cleanText(row.model, TEXT_CAPS.model),
    channelId: cleanText(row.channelId, TEXT_CAPS.channelId),
    channelName: cleanText(row.channelName, TEXT_CAPS.channelName),
    status: cleanText(row.status, TEXT_CAPS.status),
    error: cleanText(row.error, TEXT_CAPS.error),
    textInputTokens: cleanInt(row.textInputTokens),
    textOutputTokens: cleanInt(row.textOutputTokens),
    imageInputTokens: cleanInt(row.imageInputTokens),
    imageOutputTokens: cleanInt(row.imageOutputTokens),
    cacheReadTokens: cleanInt(row.cacheReadTokens),
    cacheWriteTokens: cleanInt(row.cacheWriteTokens),
    priceVersion: cleanInt(row.priceVersion),
    httpStatus: cleanInt(row.httpStatus),
    latencyMs: cleanInt(row.latencyMs),
    queueMs: cleanInt(row.queueMs ?? 0),
    firstByteMs: cleanInt(row.firstByteMs ?? 0),
    stream: row.stream === true,
    detail: cleanDetail(row.detail),
    createdAt: row.createdAt instanceof Date && !Number.isNaN(row.createdAt.getTime()) ? row.createdAt : new Date(),
  };
}

/** The settlement with its row cleaned (cleanLedgerRow); who pays and how much are unchanged. */
export function cleanSettlement(settlement: Settlement): Settlement {
  return { ...settlement, row: cleanLedgerRow(settlement.row) };
}

/** Printable ASCII only, every other character as '?'. */
function asciiText(value: string | null | undefined, cap: number): string | null {
  return value === null || value === undefined
    ? null
    : String(value)
        .replace(/[^\x20-\x7E]/g, "?")
        .slice(0, cap);
}

/**
 * The form a row the database refused is retried in, once: the free-text columns reduced to printable ASCII, `detail`
 * replaced by a short note naming the refusal. The money movement (who pays, the reservation, the cost) and the
 * identifiers the gateway made itself (user, key, channel) are kept exactly.
 */
export function reducedSettlement(settlement: Settlement, refusal: string): Settlement {
  const { row } = settlement;
  return {
    ...settlement,
    row: {
      ...row,
      requestId: asciiText(row.requestId, TEXT_CAPS.requestId)!,
      keyPrefix: asciiText(row.keyPrefix, TEXT_CAPS.keyPrefix),
      endpoint: asciiText(row.endpoint, TEXT_CAPS.endpoint)!,
      model: asciiText(row.model, TEXT_CAPS.model)!,
      channelName: asciiText(row.channelName, TEXT_CAPS.channelName),
      status: asciiText(row.status, TEXT_CAPS.status)!,
      error: asciiText(row.error, 500),
      detail: { note: `Written in a reduced form: the database refused the row as it was (${asciiText(refusal, 200)})` },
    },
  };
}

/** The settlement as JSON text for the dead-letter table and the log: numbers that JSON cannot hold kept as text. */
export function serializedSettlement(settlement: Settlement): string {
  return JSON.stringify(settlement, (_key, value) => {
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number" && !Number.isFinite(value)) return String(value);
    return value;
  });
}
